// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/BlockGraph.h"

#include "core/partition/PartitionPlan.h"

#include <algorithm>

namespace cleave {

namespace {

/// What a copied node that is not a plain op call is called at block level.
std::string shownOpName(const Graph &graph, const Node &node)
{
    switch (node.kind) {
    case NodeKind::FunctionCall:
        return node.callee.isValid() ? graph.function(node.callee).name : "call";
    case NodeKind::ClosureCall:
        return "call";
    case NodeKind::If:
        return "if";
    case NodeKind::Match:
        return "match";
    default:
        return node.op;
    }
}

} // namespace

std::vector<NodeId> BlockGraph::originalNodes(NodeId blockNode) const
{
    for (const KernelMatch &k : mapping.kernels) {
        if (k.kernel == blockNode)
            return k.relayNodes;
    }
    std::vector<NodeId> out;
    for (const auto &[original, shown] : shownAs) {
        if (shown == blockNode)
            out.push_back(original);
    }
    return out;
}

std::vector<EdgeRef> BlockGraph::originalEdges(const Graph &original,
                                               const std::vector<EdgeRef> &edges) const
{
    std::vector<EdgeRef> out;
    for (const EdgeRef &e : edges) {
        const auto tensor = originalTensor.find(e.tensor);
        if (tensor == originalTensor.end())
            continue;
        const std::vector<NodeId> inside = originalNodes(e.consumer);
        for (const Use &u : original.uses(tensor->second.node)) {
            if (original.node(u.consumer).inputs[u.input] != tensor->second)
                continue;
            if (std::find(inside.begin(), inside.end(), u.consumer) == inside.end())
                continue;
            const EdgeRef pe { tensor->second, u.consumer };
            if (std::find(out.begin(), out.end(), pe) == out.end())
                out.push_back(pe);
        }
    }
    return out;
}

namespace {

/// A node outside every collapsed block, as the block-level graph shows it: calls, `if` and
/// `match` become op calls named after what they run; a function literal becomes a constant.
Node shownCopy(const Graph &graph, const Node &node, FunctionId function)
{
    Node copy;
    copy.kind = node.kind;
    copy.function = function;
    copy.name = node.name;
    copy.op = node.op;
    copy.attrs = node.attrs;
    copy.outputTypes = node.outputTypes;
    copy.index = node.index;
    copy.setValue(node.value());
    copy.setMetaRef(node.metaRef());
    copy.typeAnnotated = node.typeAnnotated;
    if (node.kind == NodeKind::FunctionCall || node.kind == NodeKind::ClosureCall
        || node.kind == NodeKind::If || node.kind == NodeKind::Match
        || node.kind == NodeKind::FunctionValue) {
        copy.kind = node.kind == NodeKind::FunctionValue ? NodeKind::Constant : NodeKind::OpCall;
        copy.op = shownOpName(graph, node);
    }
    return copy;
}

/// Builds a BlockGraph: copies the nodes of one function in program order, one op call per
/// collapsed block, and records how shown and original nodes and tensors correspond.
class BlockCollapser
{
public:
    BlockCollapser(const Graph &graph, FunctionId f, const std::vector<FusedBlock> &blocks,
                   const std::vector<std::size_t> &expanded);

    BlockGraph take();

private:
    [[nodiscard]] std::vector<TensorRef> remap(const std::vector<TensorRef> &inputs) const;
    void record(NodeId original, NodeId copy, std::size_t outputs);
    void addBlock(const FusedBlock &block, const Node &root);
    void addCopy(NodeId n, const Node &node);
    void addKernel(NodeId kernel, std::string name, std::string funcName,
                   std::vector<NodeId> relayNodes);
    void setSignature();

    const Graph &m_graph;
    FunctionId m_function;
    const std::vector<FusedBlock> &m_blocks;
    BlockGraph m_out;
    FunctionId m_shownFunction;
    std::vector<NodeId> m_order;
    std::vector<std::int32_t> m_position; // per original node, its place in m_order
    std::vector<int> m_blockOf; // per original node, its collapsed block or -1
};

BlockCollapser::BlockCollapser(const Graph &graph, FunctionId f,
                               const std::vector<FusedBlock> &blocks,
                               const std::vector<std::size_t> &expanded)
    : m_graph(graph)
    , m_function(f)
    , m_blocks(blocks)
    , m_order(graph.topologicalOrder(f))
    , m_position(graph.nodeCount(), -1)
    , m_blockOf(graph.nodeCount(), -1)
{
    Function main;
    main.kind = Function::Kind::Global;
    main.name = "main";
    m_shownFunction = m_out.graph.addFunction(std::move(main));
    m_out.graph.setFormat(graph.format());
    m_out.graph.setSourcePath(graph.sourcePath());
    m_out.graph.setChecksum(graph.checksum());
    for (std::size_t i = 0; i < m_order.size(); ++i)
        m_position[m_order[i].index()] = static_cast<std::int32_t>(i);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        if (std::find(expanded.begin(), expanded.end(), b) != expanded.end())
            continue;
        for (NodeId n : blocks[b].nodes)
            m_blockOf[n.index()] = static_cast<int>(b);
    }
}

std::vector<TensorRef> BlockCollapser::remap(const std::vector<TensorRef> &inputs) const
{
    std::vector<TensorRef> mapped;
    for (TensorRef t : inputs) {
        const auto it = m_out.shownTensor.find(t);
        if (it != m_out.shownTensor.end())
            mapped.push_back(it->second);
    }
    return mapped;
}

void BlockCollapser::record(NodeId original, NodeId copy, std::size_t outputs)
{
    for (std::uint32_t i = 0; i < std::max<std::size_t>(outputs, 1); ++i) {
        m_out.shownTensor[{ original, i }] = { copy, i };
        m_out.originalTensor[{ copy, i }] = { original, i };
    }
    m_out.shownAs[original] = copy;
}

void BlockCollapser::addKernel(NodeId kernel, std::string name, std::string funcName,
                               std::vector<NodeId> relayNodes)
{
    KernelMatch k;
    k.kernel = kernel;
    k.name = std::move(name);
    k.funcName = std::move(funcName);
    k.relayNodes = std::move(relayNodes);
    k.matched = true;
    m_out.mapping.kernels.push_back(std::move(k));
}

void BlockCollapser::addBlock(const FusedBlock &block, const Node &root)
{
    Node collapsed;
    collapsed.kind = NodeKind::OpCall;
    collapsed.function = m_shownFunction;
    collapsed.op = block.name;
    collapsed.name = root.name;
    collapsed.inputs = remap(block.inputs);
    for (TensorRef t : block.outputs)
        collapsed.outputTypes.push_back(m_graph.tensorType(t));
    if (collapsed.outputTypes.empty())
        collapsed.outputTypes = root.outputTypes;
    const NodeId id = m_out.graph.addNode(std::move(collapsed));
    std::vector<NodeId> members = block.nodes;
    std::sort(members.begin(), members.end(),
              [&](NodeId x, NodeId y) { return m_position[x.index()] < m_position[y.index()]; });
    for (NodeId m : members)
        m_out.shownAs[m] = id;
    for (std::uint32_t i = 0; i < block.outputs.size(); ++i) {
        m_out.shownTensor[block.outputs[i]] = { id, i };
        m_out.originalTensor[{ id, i }] = block.outputs[i];
    }
    if (block.outputs.empty())
        record(block.root, id, 1);
    addKernel(id, block.name, block.name, std::move(members));
}

void BlockCollapser::addCopy(NodeId n, const Node &node)
{
    Node copy = shownCopy(m_graph, node, m_shownFunction);
    copy.inputs = remap(node.inputs);
    const NodeId id = m_out.graph.addNode(std::move(copy));
    if (node.kind == NodeKind::Input)
        m_out.graph.function(m_shownFunction).params.push_back(id);
    record(n, id, node.outputCount());
    if (m_out.graph.node(id).isOperator())
        addKernel(id, m_graph.key(n), m_out.graph.node(id).op, { n });
}

// Parameters keep the function's parameter order; the result is the shown result tensor's node.
void BlockCollapser::setSignature()
{
    std::vector<NodeId> params;
    for (NodeId p : m_graph.function(m_function).params) {
        const auto it = m_out.shownAs.find(p);
        if (it != m_out.shownAs.end())
            params.push_back(it->second);
    }
    m_out.graph.function(m_shownFunction).params = std::move(params);
    const NodeId result = m_graph.function(m_function).result;
    if (result.isValid()) {
        const auto it = m_out.shownTensor.find({ result, 0 });
        if (it != m_out.shownTensor.end())
            m_out.graph.function(m_shownFunction).result = it->second.node;
    }
}

BlockGraph BlockCollapser::take()
{
    // One shown node per node outside the collapsed blocks and per block: reserved exactly, so
    // the node store neither grows by doubling nor is copied again by finalize().
    std::size_t shown = 0;
    for (NodeId n : m_order) {
        const int b = m_blockOf[n.index()];
        shown += b < 0 || m_blocks[static_cast<std::size_t>(b)].root == n ? 1 : 0;
    }
    m_out.graph.reserveNodes(shown);
    for (NodeId n : m_order) {
        const Node &node = m_graph.node(n);
        const int b = m_blockOf[n.index()];
        if (b < 0) {
            addCopy(n, node);
            continue;
        }
        const FusedBlock &block = m_blocks[static_cast<std::size_t>(b)];
        m_out.shownAs[n] = NodeId(); // filled in when the root is reached
        if (n == block.root)
            addBlock(block, node);
    }
    setSignature();
    m_out.graph.finalize();
    return std::move(m_out);
}

} // namespace

BlockGraph collapseBlocks(const Graph &graph, FunctionId f, const std::vector<FusedBlock> &blocks,
                          const std::vector<std::size_t> &expanded)
{
    return BlockCollapser(graph, f, blocks, expanded).take();
}

} // namespace cleave
