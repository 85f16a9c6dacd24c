// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ExportModel.h"
#include "core/partition/PartitionCost.h"
#include "core/partition/PlanReport.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace cleave {

namespace {

using OrderedJson = nlohmann::ordered_json;

void addType(OrderedJson &j, const Type &t)
{
    j["type"] = t.toRelay();
    if (t.isTensor()) {
        OrderedJson shape = OrderedJson::array();
        for (const Dim &d : t.shape) {
            if (d.isKnown())
                shape.push_back(d.value);
            else
                shape.push_back(d.symbol.empty() ? std::string("?") : d.symbol);
        }
        j["shape"] = std::move(shape);
        j["dtype"] = t.dtype.str();
    }
    const auto bytes = t.byteSize();
    j["bytes"] = bytes ? OrderedJson(*bytes) : OrderedJson(nullptr);
}

OrderedJson sourceJson(const ExportModel &m)
{
    const PartitionPlan &plan = *m.plan;
    const Graph &g = plan.graph();
    OrderedJson source;
    std::error_code ec;
    const std::filesystem::path abs = g.sourcePath().empty()
        ? std::filesystem::path()
        : std::filesystem::absolute(g.sourcePath(), ec);
    source["path"] = ec ? g.sourcePath() : abs.lexically_normal().string();
    source["checksum"] = g.checksum();
    source["format"] = g.format();
    source["function"] = g.function(plan.function()).name;
    return source;
}

OrderedJson globalInputsJson(const ExportModel &m)
{
    const PartitionPlan &plan = *m.plan;
    OrderedJson inputs = OrderedJson::array();
    for (std::size_t i = 0; i < m.globalInputs.size(); ++i) {
        const NodeId node = plan.view().inputs()[i];
        OrderedJson in;
        in["name"] = m.globalInputs[i].first;
        addType(in, plan.graph().node(node).outputType());
        in["mod_idx"] = m.globalInputs[i].second;
        in["param"] = std::any_of(m.params.begin(), m.params.end(),
                                  [&](const ExportParam &p) { return p.input == node; });
        inputs.push_back(std::move(in));
    }
    return inputs;
}

OrderedJson paramsJson(const ExportModel &m)
{
    OrderedJson params = OrderedJson::array();
    for (const ExportParam &p : m.params) {
        OrderedJson pj;
        pj["name"] = p.name;
        addType(pj, m.plan->graph().node(p.input).outputType());
        pj["reason"] = p.reason;
        OrderedJson groups = OrderedJson::array();
        for (const auto &[group, module] : p.groups)
            groups.push_back(OrderedJson { { "global_param_name", group }, { "mod_idx", module } });
        pj["param_connection"] = std::move(groups);
        params.push_back(std::move(pj));
    }
    return params;
}

/// Where each global output comes from (module and output), by global output index.
OrderedJson globalOutputsJson(const ExportModel &m)
{
    OrderedJson gouts = OrderedJson::array();
    for (std::size_t k = 0; k < m.outputs.size(); ++k) {
        for (std::size_t o = 0; o < m.outputs[k].size(); ++o) {
            for (const OutputDependency &d : m.outputs[k][o].dependencies) {
                if (d.globalOutput < 0)
                    continue;
                OrderedJson go;
                go["index"] = d.globalOutput;
                go["mod_idx"] = k;
                go["output_idx"] = o;
                addType(go, m.outputs[k][o].type);
                gouts.push_back(std::move(go));
            }
        }
    }
    std::sort(gouts.begin(), gouts.end(),
              [](const OrderedJson &a, const OrderedJson &b) { return a["index"] < b["index"]; });
    return gouts;
}

/// Where a global input of module `k` comes from: the input itself, or the module that passes
/// it through; and its parameter group, if any.
OrderedJson globalInputSource(const ExportModel &m, std::size_t k, const PartitionInput &pi)
{
    OrderedJson from;
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
    return from;
}

/// Input `i` of module `k`: its name in the module, its type and where it comes from.
OrderedJson moduleInputJson(const ExportModel &m, std::size_t k, std::size_t i)
{
    const Graph &g = m.plan->graph();
    const PartitionInput &pi = m.boundary->interfaces[k].inputs[i];
    OrderedJson in;
    const bool renamed
        = k < m.inputNames.size() && i < m.inputNames[k].size() && m.inputNames[k][i] != pi.name;
    in["name"] = renamed ? m.inputNames[k][i] : pi.name;
    if (renamed)
        in["cut_name"] = pi.name; // the engine's data_n_<i>
    if (pi.boundary < 0) {
        addType(in, g.node(pi.globalInput).outputType());
        in["from"] = globalInputSource(m, k, pi);
        return in;
    }
    const BoundaryTensor &b = m.boundary->tensors[static_cast<std::size_t>(pi.boundary)];
    addType(in, b.type);
    OrderedJson from;
    from["mod_idx"] = m.plan->indexOf(b.producerPartition);
    from["output_idx"] = b.outputIndex;
    from["tensor"] = boundaryTensorName(g, b);
    in["from"] = std::move(from);
    return in;
}

/// The constants of module `k`; a lifted one also becomes an input of the module and an entry
/// of the manifest's "lifted_constants".
OrderedJson moduleConstantsJson(const ExportModel &m, std::size_t k, OrderedJson &inputs,
                                OrderedJson &lifted)
{
    OrderedJson consts = OrderedJson::array();
    if (k >= m.summaries.size())
        return consts;
    for (const ModuleSummary::Constant &c : m.summaries[k].constants) {
        OrderedJson cj;
        cj["source_ref"] = c.sourceRef;
        cj["source_node"] = c.sourceKey;
        if (c.parameter.empty()) {
            cj["module_ref"] = c.moduleRef;
        } else {
            cj["parameter"] = c.parameter;
            OrderedJson in;
            in["name"] = c.parameter;
            addType(in, c.type);
            in["from"] = OrderedJson { { "constant", c.sourceRef } };
            inputs.push_back(in);
            OrderedJson l;
            l["mod_idx"] = k;
            l["parameter"] = c.parameter;
            l["source_ref"] = c.sourceRef;
            l["source_node"] = c.sourceKey;
            addType(l, c.type);
            if (!c.threadedThrough.empty())
                l["threaded_through"] = c.threadedThrough;
            lifted.push_back(std::move(l));
        }
        addType(cj, c.type);
        consts.push_back(std::move(cj));
    }
    return consts;
}

/// The outputs of module `k`: type, the tensor (or passed-through input) and the consumers.
OrderedJson moduleOutputsJson(const ExportModel &m, std::size_t k)
{
    const Graph &g = m.plan->graph();
    const PartitionInterface &iface = m.boundary->interfaces[k];
    OrderedJson outs = OrderedJson::array();
    for (std::size_t o = 0; o < m.outputs[k].size(); ++o) {
        const ModuleOutputInfo &info = m.outputs[k][o];
        OrderedJson oj;
        oj["output_idx"] = o;
        addType(oj, info.type);
        if (!info.passThrough.empty())
            oj["pass_through"] = info.passThrough;
        else if (o < iface.outputs.size())
            oj["tensor"] = iface.outputs[o].boundary >= 0
                ? boundaryTensorName(
                    g, m.boundary->tensors[static_cast<std::size_t>(iface.outputs[o].boundary)])
                : g.key(iface.outputs[o].tensor.node);
        OrderedJson to = OrderedJson::array();
        for (const OutputDependency &d : info.dependencies) {
            if (d.module >= 0)
                to.push_back(
                    OrderedJson { { "mod_idx", d.module }, { "input_name", d.inputName } });
            else
                to.push_back(OrderedJson { { "global_output_index", d.globalOutput } });
        }
        oj["to"] = std::move(to);
        outs.push_back(std::move(oj));
    }
    return outs;
}

/// The entry of partition `k` (module `k`); lifted constants are appended to `lifted`.
OrderedJson partitionJson(const ExportModel &m, std::size_t k, const PartitionCost &cost,
                          OrderedJson &lifted)
{
    const PartitionPlan &plan = *m.plan;
    const Partition &p = plan.partitions()[k];
    OrderedJson part;
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
    OrderedJson nodes = OrderedJson::array();
    for (NodeId n : plan.nodesOf(p.id))
        nodes.push_back(plan.graph().key(n));
    part["nodes"] = std::move(nodes);
    // Nodes of other partitions this module computes again (weight-only values it reads).
    OrderedJson replicas = OrderedJson::array();
    for (NodeId n : m.boundary->interfaces[k].replicas)
        replicas.push_back(plan.graph().key(n));
    part["recomputes"] = std::move(replicas);
    part["ops"] = cost.ops;
    part["flops"] = cost.flops;
    part["param_bytes"] = cost.paramBytes;
    part["boundary_bytes_in"] = cost.boundaryBytesIn;
    part["boundary_bytes_out"] = cost.boundaryBytesOut;
    if (k < m.options->predictedUs.size() && std::isfinite(m.options->predictedUs[k]))
        part["predicted_us"] = m.options->predictedUs[k];

    OrderedJson ins = OrderedJson::array();
    for (std::size_t i = 0; i < m.boundary->interfaces[k].inputs.size(); ++i)
        ins.push_back(moduleInputJson(m, k, i));
    OrderedJson consts = moduleConstantsJson(m, k, ins, lifted);
    part["inputs"] = std::move(ins);
    part["outputs"] = moduleOutputsJson(m, k);
    part["constants"] = std::move(consts);
    return part;
}

/// A JSON value (with invalid UTF-8 replaced) as an ordered one.
OrderedJson ordered(const nlohmann::json &j)
{
    return OrderedJson::parse(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

} // namespace

nlohmann::ordered_json manifestJson(const ExportModel &m)
{
    const PartitionPlan &plan = *m.plan;
    const BoundaryTable &boundary = *m.boundary;
    const Graph &g = plan.graph();
    OrderedJson out;
    out["cleave_export"] = 1;
    out["cleave_version"] = CLEAVE_VERSION;
    out["source"] = sourceJson(m);
    out["module_format"] = m.writer ? m.writer->formatName() : std::string("relay");
    out["lift_constants"] = m.options->liftConstants;
    out["lifted_constants_order"]
        = "per module: the partition's tensor constants in order of first use in program order, "
          "appended after the inputs as const_0, const_1, ...; a closed function that uses one "
          "(a global, or a Primitive / Composite / Compiler fn) takes it as an extra trailing "
          "parameter of the same name, listed in threaded_through";
    out["global_inputs"] = globalInputsJson(m);
    out["params"] = paramsJson(m);
    const Function &main = g.function(plan.function());
    out["result_is_tuple"] = main.result.isValid() && g.node(main.result).kind == NodeKind::Tuple;
    out["global_outputs"] = globalOutputsJson(m);
    if (!m.options->predictedUs.empty())
        out["cost_model"] = m.options->costModel;

    const std::vector<PartitionCost> costs = partitionCosts(plan, boundary);
    OrderedJson partitions = OrderedJson::array();
    OrderedJson lifted = OrderedJson::array();
    for (std::size_t k = 0; k < plan.partitionCount(); ++k)
        partitions.push_back(partitionJson(m, k, costs[k], lifted));
    out["partitions"] = std::move(partitions);
    out["boundary"] = ordered(planReportJson(plan, boundary, {})["boundary"]);
    out["lifted_constants"] = std::move(lifted);
    std::vector<Diagnostic> all = m.options->diagnostics;
    all.insert(all.end(), m.diagnostics.begin(), m.diagnostics.end());
    out["diagnostics"] = ordered(diagnosticsToJson(&plan, g, all));
    return out;
}

} // namespace cleave
