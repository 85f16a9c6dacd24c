// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relax/GraphCopier.h"
#include "core/export/relax/RelaxArtefacts.h"
#include "core/export/relax/RelaxPrinter.h"
#include "core/io/relax/RelaxValues.h"

#include <algorithm>
#include <map>

namespace cleave {

namespace {

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

std::vector<std::pair<std::string, int>> relaxInputDevices(const ExportModel &model)
{
    const PartitionPlan &plan = *model.plan;
    const Graph &g = plan.graph();
    std::unordered_map<std::uint32_t, int> first;
    for (NodeId n : plan.view().order()) {
        if (g.node(n).kind == NodeKind::Input)
            continue;
        const int k = plan.indexOf(plan.partitionOf(n));
        if (k < 0)
            continue;
        for (const TensorRef &in : g.node(n).inputs) {
            if (!in.node.isValid() || g.node(in.node).kind != NodeKind::Input)
                continue;
            auto [it, added] = first.emplace(in.node.value, k);
            if (!added)
                it->second = std::min(it->second, k);
        }
    }
    std::vector<std::pair<std::string, int>> devices;
    const auto &inputs = plan.view().inputs();
    for (std::size_t i = 0; i < model.globalInputs.size() && i < inputs.size(); ++i) {
        auto it = first.find(inputs[i].value);
        if (it != first.end() && g.node(inputs[i]).outputType().isTensor())
            devices.emplace_back(model.globalInputs[i].first, it->second);
    }
    return devices;
}

namespace {

/// Builds placed.relax.py's graph: the whole module, the partitioned function's bindings
/// annotated with their partition's vdevice, and every boundary value moved to each consuming
/// partition's vdevice once.
class PlacedModuleBuilder
{
public:
    PlacedModuleBuilder(const ExportModel &model, Graph &out)
        : m_model(&model)
        , m_plan(*model.plan)
        , m_boundary(*model.boundary)
        , m_src(m_plan.graph())
        , m_out(out)
        , m_devices(relaxPartitionDevices(model))
        , m_copier(m_src, out)
    {
        m_out.setFormat("relax");
        m_out.setMetadata(m_src.metadata());
        for (const auto &[key, value] : m_src.moduleAttrs().items()) {
            if (key != "decorator") // exports use @I.ir_module
                m_out.moduleAttrs().set(key, value);
        }
        m_out.moduleAttrs().set("global_infos", globalInfos(model, m_devices));
        for (std::size_t b = 0; b < m_boundary.tensors.size(); ++b) {
            const BoundaryTensor &t = m_boundary.tensors[b];
            if (t.field)
                m_fieldBoundary[{ t.tensor.node.value, *t.field }] = b;
            else
                m_wholeBoundary[t.tensor.node.value] = b;
        }
        // One module on several devices computes a replicated weight-only value once and moves
        // it to the partitions that would recompute it, like a crossing tensor (move keys after
        // the boundary tensors').
        for (std::size_t i = 0; i < m_boundary.replicated.size(); ++i)
            m_replicated[m_boundary.replicated[i].tensor.node.value]
                = m_boundary.tensors.size() + i;
    }

    void build();
    std::unordered_map<std::uint32_t, std::string> takeDevices() { return std::move(m_deviceOf); }

private:
    using Key = std::pair<std::uint32_t, std::int32_t>;

    void copyMainSignature();
    void copyNode(NodeId n);
    std::optional<TensorRef> hookedInput(TensorRef in);
    std::optional<TensorRef> rebuiltTuple(NodeId tuple);
    std::optional<TensorRef> movedInput(NodeId input);
    TensorRef toVDevice(TensorRef value, const std::string &name, const Type &type, std::int32_t k);
    void moveTensor(std::size_t b, TensorRef value, std::int32_t from);
    [[nodiscard]] std::string deviceName(std::int32_t k) const
    {
        return m_devices[static_cast<std::size_t>(k)];
    }
    /// `lv_0_cuda_1`: a binding name for `base` on partition k's device.
    [[nodiscard]] std::string placedName(std::string base, std::int32_t k) const
    {
        base += "_" + deviceName(k);
        std::replace(base.begin(), base.end(), ':', '_');
        return base;
    }

    const ExportModel *m_model;
    const PartitionPlan &m_plan;
    const BoundaryTable &m_boundary;
    const Graph &m_src;
    Graph &m_out;
    std::vector<std::string> m_devices;
    GraphCopier m_copier;
    FunctionId m_main;
    std::int32_t m_current = -1; ///< The partition of the node being copied.
    std::unordered_map<std::uint32_t, std::string> m_deviceOf; ///< Output node → vdevice.
    /// (boundary tensor, consuming partition) → the moved copy.
    std::map<std::pair<std::size_t, std::int32_t>, TensorRef> m_moved;
    /// (tuple node, consuming partition) → the tuple rebuilt from its moved fields.
    std::map<Key, TensorRef> m_rebuilt;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> m_fieldBoundary;
    std::unordered_map<std::uint32_t, std::size_t> m_wholeBoundary; ///< Node → boundary.
    /// Node → move key (tensors.size() + index into BoundaryTable::replicated).
    std::unordered_map<std::uint32_t, std::size_t> m_replicated;
    /// Tensor input of the function → the partition whose vdevice it arrives on, and its copy.
    std::unordered_map<std::uint32_t, std::pair<std::int32_t, NodeId>> m_inputs;
    /// (tensor input, consuming partition) → its copy moved to that partition's vdevice.
    std::map<std::pair<std::uint32_t, std::int32_t>, TensorRef> m_movedInputs;
};

void PlacedModuleBuilder::copyMainSignature()
{
    for (std::size_t f = 0; f < m_src.functionCount(); ++f) {
        if (m_src.function(FunctionId(f)).kind == Function::Kind::Global
            && FunctionId(f) != m_plan.function())
            m_copier.global(FunctionId(f));
    }
    const Function &srcMain = m_src.function(m_plan.function());
    std::unordered_map<std::uint32_t, std::int32_t> home;
    const auto &inputs = m_plan.view().inputs();
    for (const auto &[name, k] : relaxInputDevices(*m_model)) {
        for (NodeId in : inputs) {
            if (m_src.node(in).name == name)
                home[in.value] = k;
        }
    }
    m_main = m_out.addFunction(emptyGlobalLike(srcMain));
    for (NodeId p : srcMain.params) {
        const NodeId copy = m_copier.copyNode(p, m_main);
        m_out.function(m_main).params.push_back(copy);
        if (auto h = home.find(p.value); h != home.end()) {
            m_inputs[p.value] = { h->second, copy };
            m_deviceOf[copy.value] = deviceName(h->second);
        }
    }
}

// A tensor input arrives on its first consumer's vdevice; every later partition that reads it
// reads a copy moved once to its own vdevice.
std::optional<TensorRef> PlacedModuleBuilder::movedInput(NodeId input)
{
    auto it = m_inputs.find(input.value);
    if (it == m_inputs.end() || m_current < 0 || it->second.first == m_current)
        return std::nullopt;
    if (auto m = m_movedInputs.find({ input.value, m_current }); m != m_movedInputs.end())
        return m->second;
    const TensorRef moved = toVDevice(TensorRef { it->second.second, 0 }, m_src.node(input).name,
                                      m_src.node(input).outputType(), m_current);
    m_movedInputs[{ input.value, m_current }] = moved;
    return moved;
}

// A tuple read whole by another partition: R.to_vdevice takes tensors only, so its fields were
// moved one by one; the consumer reads a tuple of the moved fields, on its own device.
std::optional<TensorRef> PlacedModuleBuilder::rebuiltTuple(NodeId tuple)
{
    if (auto r = m_rebuilt.find({ tuple.value, m_current }); r != m_rebuilt.end())
        return r->second;
    const Type &type = m_src.node(tuple).outputType();
    if (!type.isTuple() || type.fields.empty())
        return std::nullopt;
    Node n;
    n.kind = NodeKind::Tuple;
    n.function = m_main;
    for (std::uint32_t i = 0; i < type.fields.size(); ++i) {
        auto fb = m_fieldBoundary.find({ tuple.value, i });
        if (fb == m_fieldBoundary.end())
            return std::nullopt;
        auto m = m_moved.find({ fb->second, m_current });
        if (m == m_moved.end())
            return std::nullopt;
        n.inputs.push_back(m->second);
    }
    n.name = placedName(m_src.node(tuple).name, m_current);
    n.setOutputTypes({ type });
    n.typeAnnotated = true;
    const NodeId id = m_out.addNode(std::move(n));
    m_deviceOf[id.value] = deviceName(m_current);
    m_rebuilt[{ tuple.value, m_current }] = TensorRef { id, 0 };
    return TensorRef { id, 0 };
}

std::optional<TensorRef> PlacedModuleBuilder::hookedInput(TensorRef in)
{
    if (m_inputs.contains(in.node.value))
        return movedInput(in.node);
    if (auto r = m_replicated.find(in.node.value); r != m_replicated.end()) {
        if (auto m = m_moved.find({ r->second, m_current }); m != m_moved.end())
            return m->second;
    }
    auto it = m_wholeBoundary.find(in.node.value);
    if (it == m_wholeBoundary.end()) {
        const std::int32_t from = m_plan.indexOf(m_plan.partitionOf(in.node));
        if (m_current < 0 || from < 0 || from == m_current)
            return std::nullopt;
        return rebuiltTuple(in.node);
    }
    auto m = m_moved.find({ it->second, m_current });
    return m == m_moved.end() ? std::nullopt : std::optional<TensorRef>(m->second);
}

// `name_<device> = R.to_vdevice(value, "<device>")`: value moved to partition k's vdevice.
TensorRef PlacedModuleBuilder::toVDevice(TensorRef value, const std::string &name, const Type &type,
                                         std::int32_t k)
{
    Node n;
    n.kind = NodeKind::OpCall;
    n.op = "relax.to_vdevice";
    n.function = m_main;
    n.inputs = { value };
    n.name = placedName(name, k);
    n.attrs.set("dst_vdevice", AttrValue::string(deviceName(k)));
    n.setOutputTypes({ type });
    n.typeAnnotated = true;
    const NodeId id = m_out.addNode(std::move(n));
    m_deviceOf[id.value] = deviceName(k);
    return TensorRef { id, 0 };
}

void PlacedModuleBuilder::moveTensor(std::size_t b, TensorRef value, std::int32_t from)
{
    if (b >= m_boundary.tensors.size()) {
        const ReplicatedValue &r = m_boundary.replicated[b - m_boundary.tensors.size()];
        for (PartitionId reader : r.readers) {
            const std::int32_t q = m_plan.indexOf(reader);
            if (q < 0 || q == from || m_moved.contains({ b, q }))
                continue;
            m_moved[{ b, q }]
                = toVDevice(value, m_src.node(r.tensor.node).name, m_src.tensorType(r.tensor), q);
        }
        return;
    }
    const BoundaryTensor &t = m_boundary.tensors[b];
    for (const BoundaryConsumer &c : t.consumers) {
        const std::int32_t q = m_plan.indexOf(c.partition);
        if (q < 0 || q == from || m_moved.contains({ b, q }))
            continue;
        m_moved[{ b, q }] = toVDevice(
            value, m_src.node(t.tensor.node).name + (t.field ? "_" + std::to_string(*t.field) : ""),
            t.type, q);
    }
}

void PlacedModuleBuilder::copyNode(NodeId n)
{
    const std::int32_t k = m_plan.indexOf(m_plan.partitionOf(n));
    const Node &node = m_src.node(n);
    m_current = k;
    // A projection of a moved tuple field reads the moved copy.
    if (node.kind == NodeKind::TupleGetItem && !node.inputs.empty()) {
        auto fb = m_fieldBoundary.find({ node.inputs[0].node.value, node.index });
        if (fb != m_fieldBoundary.end()) {
            if (auto m = m_moved.find({ fb->second, k }); m != m_moved.end()) {
                m_copier.map(n, m->second);
                return;
            }
        }
    }
    const NodeId copy = m_copier.copyNode(n, m_main);
    if (k >= 0)
        m_deviceOf[copy.value] = deviceName(k);
    if (auto it = m_wholeBoundary.find(n.value); it != m_wholeBoundary.end())
        moveTensor(it->second, TensorRef { copy, 0 }, k);
    if (auto it = m_replicated.find(n.value); it != m_replicated.end())
        moveTensor(it->second, TensorRef { copy, 0 }, k);
    for (const auto &[key, b] : m_fieldBoundary) {
        if (key.first != n.value)
            continue;
        Node item;
        item.kind = NodeKind::TupleGetItem;
        item.function = m_main;
        item.index = key.second;
        item.inputs = { TensorRef { copy, 0 } };
        item.setOutputTypes({ m_boundary.tensors[b].type });
        moveTensor(b, TensorRef { m_out.addNode(std::move(item)), 0 }, k);
    }
}

void PlacedModuleBuilder::build()
{
    copyMainSignature();
    m_copier.inputHook = [this](NodeId, TensorRef in) { return hookedInput(in); };
    for (NodeId n : m_plan.view().order()) {
        if (m_src.node(n).kind != NodeKind::Input)
            copyNode(n);
    }
    const Function &srcMain = m_src.function(m_plan.function());
    if (srcMain.result.isValid())
        m_out.function(m_main).result = m_copier.resolve(TensorRef { srcMain.result, 0 }).node;
    m_out.finalize();
}

} // namespace

std::string relaxPlacedModule(const ExportModel &model)
{
    Graph out;
    PlacedModuleBuilder builder(model, out);
    builder.build();
    RelaxPrinter printer(out);
    printer.setNodeDevice(builder.takeDevices());
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
