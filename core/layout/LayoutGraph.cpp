// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/layout/LayoutGraph.h"

#include "core/graph/FunctionView.h"
#include "core/support/HashMix.h"

#include <algorithm>
#include <cmath>

namespace cleave {

namespace {

std::string withoutPercent(const std::string &name)
{
    return !name.empty() && name.front() == '%' ? name.substr(1) : name;
}

std::string shortened(std::string text, std::size_t max)
{
    if (text.size() <= max)
        return text;
    text.resize(max - 3);
    return text + "...";
}

// Characters are counted as glyphs: the multiplication sign is two bytes in UTF-8.
std::size_t glyphCount(const std::string &s)
{
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
    }));
}

} // namespace

std::string shapeText(const Type &type)
{
    if (type.isTuple()) {
        // A DNN's tuples are mostly batch_norm's (out, mean, var): the first field is the data.
        if (type.fields.empty())
            return "()";
        const std::string first = shapeText(type.fields[0]);
        return type.fields.size() == 1
            ? "(" + first + ")"
            : "(" + first + ", +" + std::to_string(type.fields.size() - 1) + ")";
    }
    if (!type.isTensor())
        return {};
    if (type.shape.empty())
        return "scalar";
    std::string out;
    for (std::size_t i = 0; i < type.shape.size(); ++i) {
        if (i > 0)
            out += "\u00d7";
        const Dim &d = type.shape[i];
        if (!d.symbol.empty())
            out += d.symbol;
        else if (d.value < 0)
            out += "?";
        else
            out += std::to_string(d.value);
    }
    return out;
}

NodeLabel nodeLabel(const Graph &graph, NodeId node)
{
    const Node &n = graph.node(node);
    NodeLabel label;
    switch (n.kind) {
    case NodeKind::Input:
        label.title = withoutPercent(n.name);
        break;
    case NodeKind::Constant:
        label.title = n.value().isNull() ? "const" : "scalar";
        break;
    case NodeKind::OpCall:
    case NodeKind::ConstructorCall:
        label.title = n.op;
        break;
    case NodeKind::FunctionCall:
    case NodeKind::FunctionValue: {
        if (!n.callee.isValid() || n.callee.index() >= graph.functionCount()) {
            // A call of a global the module does not define (an extern kernel) names it in `op`.
            label.title = !n.op.empty() ? n.op : withoutPercent(n.name);
            break;
        }
        const Function &f = graph.function(n.callee);
        std::string name = f.composite();
        if (name.empty())
            name = f.kind == Function::Kind::Global ? "@" + f.name : "fn " + withoutPercent(f.name);
        label.title = name;
        break;
    }
    case NodeKind::ClosureCall:
        label.title = "call";
        break;
    case NodeKind::Tuple:
        label.title = "tuple";
        break;
    case NodeKind::TupleGetItem:
        label.title = "." + std::to_string(n.index);
        break;
    case NodeKind::If:
        label.title = "if";
        break;
    case NodeKind::Match:
        label.title = "match";
        break;
    }
    label.title = shortened(label.title, 44);
    if (n.kind != NodeKind::TupleGetItem && n.kind != NodeKind::Tuple && n.outputCount() > 0)
        label.subtitle = shortened(shapeText(n.outputType(0)), 40);
    return label;
}

void nodeBoxSize(const NodeLabel &label, LayoutNodeRole role, double &width, double &height)
{
    if (role == LayoutNodeRole::Structural) {
        width = std::max(28.0, 8.0 + 6.5 * static_cast<double>(glyphCount(label.title)));
        height = 18;
        return;
    }
    const double titleWidth = 6.2 * static_cast<double>(glyphCount(label.title));
    const double subWidth = 5.4 * static_cast<double>(glyphCount(label.subtitle));
    width = std::ceil(std::max({ 64.0, titleWidth + 20, subWidth + 20 }));
    height = label.subtitle.empty() ? 24 : 34;
}

std::uint64_t LayoutGraph::fingerprint() const
{
    std::uint64_t h = 1469598103934665603ULL;
    hashMix(h, function.value);
    for (const Node &n : nodes) {
        hashMix(h, n.id.value);
        hashMix(h, static_cast<std::uint64_t>(n.role));
        hashMix(h, static_cast<std::uint64_t>(n.width * 16));
        hashMix(h, static_cast<std::uint64_t>(n.height * 16));
    }
    for (const Edge &e : edges) {
        hashMix(h, e.from);
        hashMix(h, e.to);
        hashMix(h, e.tensor.output);
        hashMix(h, e.stub ? 1U : 0U);
    }
    return h;
}

LayoutGraph buildLayoutGraph(const Graph &graph, FunctionId function,
                             const LayoutGraphOptions &options)
{
    if (!function.isValid())
        function = graph.mainFunction();
    if (!function.isValid())
        return {};
    return buildLayoutGraph(FunctionView(graph, function), options);
}

LayoutGraph buildLayoutGraph(const FunctionView &view, const LayoutGraphOptions &options)
{
    const Graph &graph = view.graph();
    const FunctionId function = view.function();
    LayoutGraph lg;
    lg.function = function;
    if (!function.isValid())
        return lg;

    std::vector<bool> isOutput(graph.nodeCount(), false);
    for (const TensorRef &t : graph.outputs(function))
        if (t.node.isValid() && t.node.index() < isOutput.size())
            isOutput[t.node.index()] = true;

    // Each drawn node's index in lg.nodes, by node index (UINT32_MAX: not drawn): a flat array,
    // 4 bytes per node of the graph, where a hash map took about 40 per drawn node.
    std::vector<std::uint32_t> indexOf(graph.nodeCount(), UINT32_MAX);
    auto drawnIndex = [&](NodeId id) {
        return id.isValid() && id.index() < indexOf.size() ? indexOf[id.index()] : UINT32_MAX;
    };
    auto addNode = [&](NodeId id) {
        const Node &n = graph.node(id);
        LayoutGraph::Node ln;
        ln.id = id;
        switch (n.kind) {
        case NodeKind::Input:
            ln.role = LayoutNodeRole::Input;
            break;
        case NodeKind::Constant:
            ln.role = LayoutNodeRole::Constant;
            break;
        case NodeKind::Tuple:
        case NodeKind::TupleGetItem:
            ln.role = isOutput[id.index()] ? LayoutNodeRole::Output : LayoutNodeRole::Structural;
            break;
        default:
            ln.role = isOutput[id.index()] ? LayoutNodeRole::Output : LayoutNodeRole::Operator;
            break;
        }
        double width = 0;
        double height = 0;
        nodeBoxSize(nodeLabel(graph, id), ln.role, width, height);
        ln.width = static_cast<float>(width);
        ln.height = static_cast<float>(height);
        indexOf[id.index()] = static_cast<std::uint32_t>(lg.nodes.size());
        lg.nodes.push_back(ln);
    };
    // The drawn graph lives as long as its level is shown, so its arrays are sized exactly:
    // the nodes and edges are counted first (grown and shrunk, both copies were alive at once).
    std::vector<NodeId> drawn(view.inputs().begin(), view.inputs().end());
    for (NodeId id : drawn)
        indexOf[id.index()] = 0;
    for (NodeId id : view.order()) {
        const Node &n = graph.node(id);
        if (n.kind == NodeKind::Input || drawnIndex(id) != UINT32_MAX)
            continue;
        if (n.kind == NodeKind::Constant && !options.showConstants)
            continue;
        indexOf[id.index()] = 0;
        drawn.push_back(id);
    }
    std::fill(indexOf.begin(), indexOf.end(), UINT32_MAX);
    lg.nodes.reserve(drawn.size());
    for (NodeId id : drawn)
        addNode(id);
    std::vector<NodeId>().swap(drawn);

    // Calls `edge(tensor, consumer, from, to)` for each drawn edge, each tensor once per consumer.
    std::vector<TensorRef> seen;
    auto forEachEdge = [&](auto &&edge) {
        for (std::uint32_t to = 0; to < lg.nodes.size(); ++to) {
            const NodeId consumer = lg.nodes[to].id;
            seen.clear();
            for (const FlowEdge *e : view.inEdges(consumer)) {
                const std::uint32_t from = drawnIndex(e->tensor.node);
                if (from == UINT32_MAX || from == to)
                    continue;
                if (std::find(seen.begin(), seen.end(), e->tensor) != seen.end())
                    continue;
                seen.push_back(e->tensor);
                edge(e->tensor, consumer, from, to);
            }
        }
    };
    std::size_t edgeCount = 0;
    forEachEdge([&](const TensorRef &, NodeId, std::uint32_t, std::uint32_t) { ++edgeCount; });
    lg.edges.reserve(edgeCount);
    std::vector<std::uint32_t> fanout(lg.nodes.size(), 0);
    forEachEdge(
        [&](const TensorRef &tensor, NodeId consumer, std::uint32_t from, std::uint32_t to) {
            lg.edges.push_back({ tensor, consumer, from, to, false });
            ++fanout[from];
        });
    // A widely read input or constant is drawn as stubs everywhere; a widely read op output
    // (a dense block's layer, read by every later layer) keeps its edge to its first consumer,
    // which carries the block's main data flow, so that the block still reads top to bottom.
    std::vector<std::uint32_t> firstConsumer(lg.nodes.size(), UINT32_MAX);
    for (const LayoutGraph::Edge &e : lg.edges)
        firstConsumer[e.from] = std::min(firstConsumer[e.from], e.to);
    for (LayoutGraph::Edge &e : lg.edges) {
        const LayoutNodeRole role = lg.nodes[e.from].role;
        const bool source = role == LayoutNodeRole::Input || role == LayoutNodeRole::Constant;
        e.stub = fanout[e.from] > options.stubFanout && (source || e.to != firstConsumer[e.from]);
    }
    return lg;
}

} // namespace cleave
