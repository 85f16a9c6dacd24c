// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/BlockGraph.h"

#include "core/partition/PartitionPlan.h"

#include <algorithm>
#include <span>

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
        return node.op.str();
    }
}

/// The entries of `tensors` (sorted by block-level tensor) whose block-level node is `shown`.
std::span<const std::pair<TensorRef, TensorRef>>
tensorsOf(const std::vector<std::pair<TensorRef, TensorRef>> &tensors, NodeId shown)
{
    const auto first = std::lower_bound(
        tensors.begin(), tensors.end(), shown,
        [](const std::pair<TensorRef, TensorRef> &e, NodeId n) { return e.first.node < n; });
    auto last = first;
    while (last != tensors.end() && last->first.node == shown)
        ++last;
    return { first, last };
}

} // namespace

NodeId BlockGraph::shownAs(NodeId original) const
{
    return original.isValid() && original.index() < shownNodes.size() ? shownNodes[original.index()]
                                                                      : NodeId();
}

// A tensor is shown, if at all, by an output of the node showing its producer: the few entries
// of that node are searched.
TensorRef BlockGraph::shownTensor(TensorRef original) const
{
    const NodeId shown = shownAs(original.node);
    if (!shown.isValid())
        return {};
    for (const auto &[blockTensor, shows] : tensorsOf(tensors, shown)) {
        if (shows == original)
            return blockTensor;
    }
    return {};
}

TensorRef BlockGraph::originalTensor(TensorRef shown) const
{
    const auto it = std::lower_bound(
        tensors.begin(), tensors.end(), shown,
        [](const std::pair<TensorRef, TensorRef> &e, TensorRef t) { return e.first < t; });
    return it != tensors.end() && it->first == shown ? it->second : TensorRef();
}

KernelMapping BlockGraph::mapping() const
{
    KernelMapping out;
    out.kernels.reserve(kernels.size());
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        KernelMatch match;
        match.kernel = kernels[k];
        match.name = graph.node(kernels[k]).op;
        const std::span<const NodeId> nodes = kernelNodes(k);
        match.relayNodes.assign(nodes.begin(), nodes.end());
        match.matched = true;
        out.kernels.push_back(std::move(match));
    }
    return out;
}

std::vector<NodeId> BlockGraph::originalNodes(NodeId blockNode) const
{
    const auto kernel = std::lower_bound(kernels.begin(), kernels.end(), blockNode);
    if (kernel != kernels.end() && *kernel == blockNode) {
        const std::span<const NodeId> nodes
            = kernelNodes(static_cast<std::size_t>(kernel - kernels.begin()));
        return { nodes.begin(), nodes.end() };
    }
    // Any other node is a copy of one original node, which its first output shows.
    const auto entries = tensorsOf(tensors, blockNode);
    if (entries.empty())
        return {};
    return { entries.front().second.node };
}

std::vector<EdgeRef> BlockGraph::originalEdges(const Graph &original,
                                               const std::vector<EdgeRef> &edges) const
{
    std::vector<EdgeRef> out;
    for (const EdgeRef &e : edges) {
        const TensorRef tensor = originalTensor(e.tensor);
        if (!tensor.isValid())
            continue;
        const std::vector<NodeId> inside = originalNodes(e.consumer);
        for (const Use &u : original.uses(tensor.node)) {
            if (original.node(u.consumer).inputs[u.input] != tensor)
                continue;
            if (std::find(inside.begin(), inside.end(), u.consumer) == inside.end())
                continue;
            const EdgeRef pe { tensor, u.consumer };
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
    copy.setOutputTypes(node.outputTypes());
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
    [[nodiscard]] TensorRefList remap(const TensorRefList &inputs) const;
    void record(NodeId original, NodeId copy, std::size_t outputs);
    void addBlock(const FusedBlock &block, const Node &root);
    void addCopy(NodeId n, const Node &node);
    void addKernel(NodeId kernel, std::span<const NodeId> members);
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

TensorRefList BlockCollapser::remap(const TensorRefList &inputs) const
{
    TensorRefList mapped;
    mapped.reserve(inputs.size());
    for (TensorRef t : inputs) {
        const TensorRef shown = m_out.shownTensor(t);
        if (shown.isValid())
            mapped.push_back(shown);
    }
    return mapped;
}

void BlockCollapser::record(NodeId original, NodeId copy, std::size_t outputs)
{
    for (std::uint32_t i = 0; i < std::max<std::size_t>(outputs, 1); ++i)
        m_out.tensors.emplace_back(TensorRef { copy, i }, TensorRef { original, i });
    m_out.shownNodes[original.index()] = copy;
}

void BlockCollapser::addKernel(NodeId kernel, std::span<const NodeId> members)
{
    m_out.kernels.push_back(kernel);
    m_out.kernelMembers.insert(m_out.kernelMembers.end(), members.begin(), members.end());
    m_out.kernelStart.push_back(static_cast<std::uint32_t>(m_out.kernelMembers.size()));
}

void BlockCollapser::addBlock(const FusedBlock &block, const Node &root)
{
    Node collapsed;
    collapsed.kind = NodeKind::OpCall;
    collapsed.function = m_shownFunction;
    collapsed.op = block.name;
    collapsed.name = root.name;
    collapsed.inputs = remap(block.inputs);
    std::vector<Type> types;
    types.reserve(block.outputs.size());
    for (TensorRef t : block.outputs)
        types.push_back(m_graph.tensorType(t));
    // Pooled: the block shares the list of every node and block with the same output types.
    collapsed.setOutputTypes(types.empty() ? root.outputTypes() : TypeList(types));
    const NodeId id = m_out.graph.addNode(std::move(collapsed));
    for (NodeId m : block.nodes)
        m_out.shownNodes[m.index()] = id;
    for (std::uint32_t i = 0; i < block.outputs.size(); ++i)
        m_out.tensors.emplace_back(TensorRef { id, i }, block.outputs[i]);
    if (block.outputs.empty())
        record(block.root, id, 1);
    // The members in program order, sorted where they are stored.
    addKernel(id, block.nodes);
    const auto first = m_out.kernelMembers.end() - static_cast<std::ptrdiff_t>(block.nodes.size());
    std::sort(first, m_out.kernelMembers.end(),
              [&](NodeId x, NodeId y) { return m_position[x.index()] < m_position[y.index()]; });
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
        addKernel(id, std::span<const NodeId>(&n, 1));
}

// Parameters keep the function's parameter order; the result is the shown result tensor's node.
void BlockCollapser::setSignature()
{
    std::vector<NodeId> params;
    for (NodeId p : m_graph.function(m_function).params) {
        const NodeId shown = m_out.shownAs(p);
        if (shown.isValid())
            params.push_back(shown);
    }
    m_out.graph.function(m_shownFunction).params = std::move(params);
    const NodeId result = m_graph.function(m_function).result;
    if (result.isValid()) {
        const TensorRef shown = m_out.shownTensor({ result, 0 });
        if (shown.isValid())
            m_out.graph.function(m_shownFunction).result = shown.node;
    }
}

BlockGraph BlockCollapser::take()
{
    // One shown node per node outside the collapsed blocks and per block, a kernel per shown
    // operator, a tensor entry per shown output: reserved exactly, so that no store grows by
    // doubling and the node store is not copied again by finalize().
    std::size_t shown = 0;
    std::size_t kernels = 0;
    std::size_t members = 0;
    std::size_t tensors = 0;
    for (NodeId n : m_order) {
        const Node &node = m_graph.node(n);
        const int b = m_blockOf[n.index()];
        if (b < 0) {
            ++shown;
            kernels += node.isOperator() ? 1 : 0;
            members += node.isOperator() ? 1 : 0;
            tensors += std::max<std::size_t>(node.outputCount(), 1);
        } else if (const FusedBlock &block = m_blocks[static_cast<std::size_t>(b)];
                   block.root == n) {
            ++shown;
            ++kernels;
            members += block.nodes.size();
            tensors += std::max<std::size_t>(block.outputs.size(), 1);
        }
    }
    m_out.graph.reserveNodes(shown);
    m_out.kernels.reserve(kernels);
    m_out.kernelStart.reserve(kernels + 1);
    m_out.kernelStart.push_back(0);
    m_out.kernelMembers.reserve(members);
    m_out.tensors.reserve(tensors);
    m_out.shownNodes.assign(m_graph.nodeCount(), NodeId());
    for (NodeId n : m_order) {
        const Node &node = m_graph.node(n);
        const int b = m_blockOf[n.index()];
        if (b < 0) {
            addCopy(n, node);
            continue;
        }
        // A member is shown once its block is, when the root is reached.
        const FusedBlock &block = m_blocks[static_cast<std::size_t>(b)];
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
