// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relax/GraphCopier.h"
#include "core/export/relax/RelaxArtefacts.h"
#include "core/export/relax/RelaxPrinter.h"

#include <map>
#include <set>

namespace cleave {

namespace {

std::string identifier(std::string s)
{
    for (char &c : s) {
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
              || c == '_'))
            c = '_';
    }
    return s;
}

/// Builds byoc.relax.py's graph: one Codegen function per BYOC partition.
class ByocBuilder
{
public:
    ByocBuilder(const ExportModel &model, Graph &out)
        : m_model(model)
        , m_plan(*model.plan)
        , m_boundary(*model.boundary)
        , m_src(m_plan.graph())
        , m_out(out)
        , m_main(m_src, out)
    {
    }

    void build();

private:
    /// The main-side value of a source tensor (a field when `field` is set).
    TensorRef mainValue(TensorRef t, std::optional<std::uint32_t> field);
    void addRegion(std::size_t k);
    NodeId wrapOp(GraphCopier &copier, NodeId n, FunctionId region, const std::string &target);
    std::string regionName(std::size_t k, const std::string &target);

    const ExportModel &m_model;
    const PartitionPlan &m_plan;
    const BoundaryTable &m_boundary;
    const Graph &m_src;
    Graph &m_out;
    std::optional<TensorRef> rebuiltTuple(TensorRef in);

    GraphCopier m_main;
    FunctionId m_mainId;
    std::map<std::pair<std::uint32_t, std::uint32_t>, TensorRef> m_fields; // (node, field)
    std::set<std::string> m_names;
};

TensorRef ByocBuilder::mainValue(TensorRef t, std::optional<std::uint32_t> field)
{
    if (field) {
        auto it = m_fields.find({ t.node.value, *field });
        if (it != m_fields.end())
            return it->second;
        Node item;
        item.kind = NodeKind::TupleGetItem;
        item.function = m_mainId;
        item.index = *field;
        item.inputs = { m_main.resolve(t) };
        item.setOutputTypes({ m_src.tensorType(t).field(*field) });
        return TensorRef { m_out.addNode(std::move(item)), 0 };
    }
    return m_main.resolve(t);
}

// A tuple a region built and that main reads whole: the region returned its fields one by one,
// so main reads a tuple of them.
std::optional<TensorRef> ByocBuilder::rebuiltTuple(TensorRef in)
{
    if (!in.node.isValid() || m_main.isMapped(in.node))
        return std::nullopt;
    const Type &type = m_src.node(in.node).outputType(in.output);
    if (!type.isTuple() || type.fields.empty() || !m_fields.contains({ in.node.value, 0 }))
        return std::nullopt;
    Node tuple;
    tuple.kind = NodeKind::Tuple;
    tuple.function = m_mainId;
    for (std::uint32_t i = 0; i < type.fields.size(); ++i) {
        auto it = m_fields.find({ in.node.value, i });
        if (it == m_fields.end())
            return std::nullopt;
        tuple.inputs.push_back(it->second);
    }
    tuple.setOutputTypes({ type });
    const TensorRef value { m_out.addNode(std::move(tuple)), 0 };
    m_main.map(in.node, value);
    return value;
}

std::string ByocBuilder::regionName(std::size_t k, const std::string &target)
{
    std::string name = "fused";
    for (NodeId n : m_plan.nodesOf(m_plan.partitions()[k].id)) {
        const Node &node = m_src.node(n);
        std::string part;
        if (node.kind == NodeKind::FunctionCall && node.callee.isValid())
            part = m_src.function(node.callee).name;
        else if (node.kind == NodeKind::OpCall)
            part = node.op;
        if (part.rfind("fused_", 0) == 0)
            part.erase(0, 6);
        if (!part.empty() && name.size() < 80)
            name += "_" + identifier(part);
    }
    name += "_" + identifier(target);
    std::string unique = name;
    for (int i = 1; m_names.contains(unique) || m_src.findFunction(unique).isValid(); ++i)
        unique = name + std::to_string(i);
    m_names.insert(unique);
    return unique;
}

NodeId ByocBuilder::wrapOp(GraphCopier &copier, NodeId n, FunctionId region,
                           const std::string &target)
{
    const Node &node = m_src.node(n);
    // A call of a Composite module function: that function becomes the region's closure.
    if (node.kind == NodeKind::FunctionCall && node.callee.isValid()
        && !m_src.function(node.callee).composite().empty()) {
        GraphCopier closureCopier(m_src, m_out);
        const FunctionId closure = closureCopier.copyFunction(node.callee, region);
        Function &f = m_out.function(closure);
        f.kind = Function::Kind::Literal;
        Attributes attrs;
        for (const auto &[key, value] : f.attrs.items()) {
            if (key != "Primitive" && key != "@private")
                attrs.set(key, value);
        }
        f.attrs = attrs;
        Node call = node;
        call.function = region;
        call.callee = closure;
        for (TensorRef &in : call.inputs)
            in = copier.resolve(in);
        return m_out.addNode(std::move(call));
    }
    if (node.kind != NodeKind::OpCall)
        return copier.copyNode(n, region);
    // A plain operator: a Composite closure around it.
    Function f;
    f.kind = Function::Kind::Literal;
    f.parent = region;
    f.name = "composite_" + identifier(node.name);
    const std::string &opName = node.op;
    const std::string shortOp = opName.substr(opName.rfind('.') + 1);
    f.attrs.set("Composite", AttrValue::string(target + "." + shortOp));
    f.returnType = node.outputType();
    f.hasReturnType = !node.outputType().isUnknown();
    const FunctionId closure = m_out.addFunction(std::move(f));
    Node op = node;
    op.function = closure;
    Node call;
    call.kind = NodeKind::FunctionCall;
    call.function = region;
    call.name = node.name;
    call.callee = closure;
    call.setOutputTypes(node.outputTypes());
    call.typeAnnotated = true;
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
        const Node &in = m_src.node(node.inputs[i].node);
        if (in.kind == NodeKind::Constant) {
            Node c = in;
            c.function = closure;
            op.inputs[i] = TensorRef { m_out.addNode(std::move(c)), 0 };
            continue;
        }
        const NodeId pid
            = m_out.addParam(closure, "x" + std::to_string(m_out.function(closure).params.size()),
                             m_src.tensorType(node.inputs[i]));
        op.inputs[i] = TensorRef { pid, 0 };
        call.inputs.push_back(copier.resolve(node.inputs[i]));
    }
    op.name = "gv";
    const NodeId body = m_out.addNode(std::move(op));
    m_out.function(closure).result = body;
    return m_out.addNode(std::move(call));
}

void ByocBuilder::addRegion(std::size_t k)
{
    const PartitionInterface &iface = m_boundary.interfaces[k];
    const std::string &target = m_model.targets[k];
    Function region;
    region.kind = Function::Kind::Global;
    region.name = regionName(k, target);
    region.attrs.set("Codegen", AttrValue::string(target));
    const FunctionId rid = m_out.addFunction(std::move(region));
    GraphCopier copier(m_src, m_out);
    std::map<std::pair<std::uint32_t, std::uint32_t>, TensorRef> fields;
    std::vector<TensorRef> callInputs;
    for (const PartitionInput &in : iface.inputs) {
        Node p;
        p.kind = NodeKind::Input;
        p.function = rid;
        p.name = in.name;
        p.typeAnnotated = true;
        TensorRef source;
        std::optional<std::uint32_t> field;
        if (in.boundary < 0) {
            source = TensorRef { in.globalInput, 0 };
        } else {
            const BoundaryTensor &b = m_boundary.tensors[static_cast<std::size_t>(in.boundary)];
            source = b.tensor;
            field = b.field;
        }
        p.setOutputTypes(
            { field ? m_src.tensorType(source).field(*field) : m_src.tensorType(source) });
        const NodeId pid = m_out.addNode(std::move(p));
        m_out.function(rid).params.push_back(pid);
        if (field)
            fields[{ source.node.value, *field }] = TensorRef { pid, 0 };
        else
            copier.map(source.node, TensorRef { pid, 0 });
        callInputs.push_back(mainValue(source, field));
    }
    // The region's own nodes and the weight-only values it computes again (moduleNodes).
    for (NodeId n : moduleNodes(m_plan, m_boundary, k)) {
        const Node &node = m_src.node(n);
        if (node.kind == NodeKind::TupleGetItem && !node.inputs.empty()) {
            auto it = fields.find({ node.inputs[0].node.value, node.index });
            if (it != fields.end()) {
                copier.map(n, it->second);
                continue;
            }
        }
        copier.map(n, TensorRef { wrapOp(copier, n, rid, target), 0 });
    }
    std::vector<TensorRef> results;
    std::vector<Type> types;
    for (const PartitionOutput &o : iface.outputs) {
        TensorRef t = copier.resolve(o.tensor);
        if (o.field) {
            Node item;
            item.kind = NodeKind::TupleGetItem;
            item.function = rid;
            item.index = *o.field;
            item.inputs = { t };
            item.setOutputTypes({ m_src.tensorType(o.tensor).field(*o.field) });
            t = TensorRef { m_out.addNode(std::move(item)), 0 };
        }
        results.push_back(t);
        types.push_back(m_out.tensorType(t));
    }
    Function &rf = m_out.function(rid);
    if (results.size() == 1) {
        rf.result = results[0].node;
        rf.returnType = types[0];
    } else {
        Node tuple;
        tuple.kind = NodeKind::Tuple;
        tuple.function = rid;
        tuple.inputs = results;
        tuple.setOutputTypes({ Type::tuple(types) });
        const NodeId tid = m_out.addNode(std::move(tuple));
        m_out.function(rid).result = tid;
        m_out.function(rid).returnType = Type::tuple(types);
    }
    m_out.function(rid).hasReturnType = true;
    // main: call the region, then read its outputs.
    Node call;
    call.kind = NodeKind::FunctionCall;
    call.function = m_mainId;
    call.callee = rid;
    call.name = "lv_" + m_out.function(rid).name;
    call.inputs = callInputs;
    call.setOutputTypes({ m_out.function(rid).returnType });
    call.typeAnnotated = true;
    const NodeId cid = m_out.addNode(std::move(call));
    for (std::size_t i = 0; i < iface.outputs.size(); ++i) {
        const PartitionOutput &o = iface.outputs[i];
        TensorRef value { cid, 0 };
        if (iface.outputs.size() > 1) {
            Node item;
            item.kind = NodeKind::TupleGetItem;
            item.function = m_mainId;
            item.index = static_cast<std::uint32_t>(i);
            item.inputs = { value };
            item.name = identifier(m_src.node(o.tensor.node).name)
                + (o.field ? "_" + std::to_string(*o.field) : "");
            item.setOutputTypes({ types[i] });
            item.typeAnnotated = true;
            value = TensorRef { m_out.addNode(std::move(item)), 0 };
        }
        if (o.field)
            m_fields[{ o.tensor.node.value, *o.field }] = value;
        else
            m_main.map(o.tensor.node, value);
    }
}

void ByocBuilder::build()
{
    for (const auto &[key, value] : m_src.moduleAttrs().items()) {
        if (key != "decorator") // exports use @I.ir_module
            m_out.moduleAttrs().set(key, value);
    }
    m_out.setMetadata(m_src.metadata());
    const Function &srcMain = m_src.function(m_plan.function());
    m_mainId = m_out.addFunction(emptyGlobalLike(srcMain));
    m_main.inputHook = [this](NodeId, TensorRef in) { return rebuiltTuple(in); };
    for (NodeId p : srcMain.params)
        m_out.function(m_mainId).params.push_back(m_main.copyNode(p, m_mainId));
    for (std::size_t k = 0; k < m_plan.partitionCount(); ++k) {
        if (isByocTarget(m_model.targets[k])) {
            addRegion(k);
            continue;
        }
        for (NodeId n : m_plan.nodesOf(m_plan.partitions()[k].id)) {
            const Node &node = m_src.node(n);
            if (node.kind == NodeKind::TupleGetItem && !node.inputs.empty()) {
                auto it = m_fields.find({ node.inputs[0].node.value, node.index });
                if (it != m_fields.end()) {
                    m_main.map(n, it->second);
                    continue;
                }
            }
            m_main.copyNode(n, m_mainId);
        }
    }
    // The other module functions and PrimFuncs the kept bindings use.
    for (std::size_t f = 0; f < m_src.functionCount(); ++f) {
        const Function &fn = m_src.function(FunctionId(f));
        if (fn.kind == Function::Kind::Global && !fn.sourceText.empty())
            m_main.global(FunctionId(f));
    }
    if (srcMain.result.isValid())
        m_out.function(m_mainId).result = m_main.resolve(TensorRef { srcMain.result, 0 }).node;
    m_out.finalize();
}

} // namespace

bool relaxByocModule(const ExportModel &model, std::string &text, std::string &error)
{
    bool any = false;
    for (const std::string &t : model.targets)
        any = any || isByocTarget(t);
    if (!any) {
        error = "no partition has a BYOC target";
        return false;
    }
    Graph out;
    out.setFormat("relax");
    ByocBuilder(model, out).build();
    text = printRelax(out);
    return true;
}

} // namespace cleave
