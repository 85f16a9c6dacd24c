// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relay/ByocExport.h"

#include "core/export/ModuleComposer.h"
#include "core/export/PartitionModule.h"
#include "core/export/relay/RelayPrinter.h"

#include <algorithm>

namespace cleave {

bool hasByocPartition(const ExportModel &model)
{
    return std::ranges::any_of(model.targets, [](const std::string &t) { return isByocTarget(t); });
}

bool byocModules(const ExportModel &m, std::string &byoc, std::string &annotated,
                 std::string &error)
{
    const PartitionPlan &plan = *m.plan;
    const BoundaryTable &boundary = *m.boundary;
    const Graph &src = plan.graph();
    const std::size_t n = plan.partitionCount();

    std::vector<PartitionModule> modules;
    modules.reserve(n);
    for (std::size_t k = 0; k < n; ++k)
        modules.push_back(
            extractPartition(plan, boundary, k, ConstantLifting::None, m.passThrough[k]));

    std::vector<ComposedModule> composed(n);
    int region = 0;
    for (std::size_t k = 0; k < n; ++k) {
        ComposedModule &cm = composed[k];
        cm.graph = &modules[k].graph;
        cm.outputCount = m.outputs[k].size();
        cm.tupleOutputs = cm.outputCount > 1;
        for (const ModuleConstant &c : modules[k].constants) {
            if (!c.moduleRef.empty())
                cm.constantRefs.emplace(c.moduleRef, c.sourceRef);
        }
        for (const PartitionInput &in : boundary.interfaces[k].inputs) {
            ModuleBinding b;
            if (in.boundary >= 0) {
                const BoundaryTensor &t = boundary.tensors[static_cast<std::size_t>(in.boundary)];
                b.kind = ModuleBinding::Kind::ModuleOutput;
                b.module = static_cast<std::size_t>(plan.indexOf(t.producerPartition));
                b.output = t.outputIndex;
            } else {
                b.kind = ModuleBinding::Kind::GlobalInput;
                b.name = in.name;
                for (std::size_t j = 0; j < k; ++j) {
                    for (std::size_t o = 0; o < m.outputs[j].size(); ++o) {
                        if (m.outputs[j][o].passThrough == in.name) {
                            b.kind = ModuleBinding::Kind::ModuleOutput;
                            b.module = j;
                            b.output = o;
                        }
                    }
                }
            }
            cm.bindings.push_back(std::move(b));
        }
        // Parameters extractPartition added for forwarded inputs the partition does not read
        // (constants are not lifted here).
        for (std::size_t p = cm.bindings.size(); p < modules[k].parameters.size(); ++p) {
            ModuleBinding b;
            b.name = modules[k].parameters[p];
            cm.bindings.push_back(std::move(b));
        }
        if (isByocTarget(m.targets[k])) {
            const std::string &compiler = m.targets[k];
            const std::string name
                = "tvmgen_default_" + compiler + "_main_" + std::to_string(region);
            cm.callName = name;
            cm.callAttrs.set("Compiler", AttrValue::string(compiler));
            cm.callAttrs.set("Primitive", AttrValue::integer(1));
            cm.callAttrs.set("Inline", AttrValue::integer(1));
            cm.callAttrs.set("global_symbol", AttrValue::string(name));
            for (std::size_t i = 0; i < cm.bindings.size(); ++i)
                cm.callParams.push_back(compiler + "_" + std::to_string(region) + "_i"
                                        + std::to_string(i));
            ++region;
        }
    }

    ComposeSpec spec;
    const Function &main = src.function(plan.function());
    for (NodeId p : plan.view().inputs())
        spec.inputs.emplace_back(globalInputName(src, p), src.node(p).outputType());
    std::vector<std::pair<int, std::pair<std::size_t, std::size_t>>> outs;
    for (std::size_t k = 0; k < n; ++k) {
        for (std::size_t o = 0; o < m.outputs[k].size(); ++o) {
            for (const OutputDependency &d : m.outputs[k][o].dependencies) {
                if (d.globalOutput >= 0)
                    outs.push_back({ d.globalOutput, { k, o } });
            }
        }
    }
    std::sort(outs.begin(), outs.end());
    for (const auto &o : outs)
        spec.outputs.push_back(o.second);
    spec.tupleResult = main.result.isValid() && src.node(main.result).kind == NodeKind::Tuple;
    spec.signature = main;
    spec.collapseFieldTuples = true;

    auto print = [&](const std::vector<ComposedModule> &mods, std::string &out) {
        Graph g = composeModules(mods, spec, error);
        if (!error.empty())
            return false;
        g.setVersionHeader("0.0.5");
        g.setMetadata(src.metadata());
        // @main first, then the external functions in region order.
        for (std::size_t i = 0; i < g.functionCount(); ++i) {
            Function &f = g.function(FunctionId(i));
            f.where.line = f.name == "main" ? 0 : static_cast<int>(i) + 1;
            f.where.column = 0;
        }
        out = RelayPrinter(g).printModule();
        return true;
    };
    if (!print(composed, byoc))
        return false;
    for (std::size_t k = 0; k < n; ++k) {
        ComposedModule &cm = composed[k];
        if (cm.callName.empty())
            continue;
        cm.annotateCompiler = m.targets[k];
        cm.callName.clear();
        cm.callAttrs = {};
        cm.callParams.clear();
    }
    return print(composed, annotated);
}

} // namespace cleave
