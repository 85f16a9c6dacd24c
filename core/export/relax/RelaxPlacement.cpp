// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relax/GraphCopier.h"
#include "core/export/relax/RelaxArtefacts.h"
#include "core/export/relax/RelaxPrinter.h"
#include "core/io/relax/RelaxValues.h"

#include <map>

namespace cleave {

namespace {

std::string targetKind(const std::string &target)
{
    return target.substr(0, target.find_first_of(" \t"));
}

/// The target a partition's vdevice is declared with: BYOC partitions run from the host.
std::string deviceTarget(const std::string &target)
{
    if (target.empty() || isByocTarget(target))
        return "llvm";
    return target;
}

/// `{"vdevice": [I.vdevice("cuda", 0), ...]}`: one vdevice per partition, numbered per kind.
AttrValue globalInfos(const ExportModel &model, const std::vector<std::string> &devices)
{
    std::string infos = "{\"vdevice\": [";
    std::map<std::string, int> perKind;
    for (std::size_t k = 0; k < devices.size(); ++k) {
        const std::string target = deviceTarget(model.targets[k]);
        infos += std::string(k ? ", " : "") + "I.vdevice(" + relax::quoted(target) + ", "
            + std::to_string(perKind[targetKind(target)]++) + ")";
    }
    AttrValue value;
    value.kind = AttrValue::Kind::Opaque;
    value.text = infos + "]}";
    return value;
}

} // namespace

std::vector<std::string> relaxPartitionDevices(const ExportModel &model)
{
    std::vector<std::string> devices;
    std::map<std::string, int> perKind;
    for (const std::string &target : model.targets) {
        const std::string kind = targetKind(deviceTarget(target));
        devices.push_back(kind + ":" + std::to_string(perKind[kind]++));
    }
    return devices;
}

std::string relaxPlacedModule(const ExportModel &model)
{
    const PartitionPlan &plan = *model.plan;
    const BoundaryTable &boundary = *model.boundary;
    const Graph &src = plan.graph();
    const FunctionView &view = plan.view();
    const std::vector<std::string> devices = relaxPartitionDevices(model);

    Graph out;
    out.setFormat("relax");
    out.setMetadata(src.metadata());
    for (const auto &[key, value] : src.moduleAttrs().items()) {
        if (key != "decorator") // exports use @I.ir_module
            out.moduleAttrs().set(key, value);
    }
    out.moduleAttrs().set("global_infos", globalInfos(model, devices));

    GraphCopier copier(src, out);
    for (std::size_t f = 0; f < src.functionCount(); ++f) {
        if (src.function(FunctionId(f)).kind == Function::Kind::Global
            && FunctionId(f) != plan.function())
            copier.global(FunctionId(f));
    }
    const Function &srcMain = src.function(plan.function());
    Function main;
    main.kind = Function::Kind::Global;
    main.name = srcMain.name;
    main.attrs = srcMain.attrs;
    main.returnType = srcMain.returnType;
    main.hasReturnType = srcMain.hasReturnType;
    const FunctionId mainId = out.addFunction(std::move(main));
    for (NodeId p : srcMain.params)
        out.function(mainId).params.push_back(copier.copyNode(p, mainId));

    std::unordered_map<std::uint32_t, std::string> deviceOf; // output node → vdevice
    // (boundary tensor, consuming partition) → the moved copy.
    std::map<std::pair<std::size_t, std::int32_t>, TensorRef> moved;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t>
        fieldBoundary; // (node, field) → b
    std::unordered_map<std::uint32_t, std::size_t> wholeBoundary; // node → b
    for (std::size_t b = 0; b < boundary.tensors.size(); ++b) {
        const BoundaryTensor &t = boundary.tensors[b];
        if (t.field)
            fieldBoundary[{ t.tensor.node.value, *t.field }] = b;
        else
            wholeBoundary[t.tensor.node.value] = b;
    }
    std::int32_t current = -1;
    copier.inputHook = [&](NodeId, TensorRef in) -> std::optional<TensorRef> {
        auto it = wholeBoundary.find(in.node.value);
        if (it == wholeBoundary.end())
            return std::nullopt;
        auto m = moved.find({ it->second, current });
        return m == moved.end() ? std::nullopt : std::optional<TensorRef>(m->second);
    };
    auto moveTensor = [&](std::size_t b, TensorRef value, std::int32_t from) {
        const BoundaryTensor &t = boundary.tensors[b];
        for (const BoundaryConsumer &c : t.consumers) {
            const std::int32_t q = plan.indexOf(c.partition);
            if (q < 0 || q == from || moved.contains({ b, q }))
                continue;
            Node n;
            n.kind = NodeKind::OpCall;
            n.op = "relax.to_vdevice";
            n.function = mainId;
            n.inputs = { value };
            n.name = src.node(t.tensor.node).name + (t.field ? "_" + std::to_string(*t.field) : "")
                + "_" + devices[static_cast<std::size_t>(q)];
            for (char &ch : n.name)
                ch = ch == ':' ? '_' : ch;
            n.attrs.set("dst_vdevice", AttrValue::string(devices[static_cast<std::size_t>(q)]));
            n.outputTypes = { t.type };
            n.typeAnnotated = true;
            const NodeId id = out.addNode(std::move(n));
            deviceOf[id.value] = devices[static_cast<std::size_t>(q)];
            moved[{ b, q }] = TensorRef { id, 0 };
        }
    };
    for (NodeId n : view.order()) {
        const std::int32_t k = plan.indexOf(plan.partitionOf(n));
        const Node &node = src.node(n);
        if (node.kind == NodeKind::Input)
            continue;
        current = k;
        // A projection of a moved tuple field reads the moved copy.
        if (node.kind == NodeKind::TupleGetItem && !node.inputs.empty()) {
            auto fb = fieldBoundary.find({ node.inputs[0].node.value, node.index });
            if (fb != fieldBoundary.end() && moved.contains({ fb->second, k })) {
                copier.map(n, moved[{ fb->second, k }]);
                continue;
            }
        }
        const NodeId copy = copier.copyNode(n, mainId);
        if (k >= 0)
            deviceOf[copy.value] = devices[static_cast<std::size_t>(k)];
        if (auto it = wholeBoundary.find(n.value); it != wholeBoundary.end())
            moveTensor(it->second, TensorRef { copy, 0 }, k);
        for (const auto &[key, b] : fieldBoundary) {
            if (key.first != n.value)
                continue;
            Node item;
            item.kind = NodeKind::TupleGetItem;
            item.function = mainId;
            item.index = key.second;
            item.inputs = { TensorRef { copy, 0 } };
            item.outputTypes = { boundary.tensors[b].type };
            moveTensor(b, TensorRef { out.addNode(std::move(item)), 0 }, k);
        }
    }
    if (srcMain.result.isValid())
        out.function(mainId).result = copier.resolve(TensorRef { srcMain.result, 0 }).node;
    out.finalize();
    RelaxPrinter printer(out);
    printer.setNodeDevice(std::move(deviceOf));
    return printer.printModule();
}

bool relaxArtefacts(const ExportModel &model,
                    std::vector<std::pair<std::string, std::string>> &files,
                    std::vector<Diagnostic> &diagnostics)
{
    const ExportOptions &options = *model.options;
    bool byoc = false;
    for (const std::string &t : model.targets)
        byoc = byoc || isByocTarget(t);
    if (options.byoc && byoc) {
        std::string text;
        std::string error;
        if (!relaxByocModule(model, text, error)) {
            diagnostics.push_back(Diagnostic::make(Severity::Error, "export.byoc", error));
            return false;
        }
        files.emplace_back("byoc.relax.py", std::move(text));
    }
    files.emplace_back("placed.relax.py", relaxPlacedModule(model));
    if (options.buildScript)
        files.emplace_back("build_relax.py", relaxBuildScript(model));
    return true;
}

} // namespace cleave
