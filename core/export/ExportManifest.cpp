// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ExportModel.h"
#include "core/partition/PartitionCost.h"
#include "core/partition/PlanReport.h"

#include <algorithm>
#include <filesystem>

namespace cleave {

namespace {

using ojson = nlohmann::ordered_json;

void addType(ojson &j, const Type &t)
{
    j["type"] = t.toRelay();
    if (t.isTensor()) {
        ojson shape = ojson::array();
        for (const Dim &d : t.shape) {
            if (d.isKnown())
                shape.push_back(d.value);
            else
                shape.push_back(d.symbol.empty() ? std::string("?") : d.symbol);
        }
        j["shape"] = std::move(shape);
        j["dtype"] = t.dtype;
    }
    const auto bytes = t.byteSize();
    j["bytes"] = bytes ? ojson(*bytes) : ojson(nullptr);
}

} // namespace

nlohmann::ordered_json manifestJson(const ExportModel &m)
{
    const PartitionPlan &plan = *m.plan;
    const BoundaryTable &boundary = *m.boundary;
    const Graph &g = plan.graph();
    const std::vector<PartitionCost> costs = partitionCosts(plan, boundary);
    ojson out;
    out["cleave_export"] = 1;
    out["cleave_version"] = CLEAVE_VERSION;
    ojson source;
    std::error_code ec;
    const std::filesystem::path abs = g.sourcePath().empty()
        ? std::filesystem::path()
        : std::filesystem::absolute(g.sourcePath(), ec);
    source["path"] = ec ? g.sourcePath() : abs.lexically_normal().string();
    source["checksum"] = g.checksum();
    source["format"] = g.format();
    source["function"] = g.function(plan.function()).name;
    out["source"] = std::move(source);
    out["module_format"] = m.writer ? m.writer->formatName() : std::string("relay");
    out["lift_constants"] = m.options->liftConstants;
    out["lifted_constants_order"]
        = "per module: the partition's tensor constants in order of first use in program order, "
          "appended after the inputs as const_0, const_1, ...";

    ojson inputs = ojson::array();
    for (std::size_t i = 0; i < m.globalInputs.size(); ++i) {
        ojson in;
        in["name"] = m.globalInputs[i].first;
        addType(in, g.node(plan.view().inputs()[i]).outputType());
        in["mod_idx"] = m.globalInputs[i].second;
        const NodeId node = plan.view().inputs()[i];
        in["param"] = std::any_of(m.params.begin(), m.params.end(),
                                  [&](const ExportParam &p) { return p.input == node; });
        inputs.push_back(std::move(in));
    }
    out["global_inputs"] = std::move(inputs);
    ojson params = ojson::array();
    for (const ExportParam &p : m.params) {
        ojson pj;
        pj["name"] = p.name;
        addType(pj, g.node(p.input).outputType());
        pj["reason"] = p.reason;
        ojson groups = ojson::array();
        for (const auto &[group, module] : p.groups)
            groups.push_back(ojson { { "global_param_name", group }, { "mod_idx", module } });
        pj["param_connection"] = std::move(groups);
        params.push_back(std::move(pj));
    }
    out["params"] = std::move(params);
    const std::vector<TensorRef> globalOutputs = g.outputs(plan.function());
    const Function &main = g.function(plan.function());
    out["result_is_tuple"] = main.result.isValid() && g.node(main.result).kind == NodeKind::Tuple;
    ojson gouts = ojson::array();
    for (std::size_t k = 0; k < m.outputs.size(); ++k) {
        for (std::size_t o = 0; o < m.outputs[k].size(); ++o) {
            for (const OutputDependency &d : m.outputs[k][o].dependencies) {
                if (d.globalOutput < 0)
                    continue;
                ojson go;
                go["index"] = d.globalOutput;
                go["mod_idx"] = k;
                go["output_idx"] = o;
                addType(go, m.outputs[k][o].type);
                gouts.push_back(std::move(go));
            }
        }
    }
    std::sort(gouts.begin(), gouts.end(),
              [](const ojson &a, const ojson &b) { return a["index"] < b["index"]; });
    out["global_outputs"] = std::move(gouts);

    ojson partitions = ojson::array();
    ojson lifted = ojson::array();
    for (std::size_t k = 0; k < plan.partitionCount(); ++k) {
        const Partition &p = plan.partitions()[k];
        const PartitionInterface &iface = boundary.interfaces[k];
        ojson part;
        part["mod_idx"] = k;
        part["name"] = p.name;
        part["target"] = m.targets[k];
        part["byoc"] = isByocTarget(m.targets[k]);
        part["dev"] = deviceOf(m.targets[k]);
        if (const std::string provider
            = m.writer ? m.writer->executionProvider(m.targets[k]) : std::string();
            !provider.empty())
            part["execution_provider"] = provider;
        part["file"] = k < m.files.size() ? m.files[k] : std::string();
        ojson nodes = ojson::array();
        for (NodeId n : plan.nodesOf(p.id))
            nodes.push_back(g.key(n));
        part["nodes"] = std::move(nodes);
        part["ops"] = costs[k].ops;
        part["flops"] = costs[k].flops;
        part["param_bytes"] = costs[k].paramBytes;
        part["boundary_bytes_in"] = costs[k].boundaryBytesIn;
        part["boundary_bytes_out"] = costs[k].boundaryBytesOut;

        const ModuleSummary *summary = k < m.summaries.size() ? &m.summaries[k] : nullptr;
        ojson ins = ojson::array();
        for (std::size_t i = 0; i < iface.inputs.size(); ++i) {
            const PartitionInput &pi = iface.inputs[i];
            ojson in;
            const bool renamed = k < m.inputNames.size() && i < m.inputNames[k].size()
                && m.inputNames[k][i] != pi.name;
            in["name"] = renamed ? m.inputNames[k][i] : pi.name;
            if (renamed)
                in["cut_name"] = pi.name; // the engine's data_n_<i>
            ojson from;
            if (pi.boundary >= 0) {
                const BoundaryTensor &b = boundary.tensors[static_cast<std::size_t>(pi.boundary)];
                addType(in, b.type);
                from["mod_idx"] = plan.indexOf(b.producerPartition);
                from["output_idx"] = b.outputIndex;
                from["tensor"] = boundaryTensorName(g, b);
            } else {
                addType(in, g.node(pi.globalInput).outputType());
                for (std::size_t j = 0; j < m.outputs.size(); ++j) {
                    for (std::size_t o = 0; o < m.outputs[j].size(); ++o) {
                        if (m.outputs[j][o].passThrough == pi.name && j != k) {
                            from["mod_idx"] = j;
                            from["output_idx"] = o;
                        }
                    }
                }
                from["global_input"] = pi.name;
                for (const ExportParam &p : m.params) {
                    for (const auto &[group, module] : p.groups) {
                        if (p.input == pi.globalInput && module == static_cast<int>(k))
                            from["param_group"] = group;
                    }
                }
            }
            in["from"] = std::move(from);
            ins.push_back(std::move(in));
        }
        ojson consts = ojson::array();
        if (summary) {
            for (const ModuleSummary::Constant &c : summary->constants) {
                ojson cj;
                cj["source_ref"] = c.sourceRef;
                cj["source_node"] = c.sourceKey;
                if (c.parameter.empty()) {
                    cj["module_ref"] = c.moduleRef;
                } else {
                    cj["parameter"] = c.parameter;
                    ojson in;
                    in["name"] = c.parameter;
                    addType(in, c.type);
                    in["from"] = ojson { { "constant", c.sourceRef } };
                    ins.push_back(in);
                    ojson l;
                    l["mod_idx"] = k;
                    l["parameter"] = c.parameter;
                    l["source_ref"] = c.sourceRef;
                    l["source_node"] = c.sourceKey;
                    addType(l, c.type);
                    lifted.push_back(std::move(l));
                }
                addType(cj, c.type);
                consts.push_back(std::move(cj));
            }
        }
        part["inputs"] = std::move(ins);
        ojson outs = ojson::array();
        for (std::size_t o = 0; o < m.outputs[k].size(); ++o) {
            const ModuleOutputInfo &info = m.outputs[k][o];
            ojson oj;
            oj["output_idx"] = o;
            addType(oj, info.type);
            if (!info.passThrough.empty())
                oj["pass_through"] = info.passThrough;
            else if (o < iface.outputs.size())
                oj["tensor"] = iface.outputs[o].boundary >= 0
                    ? boundaryTensorName(
                        g, boundary.tensors[static_cast<std::size_t>(iface.outputs[o].boundary)])
                    : g.key(iface.outputs[o].tensor.node);
            ojson to = ojson::array();
            for (const OutputDependency &d : info.dependencies) {
                if (d.module >= 0)
                    to.push_back(ojson { { "mod_idx", d.module }, { "input_name", d.inputName } });
                else
                    to.push_back(ojson { { "global_output_index", d.globalOutput } });
            }
            oj["to"] = std::move(to);
            outs.push_back(std::move(oj));
        }
        part["outputs"] = std::move(outs);
        part["constants"] = std::move(consts);
        partitions.push_back(std::move(part));
    }
    out["partitions"] = std::move(partitions);
    const nlohmann::json report = planReportJson(plan, boundary, {});
    out["boundary"] = ojson::parse(
        report["boundary"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    out["lifted_constants"] = std::move(lifted);
    std::vector<Diagnostic> all = m.options->diagnostics;
    all.insert(all.end(), m.diagnostics.begin(), m.diagnostics.end());
    out["diagnostics"]
        = ojson::parse(diagnosticsToJson(&plan, g, all)
                           .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return out;
}

} // namespace cleave
