// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/PartitionModule.h"

#include "core/export/ConstantLifter.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace cleave {

namespace {

/// Copies nodes of a source graph into a module graph, remapping references.
class ModuleBuilder
{
public:
    ModuleBuilder(const PartitionPlan &plan, const BoundaryTable &boundary, std::size_t k,
                  ConstantLifting lifting, PartitionModule &out)
        : m_plan(plan)
        , m_src(plan.graph())
        , m_partition(plan.partitions().at(k))
        , m_iface(boundary.interfaces.at(k))
        , m_boundary(boundary)
        , m_out(out)
        , m_lifter(plan.graph(), plan.function(), lifting, out)
    {
    }

    /// Builds the module; `passThrough` as for extractPartition.
    void build(const std::vector<std::string> &passThrough)
    {
        addMain();
        addInterfaceParams();
        addPassThroughParams(passThrough);
        copyPartitionNodes();
        setResult(passThrough);
        m_lifter.finish();
        m_out.graph.finalize();
    }

private:
    NodeId addParam(const std::string &name, const Type &type)
    {
        const NodeId id = m_out.graph.addParam(m_main, "%" + name, type);
        m_out.parameters.push_back(name);
        m_out.parameterTypes.push_back(type);
        m_paramNames.insert(name);
        return id;
    }

    /// The module tensor standing for a source tensor.
    TensorRef resolve(TensorRef t)
    {
        if (auto it = m_override.find(t); it != m_override.end())
            return it->second;
        if (auto it = m_nodeMap.find(t.node.value); it != m_nodeMap.end())
            return TensorRef { it->second, t.output };
        const Node &p = m_src.node(t.node);
        if (m_fieldParams.contains({ t.node.value, 0 })
            || m_fieldParams.contains({ t.node.value, 1 }))
            return TensorRef { tupleOfFields(t.node), 0 };
        if (p.kind == NodeKind::Constant || p.kind == NodeKind::FunctionValue
            || p.kind == NodeKind::ConstructorCall) {
            return TensorRef { copyNode(t.node, m_main), t.output };
        }
        // A value of an enclosing scope the partition does not own (should not happen for
        // plans that pass validation): copy it so the module stays self-contained.
        return TensorRef { copyNode(t.node, m_main), t.output };
    }

    NodeId tupleOfFields(NodeId tuple)
    {
        if (auto it = m_tupleOfFields.find(tuple.value); it != m_tupleOfFields.end())
            return it->second;
        Node n;
        n.kind = NodeKind::Tuple;
        n.function = m_main;
        std::vector<Type> fields;
        for (std::uint32_t f = 0;; ++f) {
            auto it = m_fieldParams.find({ tuple.value, f });
            if (it == m_fieldParams.end())
                break;
            n.inputs.push_back(TensorRef { it->second, 0 });
            fields.push_back(m_out.graph.node(it->second).outputType());
        }
        n.setOutputTypes({ Type::tuple(fields) });
        const NodeId id = m_out.graph.addNode(std::move(n));
        m_tupleOfFields.emplace(tuple.value, id);
        return id;
    }

    FunctionId copyFunction(FunctionId f, FunctionId parent)
    {
        if (auto it = m_functionMap.find(f.value); it != m_functionMap.end())
            return it->second;
        const Function &src = m_src.function(f);
        Function nf = src;
        nf.parent = src.kind == Function::Kind::Global ? FunctionId {} : parent;
        nf.params.clear();
        nf.nodes.clear();
        nf.result = {};
        const FunctionId id = m_out.graph.addFunction(std::move(nf));
        m_functionMap.emplace(f.value, id);
        for (NodeId n : src.nodes) {
            if (!m_nodeMap.contains(n.value))
                copyNode(n, id);
        }
        // Parameters for lifted constants were appended while the body was copied; the
        // function's own parameters come first.
        std::vector<NodeId> params;
        for (NodeId p : src.params)
            params.push_back(m_nodeMap.at(p.value));
        Function &dst = m_out.graph.function(id);
        dst.params.insert(dst.params.begin(), params.begin(), params.end());
        if (src.result.isValid())
            m_out.graph.function(id).result = resolve(TensorRef { src.result, 0 }).node;
        return id;
    }

    /// A tensor constant copied into `into`: lifted (the value standing for it) or kept as a
    /// re-indexed `meta[relay.Constant][i]` of the module.
    NodeId copyConstant(NodeId id, FunctionId into)
    {
        const Node &src = m_src.node(id);
        std::string reason;
        const NodeId lifted = m_lifter.lift(id, into, reason);
        if (lifted.isValid()) {
            m_nodeMap.emplace(id.value, lifted);
            return lifted;
        }
        Node n = src;
        n.function = into;
        n.setScopes({});
        ModuleConstant c { id, src.metaRef(), {}, {}, src.outputType(), {}, std::move(reason) };
        c.moduleRef = "meta[relay.Constant][" + std::to_string(m_metaCounter++) + "]";
        n.setMetaRef(c.moduleRef);
        m_out.constants.push_back(std::move(c));
        const NodeId nid = m_out.graph.addNode(std::move(n));
        m_nodeMap.emplace(id.value, nid);
        return nid;
    }

    NodeId copyNode(NodeId id, FunctionId into)
    {
        const Node &src = m_src.node(id);
        if (src.kind == NodeKind::Constant && !src.metaRef().empty())
            return copyConstant(id, into);
        Node n = src;
        n.function = into;
        for (TensorRef &in : n.inputs) {
            if (in.isValid())
                in = resolve(in);
        }
        if (src.callee.isValid()) {
            const Function &callee = m_src.function(src.callee);
            n.callee = copyFunction(src.callee,
                                    callee.kind == Function::Kind::Global ? FunctionId {} : into);
        }
        n.setScopes({});
        const bool call = n.kind == NodeKind::FunctionCall;
        if (call)
            m_lifter.appendArguments(n);
        // Scopes (if branches, match clauses) belong to this node; copy them after it exists.
        const NodeId nid = m_out.graph.addNode(std::move(n));
        m_nodeMap.emplace(id.value, nid);
        if (call)
            m_lifter.addCallSite(nid);
        std::vector<FunctionId> scopes;
        for (FunctionId s : src.scopes())
            scopes.push_back(copyFunction(s, into));
        m_out.graph.node(nid).setScopes(std::move(scopes));
        return nid;
    }

    void addMain()
    {
        Graph &g = m_out.graph;
        g.setFormat("relay");
        g.setVersionHeader("0.0.5");
        for (const TypeDefinition &def : m_src.typeDefinitions())
            g.addTypeDefinition(def);
        const Function &srcMain = m_src.function(m_plan.function());
        Function main;
        main.kind = Function::Kind::Global;
        main.name = "main";
        main.where = srcMain.where;
        main.typeParams = srcMain.typeParams;
        m_main = g.addFunction(std::move(main));
        m_functionMap.emplace(m_plan.function().value, m_main);
        m_lifter.setModuleMain(m_main);
    }

    // Parameters: the interface inputs.
    void addInterfaceParams()
    {
        for (const PartitionInput &in : m_iface.inputs) {
            if (in.boundary < 0) {
                const NodeId p = addParam(in.name, m_src.node(in.globalInput).outputType());
                m_override[TensorRef { in.globalInput, 0 }] = TensorRef { p, 0 };
                continue;
            }
            const BoundaryTensor &t = m_boundary.tensors[static_cast<std::size_t>(in.boundary)];
            const NodeId p = addParam(in.name, t.type);
            if (t.field)
                m_fieldParams[{ t.tensor.node.value, *t.field }] = p;
            else
                m_override[t.tensor] = TensorRef { p, 0 };
        }
    }

    // A global input this module forwards although none of its nodes reads it (the model
    // returns the input directly): it becomes a parameter too.
    void addPassThroughParams(const std::vector<std::string> &passThrough)
    {
        for (const std::string &name : passThrough) {
            if (m_paramNames.contains(name))
                continue;
            for (NodeId in : m_plan.view().inputs()) {
                if (globalInputName(m_src, in) == name) {
                    const NodeId p = addParam(name, m_src.node(in).outputType());
                    m_override[TensorRef { in, 0 }] = TensorRef { p, 0 };
                }
            }
        }
    }

    void copyPartitionNodes()
    {
        const FunctionView &view = m_plan.view();
        const NodeId srcResult = m_src.function(m_plan.function()).result;
        // The replicas (weight-only values this module computes again) come in program order
        // with the partition's own nodes.
        const std::unordered_set<std::uint32_t> replicas = [&] {
            std::unordered_set<std::uint32_t> set;
            for (NodeId r : m_iface.replicas)
                set.insert(r.value);
            return set;
        }();
        for (NodeId n : view.order()) {
            if (!view.isAssignable(n)
                || (m_plan.partitionOf(n) != m_partition.id && !replicas.contains(n.value)))
                continue;
            const Node &node = m_src.node(n);
            // A projection of a crossing tuple field is the field's parameter itself.
            if (node.kind == NodeKind::TupleGetItem && !node.inputs.empty()) {
                auto it = m_fieldParams.find({ node.inputs[0].node.value, node.index });
                if (it != m_fieldParams.end() && !m_nodeMap.contains(node.inputs[0].node.value)) {
                    m_nodeMap.emplace(n.value, it->second);
                    continue;
                }
            }
            // The source's result tuple is rebuilt from the outputs; skip it when nothing reads
            // it.
            if (n == srcResult && node.kind == NodeKind::Tuple && m_src.uses(n).empty())
                continue;
            copyNode(n, m_main);
        }
    }

    /// The module tensor of one interface output (a field of a tuple reads it with a
    /// TupleGetItem).
    TensorRef outputTensor(const PartitionOutput &o)
    {
        Graph &g = m_out.graph;
        TensorRef t = resolve(o.tensor);
        if (!o.field)
            return t;
        Node item;
        item.kind = NodeKind::TupleGetItem;
        item.function = m_main;
        item.index = *o.field;
        item.inputs = { t };
        item.setOutputTypes({ g.node(t.node).outputType(t.output).field(*o.field) });
        return TensorRef { g.addNode(std::move(item)), 0 };
    }

    // Outputs in output_idx order, then the pass-throughs; several become a tuple.
    void setResult(const std::vector<std::string> &passThrough)
    {
        Graph &g = m_out.graph;
        std::vector<TensorRef> results;
        auto addResult = [&](TensorRef t, const Type &type) {
            results.push_back(t);
            m_out.outputTypes.push_back(type);
        };
        for (const PartitionOutput &o : m_iface.outputs) {
            const TensorRef t = outputTensor(o);
            addResult(t, g.node(t.node).outputType(t.output));
        }
        for (const std::string &name : passThrough) {
            const auto param = std::find(m_out.parameters.begin(), m_out.parameters.end(), name);
            if (param != m_out.parameters.end()) {
                const auto i = static_cast<std::size_t>(param - m_out.parameters.begin());
                addResult(TensorRef { g.function(m_main).params[i], 0 }, m_out.parameterTypes[i]);
                continue;
            }
            // Otherwise the name is the key of a constant the model returns directly.
            const NodeId c = m_src.findByKey(name);
            if (c.isValid() && m_src.node(c).kind == NodeKind::Constant) {
                const TensorRef t = resolve(TensorRef { c, 0 });
                addResult(t, g.node(t.node).outputType(t.output));
            }
        }
        if (results.size() == 1) {
            g.function(m_main).result = results.front().node;
        } else if (!results.empty()) {
            Node tuple;
            tuple.kind = NodeKind::Tuple;
            tuple.function = m_main;
            tuple.inputs = results;
            tuple.setOutputTypes({ Type::tuple(m_out.outputTypes) });
            const NodeId id = g.addNode(std::move(tuple));
            g.function(m_main).result = id;
        }
        Function &mf = g.function(m_main);
        if (mf.result.isValid() && !g.node(mf.result).outputType().isUnknown()) {
            mf.returnType = g.node(mf.result).outputType();
            mf.hasReturnType = true;
        }
    }

    const PartitionPlan &m_plan;
    const Graph &m_src;
    const Partition &m_partition;
    const PartitionInterface &m_iface;
    const BoundaryTable &m_boundary;
    PartitionModule &m_out;
    ConstantLifter m_lifter;
    FunctionId m_main;
    std::unordered_map<TensorRef, TensorRef> m_override; // crossing tensors → parameters
    std::map<std::pair<std::uint32_t, std::uint32_t>, NodeId> m_fieldParams; // (node, field)
    std::unordered_map<std::uint32_t, NodeId> m_nodeMap;
    std::unordered_map<std::uint32_t, FunctionId> m_functionMap;
    std::unordered_map<std::uint32_t, NodeId> m_tupleOfFields; // crossing tuple → rebuilt tuple
    std::unordered_set<std::string> m_paramNames;
    int m_metaCounter = 0;
};

} // namespace

PartitionModule extractPartition(const PartitionPlan &plan, const BoundaryTable &boundary,
                                 std::size_t k, ConstantLifting lifting,
                                 const std::vector<std::string> &passThrough)
{
    PartitionModule module;
    ModuleBuilder(plan, boundary, k, lifting, module).build(passThrough);
    return module;
}

} // namespace cleave
