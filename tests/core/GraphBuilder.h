// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Test helper: builds small Relay-like graphs through the Graph API, in program order.
#pragma once

#include "core/graph/Graph.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cleave::test {

/// Builds the `@main` function of a Graph node by node. Operators are named `%0`, `%1`, ... in
/// creation order, like a Relay dump, so tests can name them by key.
class GraphBuilder
{
public:
    using Shape = std::vector<std::int64_t>;

    GraphBuilder()
    {
        Function f;
        f.kind = Function::Kind::Global;
        f.name = "main";
        m_function = m_graph->addFunction(std::move(f));
    }

    static Type tensor(const Shape &shape, const std::string &dtype = "float32")
    {
        std::vector<Dim> dims;
        for (std::int64_t d : shape)
            dims.push_back(Dim::known(d));
        return Type::tensor(std::move(dims), dtype);
    }

    /// A graph input (parameter of @main) named `%name`.
    NodeId input(const std::string &name, const Shape &shape)
    {
        Node n;
        n.kind = NodeKind::Input;
        n.function = m_function;
        n.name = "%" + name;
        n.setOutputTypes({ tensor(shape) });
        const NodeId id = m_graph->addNode(std::move(n));
        m_graph->function(m_function).params.push_back(id);
        return id;
    }

    /// A tensor constant (a weight) named `%name`.
    NodeId constant(const std::string &name, const Shape &shape)
    {
        Node n;
        n.kind = NodeKind::Constant;
        n.function = m_function;
        n.name = "%" + name;
        n.setMetaRef("meta[relay.Constant][" + std::to_string(m_constants++) + "]");
        n.setOutputTypes({ tensor(shape) });
        return m_graph->addNode(std::move(n));
    }

    /// An operator call with a tensor output.
    NodeId op(const std::string &opName, const std::vector<NodeId> &inputs, const Shape &shape,
              Attributes attrs = {})
    {
        return opTyped(opName, inputs, tensor(shape), std::move(attrs));
    }

    /// An operator call with any output type (a tuple for nn.batch_norm).
    NodeId opTyped(const std::string &opName, const std::vector<NodeId> &inputs, Type type,
                   Attributes attrs = {})
    {
        Node n;
        n.kind = NodeKind::OpCall;
        n.op = opName;
        n.attrs = std::move(attrs);
        n.setOutputTypes({ std::move(type) });
        return addBound(std::move(n), inputs);
    }

    /// `(%a, %b, ...)`.
    NodeId tuple(const std::vector<NodeId> &fields)
    {
        Node n;
        n.kind = NodeKind::Tuple;
        std::vector<Type> types;
        for (NodeId f : fields)
            types.push_back(m_graph->node(f).outputType(0));
        n.setOutputTypes({ Type::tuple(std::move(types)) });
        return addBound(std::move(n), fields);
    }

    /// `%t.index`.
    NodeId getItem(NodeId t, std::uint32_t index)
    {
        Node n;
        n.kind = NodeKind::TupleGetItem;
        n.index = index;
        n.setOutputTypes({ m_graph->node(t).outputType(0).field(index) });
        return addBound(std::move(n), { t });
    }

    /// Sets the result and finalizes; the builder must not be used afterwards.
    std::unique_ptr<Graph> finish(NodeId result)
    {
        m_graph->function(m_function).result = result;
        m_graph->finalize();
        return std::move(m_graph);
    }

    [[nodiscard]] FunctionId function() const { return m_function; }

private:
    NodeId addBound(Node n, const std::vector<NodeId> &inputs)
    {
        n.function = m_function;
        n.name = "%" + std::to_string(m_bound++);
        for (NodeId in : inputs)
            n.inputs.push_back(TensorRef { in, 0 });
        return m_graph->addNode(std::move(n));
    }

    std::unique_ptr<Graph> m_graph = std::make_unique<Graph>();
    FunctionId m_function;
    int m_bound = 0;
    int m_constants = 0;
};

/// Attributes from (key, int list) pairs: `ints({{"strides", {2, 2}}})`.
inline Attributes ints(const std::vector<std::pair<std::string, std::vector<std::int64_t>>> &kv)
{
    Attributes a;
    for (const auto &[k, v] : kv) {
        std::vector<AttrValue> items;
        for (std::int64_t x : v)
            items.push_back(AttrValue::integer(x));
        a.set(k, AttrValue::listOf(std::move(items)));
    }
    return a;
}

} // namespace cleave::test
