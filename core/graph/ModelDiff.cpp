// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/ModelDiff.h"

#include <algorithm>

namespace cleave {

namespace {

std::string opText(const Graph &g, NodeId id)
{
    const Node &n = g.node(id);
    if (!n.op.empty())
        return n.op.str();
    if (n.callee.isValid())
        return "@" + g.function(n.callee).name;
    return nodeKindName(n.kind);
}

std::string typesText(const Node &n)
{
    std::string text;
    for (const Type &t : n.outputTypes()) {
        if (!text.empty())
            text += ", ";
        text += t.toShortString();
    }
    return text;
}

std::string inputsText(const Graph &g, const Node &n)
{
    std::string text;
    for (const TensorRef &t : n.inputs) {
        if (!text.empty())
            text += ", ";
        text += t.node.isValid() ? g.key(t.node) : std::string("?");
        if (t.output != 0)
            text += "." + std::to_string(t.output);
    }
    return text;
}

void compareAttributes(const Node &a, const Node &b, std::vector<NodeChange> &changes)
{
    for (const auto &[key, value] : a.attrs.items()) {
        const AttrValue *other = b.attrs.find(key);
        if (other == nullptr)
            changes.push_back({ "attribute " + key, value.toRelay(), {} });
        else if (!(*other == value))
            changes.push_back({ "attribute " + key, value.toRelay(), other->toRelay() });
    }
    for (const auto &[key, value] : b.attrs.items()) {
        if (a.attrs.find(key) == nullptr)
            changes.push_back({ "attribute " + key, {}, value.toRelay() });
    }
}

std::vector<NodeChange> compareNodes(const Graph &ga, NodeId ia, const Graph &gb, NodeId ib)
{
    const Node &a = ga.node(ia);
    const Node &b = gb.node(ib);
    std::vector<NodeChange> changes;
    if (a.kind != b.kind)
        changes.push_back({ "kind", nodeKindName(a.kind), nodeKindName(b.kind) });
    if (opText(ga, ia) != opText(gb, ib))
        changes.push_back({ "op", opText(ga, ia), opText(gb, ib) });
    compareAttributes(a, b, changes);
    if (a.outputTypes() != b.outputTypes())
        changes.push_back({ "type", typesText(a), typesText(b) });
    if (inputsText(ga, a) != inputsText(gb, b))
        changes.push_back({ "inputs", inputsText(ga, a), inputsText(gb, b) });
    if (a.kind == NodeKind::Constant && (!(a.value() == b.value()) || a.metaRef() != b.metaRef()))
        changes.push_back({ "value", a.metaRef().empty() ? a.value().toRelay() : a.metaRef(),
                            b.metaRef().empty() ? b.value().toRelay() : b.metaRef() });
    return changes;
}

} // namespace

std::size_t ModelDiff::count(NodeDifference::Kind kind) const
{
    return static_cast<std::size_t>(std::count_if(
        nodes.begin(), nodes.end(), [kind](const NodeDifference &d) { return d.kind == kind; }));
}

ModelDiff diffModels(const Graph &a, const Graph &b)
{
    ModelDiff diff;
    for (std::size_t i = 0; i < a.nodeCount(); ++i) {
        const NodeId ia(static_cast<std::uint32_t>(i));
        const std::string &key = a.key(ia);
        const NodeId ib = b.findByKey(key);
        if (!ib.isValid()) {
            diff.nodes.push_back(
                { NodeDifference::Kind::Removed, key, opText(a, ia), ia, NodeId(), {} });
            continue;
        }
        std::vector<NodeChange> changes = compareNodes(a, ia, b, ib);
        if (!changes.empty())
            diff.nodes.push_back(
                { NodeDifference::Kind::Changed, key, opText(b, ib), ia, ib, std::move(changes) });
    }
    for (std::size_t i = 0; i < b.nodeCount(); ++i) {
        const NodeId ib(static_cast<std::uint32_t>(i));
        if (!a.findByKey(b.key(ib)).isValid())
            diff.nodes.push_back(
                { NodeDifference::Kind::Added, b.key(ib), opText(b, ib), NodeId(), ib, {} });
    }
    return diff;
}

const char *differenceKindName(NodeDifference::Kind kind)
{
    switch (kind) {
    case NodeDifference::Kind::Added:
        return "added";
    case NodeDifference::Kind::Removed:
        return "removed";
    case NodeDifference::Kind::Changed:
        break;
    }
    return "changed";
}

} // namespace cleave
