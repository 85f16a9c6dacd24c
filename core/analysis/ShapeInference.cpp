// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/ShapeInference.h"

#include "core/analysis/OpShapeRules.h"
#include "core/graph/Graph.h"

namespace cleave {

namespace {

/// One inference run over a graph. Nodes and functions move Pending → Active → Done; a node that
/// is asked for while Active (a cycle, or a recursive function) simply reads as Unknown.
class TypeInference
{
public:
    explicit TypeInference(Graph &graph)
        : m_graph(graph)
        , m_nodeState(graph.nodeCount(), State::Pending)
        , m_functionState(graph.functionCount(), State::Pending)
    {
    }

    InferenceReport run(bool listUnknown);

private:
    enum class State : std::uint8_t { Pending, Active, Done };

    void inferFunction(FunctionId f);
    void inferNode(NodeId id);
    /// The type of a tensor, inferring its producer first when that has not happened yet (a
    /// scope may read a value of its enclosing function that sorts after the `if`).
    const Type &typeOf(TensorRef tensor);
    Type nodeType(NodeId id);
    Type opCallType(const Node &node, bool wanted);
    void typeConstantOperands(const Node &node, const std::vector<Type> &implied);
    Type callType(FunctionId callee, std::span<const TensorRef> args);
    Type closureCallType(const Node &node);
    Type branchType(const Node &node);
    Type constructorType(const Node &node) const;
    void typeFunctionValues();
    /// Stores `type` as the node's output type when the node has none yet; true if it did.
    bool assign(NodeId id, Type type);
    [[nodiscard]] bool needsType(const Node &node) const
    {
        return !node.typeAnnotated && node.outputType(0).isUnknown();
    }

    Graph &m_graph;
    std::vector<State> m_nodeState;
    std::vector<State> m_functionState;
    std::size_t m_inferred = 0;
};

InferenceReport TypeInference::run(bool listUnknown)
{
    // Globals first so that function literals are reached through their call sites (which bind
    // their parameters) before the sweep over everything else.
    for (std::size_t f = 0; f < m_graph.functionCount(); ++f) {
        if (m_graph.function(FunctionId(f)).kind == Function::Kind::Global)
            inferFunction(FunctionId(f));
    }
    for (std::size_t f = 0; f < m_graph.functionCount(); ++f)
        inferFunction(FunctionId(f));
    // Nodes on a cycle are absent from every topological order.
    for (std::size_t n = 0; n < m_graph.nodeCount(); ++n)
        inferNode(NodeId(n));
    typeFunctionValues();

    InferenceReport report;
    report.inferred = m_inferred;
    for (std::size_t n = 0; listUnknown && n < m_graph.nodeCount(); ++n) {
        if (m_graph.node(NodeId(n)).outputType(0).isUnknown())
            report.unresolved.emplace_back(n);
    }
    report.unknown = report.unresolved.size();
    return report;
}

void TypeInference::inferFunction(FunctionId f)
{
    if (!f.isValid() || f.index() >= m_functionState.size()
        || m_functionState[f.index()] != State::Pending)
        return;
    m_functionState[f.index()] = State::Active;
    // Before Graph::finalize() (importers infer first) there is no consumer index, and nodes on
    // a cycle are never ordered: then creation order serves, producers being inferred on demand.
    // (Without the index topologicalOrder() could only return creation order, or a part of it:
    // it is not worth asking.)
    std::vector<NodeId> order;
    if (m_graph.hasConsumerIndex())
        order = m_graph.topologicalOrder(f);
    if (order.size() != m_graph.function(f).nodes.size())
        order = m_graph.function(f).nodes;
    for (NodeId id : order)
        inferNode(id);
    // The body's value must have the declared return type (Relay unifies the two), which
    // types e.g. a final `add(%dense, meta[relay.Constant][k])` whose bias has no type.
    const Function &fn = m_graph.function(f);
    if (fn.hasReturnType && !fn.returnType.isUnknown() && fn.result.isValid())
        assign(fn.result, fn.returnType);
    m_functionState[f.index()] = State::Done;
}

void TypeInference::inferNode(NodeId id)
{
    if (!id.isValid() || id.index() >= m_nodeState.size()
        || m_nodeState[id.index()] != State::Pending)
        return;
    m_nodeState[id.index()] = State::Active;
    // Calls and branches are visited even when their own type is annotated: that is what walks
    // the callee and the branch bodies.
    const Node &node = m_graph.node(id);
    const bool wanted = needsType(node);
    Type type;
    switch (node.kind) {
    case NodeKind::FunctionCall:
        type = callType(node.callee, node.inputs);
        break;
    case NodeKind::ClosureCall:
        type = closureCallType(node);
        break;
    case NodeKind::If:
    case NodeKind::Match:
        type = branchType(node);
        break;
    case NodeKind::OpCall:
        type = opCallType(node, wanted);
        break;
    default:
        if (wanted)
            type = nodeType(id);
        break;
    }
    if (wanted)
        assign(id, std::move(type));
    m_nodeState[id.index()] = State::Done;
}

const Type &TypeInference::typeOf(TensorRef tensor)
{
    static const Type unknownType;
    if (!tensor.node.isValid() || tensor.node.index() >= m_graph.nodeCount())
        return unknownType;
    inferNode(tensor.node);
    return m_graph.node(tensor.node).outputType(tensor.output);
}

Type TypeInference::nodeType(NodeId id)
{
    const Node &node = m_graph.node(id);
    switch (node.kind) {
    case NodeKind::Constant: {
        const AttrValue &v = node.value();
        if (v.kind == AttrValue::Kind::Bool)
            return Type::tensor({}, "bool");
        if (v.kind == AttrValue::Kind::Int)
            return Type::tensor({}, v.dtype.empty() ? InternedString("int32") : v.dtype);
        if (v.kind == AttrValue::Kind::Float)
            return Type::tensor({}, v.dtype.empty() ? InternedString("float32") : v.dtype);
        return Type::unknown(); // a tensor constant without metadata
    }
    case NodeKind::Tuple: {
        std::vector<Type> fields;
        for (const TensorRef &in : node.inputs) {
            const Type &t = typeOf(in);
            if (t.isUnknown())
                return Type::unknown();
            fields.push_back(t);
        }
        return Type::tuple(std::move(fields));
    }
    case NodeKind::TupleGetItem:
        return node.inputs.empty() ? Type::unknown() : typeOf(node.inputs[0]).field(node.index);
    case NodeKind::ConstructorCall:
        return constructorType(node);
    default:
        // Inputs get their types from call sites; function values are typed at the end.
        return Type::unknown();
    }
}

Type TypeInference::opCallType(const Node &node, bool wanted)
{
    // Fully typed models (the common case) skip the work: nothing to infer for the call itself
    // and no untyped tensor constant among its arguments.
    bool untypedConstant = false;
    for (const TensorRef &in : node.inputs) {
        const Node &producer = m_graph.node(in.node);
        untypedConstant
            = untypedConstant || (producer.kind == NodeKind::Constant && needsType(producer));
    }
    if (!wanted && !untypedConstant)
        return Type::unknown();

    std::vector<Type> inputs;
    std::vector<const AttrValue *> scalars;
    inputs.reserve(node.inputs.size());
    scalars.reserve(node.inputs.size());
    for (const TensorRef &in : node.inputs) {
        inputs.push_back(typeOf(in));
        const Node &producer = m_graph.node(in.node);
        const bool scalar = producer.kind == NodeKind::Constant && !producer.value().isNull();
        scalars.push_back(scalar ? &producer.value() : nullptr);
    }
    // Attributes kept in the metadata section (`meta[relay.attrs.X][i]`) are expected to have
    // been decoded into `attrs` by the importer; when they were not, the rules see none and
    // apply the operator's defaults.
    const OpShapeQuery query { node.op, inputs, node.attrs, scalars };
    if (untypedConstant)
        typeConstantOperands(node, impliedOperandTypes(query));
    return wanted ? inferOpCallType(query) : Type::unknown();
}

void TypeInference::typeConstantOperands(const Node &node, const std::vector<Type> &implied)
{
    // Only tensor constants: an untyped parameter is a graph input whose type is the user's to
    // state, and an inferred value already has its own type.
    for (std::size_t i = 0; i < implied.size() && i < node.inputs.size(); ++i) {
        const NodeId producer = node.inputs[i].node;
        if (!implied[i].isUnknown() && m_graph.node(producer).kind == NodeKind::Constant)
            assign(producer, implied[i]);
    }
}

Type TypeInference::callType(FunctionId callee, std::span<const TensorRef> args)
{
    if (!callee.isValid() || callee.index() >= m_graph.functionCount())
        return Type::unknown();
    if (m_functionState[callee.index()] == State::Pending) {
        const Function &fn = m_graph.function(callee);
        if (fn.kind == Function::Kind::Literal) {
            for (std::size_t i = 0; i < fn.params.size() && i < args.size(); ++i) {
                const NodeId param = fn.params[i];
                if (needsType(m_graph.node(param)))
                    assign(param, typeOf(args[i]));
            }
        }
        inferFunction(callee);
    }
    const Function &fn = m_graph.function(callee);
    if (fn.hasReturnType && !fn.returnType.isUnknown())
        return fn.returnType;
    return fn.result.isValid() ? typeOf(TensorRef { fn.result, 0 }) : Type::unknown();
}

Type TypeInference::closureCallType(const Node &node)
{
    if (node.inputs.empty())
        return Type::unknown();
    const Node &callee = m_graph.node(node.inputs[0].node);
    const std::span<const TensorRef> args(node.inputs.begin() + 1, node.inputs.end());
    if (callee.kind == NodeKind::FunctionValue)
        return callType(callee.callee, args);
    const Type &fnType = typeOf(node.inputs[0]);
    if (fnType.kind == Type::Kind::Function && !fnType.result.empty())
        return fnType.result.front();
    return Type::unknown();
}

Type TypeInference::branchType(const Node &node)
{
    for (const TensorRef &in : node.inputs)
        typeOf(in);
    Type result;
    for (FunctionId scope : node.scopes()) {
        inferFunction(scope);
        if (!scope.isValid() || scope.index() >= m_graph.functionCount())
            continue;
        const Function &body = m_graph.function(scope);
        const Type &t
            = body.result.isValid() ? typeOf(TensorRef { body.result, 0 }) : Type::unknown();
        if (result.isUnknown() && !t.isUnknown())
            result = t;
    }
    return result;
}

Type TypeInference::constructorType(const Node &node) const
{
    // Only ADTs without type parameters: `Cons(%x, %xs)` would need unification to give
    // `List[float32]`.
    for (const TypeDefinition &def : m_graph.typeDefinitions()) {
        for (const TypeDefinition::Constructor &c : def.constructors) {
            if (c.name != node.op)
                continue;
            if (!def.typeParams.empty())
                return Type::unknown();
            Type t;
            t.kind = Type::Kind::Named;
            t.name = def.name;
            return t;
        }
    }
    return Type::unknown();
}

void TypeInference::typeFunctionValues()
{
    for (std::size_t n = 0; n < m_graph.nodeCount(); ++n) {
        const Node &node = m_graph.node(NodeId(n));
        if (node.kind != NodeKind::FunctionValue || !needsType(node) || !node.callee.isValid()
            || node.callee.index() >= m_graph.functionCount())
            continue;
        const Function &fn = m_graph.function(node.callee);
        Type t;
        t.kind = Type::Kind::Function;
        for (NodeId p : fn.params)
            t.fields.push_back(m_graph.node(p).outputType(0));
        const Type result = fn.hasReturnType && !fn.returnType.isUnknown()
            ? fn.returnType
            : (fn.result.isValid() ? m_graph.node(fn.result).outputType(0) : Type::unknown());
        bool complete = !result.isUnknown();
        for (const Type &f : t.fields)
            complete = complete && !f.isUnknown();
        if (!complete)
            continue;
        t.result.push_back(result);
        assign(NodeId(n), std::move(t));
    }
}

bool TypeInference::assign(NodeId id, Type type)
{
    Node &node = m_graph.node(id);
    if (type.isUnknown() || !needsType(node))
        return false;
    node.setOutputType(0, std::move(type));
    ++m_inferred;
    return true;
}

} // namespace

InferenceReport inferTypes(Graph &graph, bool listUnknown)
{
    return TypeInference(graph).run(listUnknown);
}

} // namespace cleave
