// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/BoundaryTensors.h"

#include "core/analysis/Cost.h"
#include "core/analysis/RandomOps.h"
#include "core/partition/WeightFollowers.h"
#include "core/support/Saturating.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace cleave {

namespace {

/// A tuple-typed value crosses as its fields: how many, and the type of one.
bool isTupleLike(const Graph &g, TensorRef t)
{
    return g.tensorType(t).isTuple() || g.node(t.node).kind == NodeKind::Tuple;
}

std::size_t fieldCount(const Graph &g, TensorRef t)
{
    const Type &type = g.tensorType(t);
    if (type.isTuple())
        return type.fields.size();
    return g.node(t.node).inputs.size();
}

Type fieldType(const Graph &g, TensorRef t, std::uint32_t k)
{
    const Type &type = g.tensorType(t);
    if (type.isTuple())
        return type.field(k);
    const Node &producer = g.node(t.node);
    if (producer.kind == NodeKind::Tuple && k < producer.inputs.size()
        && producer.inputs[k].isValid())
        return g.tensorType(producer.inputs[k]);
    return Type::unknown();
}

/// Where a partition first reads an input: program position of the first reader, then direct
/// arguments before reads from nested scopes, then the argument slot.
using FirstUse = std::tuple<std::int32_t, bool, std::uint32_t>;

struct PendingInput
{
    FirstUse firstUse;
    NodeId globalInput;
    int boundary = -1;
};

} // namespace

const BoundaryTensor *BoundaryTable::find(TensorRef tensor,
                                          std::optional<std::uint32_t> field) const
{
    for (const BoundaryTensor &b : tensors) {
        if (b.tensor == tensor && b.field == field)
            return &b;
    }
    return nullptr;
}

bool replicable(const Graph &graph, const std::vector<NodeId> &closure)
{
    return std::none_of(closure.begin(), closure.end(), [&](NodeId n) {
        const Node &node = graph.node(n);
        if (!node.scopes().empty())
            return true;
        if (node.kind == NodeKind::FunctionCall)
            return !node.callee.isValid()
                || graph.function(node.callee).kind != Function::Kind::Global;
        if (node.kind != NodeKind::OpCall && node.kind != NodeKind::TupleGetItem
            && node.kind != NodeKind::Tuple)
            return true;
        return drawsRandomNumbers(node.op.str()) || node.op.str() == "relax.call_packed";
    });
}

bool replicationIsCheaper(std::int64_t flops, std::optional<std::int64_t> bytes)
{
    if (!bytes)
        return flops == 0; // an unknown size: only a copy that computes nothing is surely cheaper
    const double recompute = static_cast<double>(flops) / 1e12;
    const double transfer = static_cast<double>(*bytes) / 1e10 + 2e-5;
    return recompute < transfer;
}

std::vector<NodeId> moduleNodes(const PartitionPlan &plan, const BoundaryTable &boundary,
                                std::size_t k)
{
    std::vector<NodeId> nodes = plan.nodesOf(plan.partitions().at(k).id);
    if (k >= boundary.interfaces.size() || boundary.interfaces[k].replicas.empty())
        return nodes;
    const std::vector<NodeId> &replicas = boundary.interfaces[k].replicas;
    nodes.insert(nodes.end(), replicas.begin(), replicas.end());
    const FunctionView &view = plan.view();
    std::sort(nodes.begin(), nodes.end(),
              [&](NodeId a, NodeId b) { return view.position(a) < view.position(b); });
    return nodes;
}

std::string globalInputName(const Graph &graph, NodeId input)
{
    const std::string &name = graph.node(input).name;
    if (!name.empty() && name.front() == '%')
        return name.substr(1);
    return name.empty() ? graph.key(input) : name;
}

namespace {

/// Builds a BoundaryTable in the steps `computeBoundary` lists: crossing tensors, global outputs
/// and inputs, input names, output order, and finally the table in pipeline order.
class BoundaryBuilder
{
public:
    explicit BoundaryBuilder(const PartitionPlan &plan)
        : m_plan(plan)
        , m_view(plan.view())
        , m_graph(m_view.graph())
        , m_inputs(plan.partitionCount())
        , m_outputs(plan.partitionCount())
    {
    }

    void replicateWeightValues();
    void collectCrossings();
    void addGlobalOutputs();
    void addGlobalInputs();
    void nameInputs();
    void orderOutputs();
    BoundaryTable takeInPipelineOrder();

private:
    /// The fields of `e.tensor` that cross along `e` (nullopt: the whole tensor).
    [[nodiscard]] std::vector<std::optional<std::uint32_t>> crossingFields(const FlowEdge &e) const;
    /// Records that `field` of the tensor of `e` crosses from the producer's partition to
    /// partition index `to`; entries of this producer start at `firstEntry`.
    void recordCrossing(NodeId producer, const FlowEdge &e, std::optional<std::uint32_t> field,
                        int to, std::size_t firstEntry);

    /// The weight-only closure of follower `value`: it and the followers it is computed from, in
    /// program order, with their FLOPs.
    std::pair<std::vector<NodeId>, std::int64_t> closureOf(NodeId value) const;
    /// True when partition index `to` computes node `n` again (a replica).
    [[nodiscard]] bool replicates(int to, NodeId n) const
    {
        auto it = m_replicaOf.find(n.value);
        return it != m_replicaOf.end()
            && std::find(it->second.begin(), it->second.end(), to) != it->second.end();
    }

    const PartitionPlan &m_plan;
    const FunctionView &m_view;
    const Graph &m_graph;
    BoundaryTable m_table;
    /// Per replicated node, the partition indexes that compute it again.
    std::unordered_map<std::uint32_t, std::vector<int>> m_replicaOf;
    std::vector<std::vector<PendingInput>> m_inputs;
    std::vector<std::vector<PartitionOutput>> m_outputs;
    /// Per boundary tensor, the number of the first data_n_<k> it feeds (-1 before naming).
    std::vector<int> m_firstName;
};

std::vector<std::optional<std::uint32_t>> BoundaryBuilder::crossingFields(const FlowEdge &e) const
{
    std::vector<std::optional<std::uint32_t>> fields;
    if (!isTupleLike(m_graph, e.tensor)) {
        fields.emplace_back(std::nullopt);
        return fields;
    }
    const Node &reader = m_graph.node(e.user);
    if (e.user == e.consumer && reader.kind == NodeKind::TupleGetItem) {
        fields.emplace_back(reader.index);
        return fields;
    }
    for (std::uint32_t k = 0; k < fieldCount(m_graph, e.tensor); ++k)
        fields.emplace_back(k);
    return fields;
}

void BoundaryBuilder::recordCrossing(NodeId producer, const FlowEdge &e,
                                     std::optional<std::uint32_t> field, int to,
                                     std::size_t firstEntry)
{
    std::vector<BoundaryTensor> &tensors = m_table.tensors;
    const PartitionId toId = m_plan.partitions()[static_cast<std::size_t>(to)].id;
    auto it = std::find_if(
        tensors.begin() + static_cast<long>(firstEntry), tensors.end(),
        [&](const BoundaryTensor &b) { return b.tensor == e.tensor && b.field == field; });
    if (it == tensors.end()) {
        BoundaryTensor b;
        b.tensor = e.tensor;
        b.field = field;
        b.producerPartition = m_plan.partitionOf(producer);
        b.type = field ? fieldType(m_graph, e.tensor, *field) : m_graph.tensorType(e.tensor);
        b.bytes = b.type.byteSize();
        tensors.push_back(std::move(b));
        it = tensors.end() - 1;
    }
    auto group = std::find_if(it->consumers.begin(), it->consumers.end(),
                              [&](const BoundaryConsumer &c) { return c.partition == toId; });
    const int boundaryIndex = static_cast<int>(it - tensors.begin());
    if (group == it->consumers.end()) {
        it->consumers.push_back(BoundaryConsumer { toId, {}, {} });
        group = it->consumers.end() - 1;
        m_inputs[static_cast<std::size_t>(to)].push_back(PendingInput {
            { m_view.position(e.consumer), e.user != e.consumer, e.input }, {}, boundaryIndex });
    }
    if (group->nodes.empty() || group->nodes.back() != e.consumer)
        group->nodes.push_back(e.consumer);
}

std::pair<std::vector<NodeId>, std::int64_t> BoundaryBuilder::closureOf(NodeId value) const
{
    const WeightFollowers &followers = m_plan.weightFollowers();
    std::vector<NodeId> nodes { value };
    std::unordered_set<std::uint32_t> seen { value.value };
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        for (const FlowEdge *e : m_view.inEdges(nodes[i])) {
            const NodeId q = e->tensor.node;
            if (followers.contains(q) && m_view.isAssignable(q) && seen.insert(q.value).second)
                nodes.push_back(q);
        }
    }
    std::sort(nodes.begin(), nodes.end(),
              [&](NodeId a, NodeId b) { return m_view.position(a) < m_view.position(b); });
    std::int64_t flops = 0;
    for (NodeId n : nodes)
        flops = satAdd(flops, nodeFlops(m_graph, n));
    return { std::move(nodes), flops };
}

// Values computed from weights only that another partition reads: when recomputing them there
// is cheaper than the transfer, that partition takes their closure as replicas.
void BoundaryBuilder::replicateWeightValues()
{
    const WeightFollowers &followers = m_plan.weightFollowers();
    m_table.interfaces.resize(m_plan.partitionCount());
    for (NodeId p : followers.nodes()) {
        const int from = m_plan.indexOf(m_plan.partitionOf(p));
        if (from < 0 || !m_view.isAssignable(p))
            continue;
        // Only a partition on the producer's target computes it again: another target (a BYOC
        // region) may not support the ops.
        const std::string &target = m_plan.partitions()[static_cast<std::size_t>(from)].target;
        std::vector<int> readers;
        for (const FlowEdge &e : m_view.outEdges(p)) {
            const int to = m_plan.indexOf(m_plan.partitionOf(e.consumer));
            if (to >= 0 && to != from && !replicates(to, p)
                && m_plan.partitions()[static_cast<std::size_t>(to)].target == target
                && std::find(readers.begin(), readers.end(), to) == readers.end())
                readers.push_back(to);
        }
        if (readers.empty())
            continue;
        auto [closure, flops] = closureOf(p);
        const std::optional<std::int64_t> bytes = m_graph.tensorType(TensorRef { p, 0 }).byteSize();
        if (isTupleLike(m_graph, TensorRef { p, 0 }) || !replicationIsCheaper(flops, bytes)
            || !replicable(m_graph, closure))
            continue;
        std::sort(readers.begin(), readers.end());
        ReplicatedValue value {
            TensorRef { p, 0 }, m_plan.partitionOf(p), {}, closure, flops, bytes
        };
        for (int to : readers) {
            value.readers.push_back(m_plan.partitions()[static_cast<std::size_t>(to)].id);
            for (NodeId n : closure) {
                if (m_plan.indexOf(m_plan.partitionOf(n)) != to && !replicates(to, n))
                    m_replicaOf[n.value].push_back(to);
            }
        }
        m_table.replicated.push_back(std::move(value));
    }
    for (const auto &[node, partitions] : m_replicaOf) {
        for (int to : partitions)
            m_table.interfaces[static_cast<std::size_t>(to)].replicas.emplace_back(node);
    }
    for (PartitionInterface &iface : m_table.interfaces) {
        std::sort(iface.replicas.begin(), iface.replicas.end(),
                  [&](NodeId a, NodeId b) { return m_view.position(a) < m_view.position(b); });
    }
}

// Crossing tensors, producer by producer in program order (edges are ordered by consumer).
void BoundaryBuilder::collectCrossings()
{
    for (NodeId p : m_view.assignableNodes()) {
        const int from = m_plan.indexOf(m_plan.partitionOf(p));
        if (from < 0)
            continue;
        const std::size_t firstEntry = m_table.tensors.size();
        for (const FlowEdge &e : m_view.outEdges(p)) {
            const int to = m_plan.indexOf(m_plan.partitionOf(e.consumer));
            if (to < 0 || to == from || replicates(to, p))
                continue;
            for (const auto &field : crossingFields(e))
                recordCrossing(p, e, field, to, firstEntry);
        }
        for (std::size_t i = firstEntry; i < m_table.tensors.size(); ++i) {
            BoundaryTensor &b = m_table.tensors[i];
            std::sort(b.consumers.begin(), b.consumers.end(),
                      [&](const BoundaryConsumer &x, const BoundaryConsumer &y) {
                          return m_plan.indexOf(x.partition) < m_plan.indexOf(y.partition);
                      });
            m_outputs[static_cast<std::size_t>(from)].push_back(
                PartitionOutput { b.tensor, b.field, static_cast<int>(i), -1 });
        }
    }
}

// Global outputs of the function join their producer partition's outputs.
void BoundaryBuilder::addGlobalOutputs()
{
    const std::vector<TensorRef> globalOutputs = m_graph.outputs(m_view.function());
    for (std::size_t k = 0; k < globalOutputs.size(); ++k) {
        const TensorRef t = globalOutputs[k];
        if (!t.isValid() || !m_view.isAssignable(t.node))
            continue;
        const int at = m_plan.indexOf(m_plan.partitionOf(t.node));
        if (at < 0)
            continue;
        auto &list = m_outputs[static_cast<std::size_t>(at)];
        auto it = std::find_if(list.begin(), list.end(), [&](const PartitionOutput &o) {
            return o.tensor == t && !o.field && o.globalOutput < 0;
        });
        if (it != list.end())
            it->globalOutput = static_cast<int>(k);
        else
            list.push_back(PartitionOutput { t, std::nullopt, -1, static_cast<int>(k) });
    }
}

// Global inputs: every partition reading one (with its own nodes or its replicas) gets it
// under its own name.
void BoundaryBuilder::addGlobalInputs()
{
    for (NodeId in : m_view.inputs()) {
        std::vector<int> seen;
        for (const FlowEdge &e : m_view.outEdges(in)) {
            std::vector<int> readers { m_plan.indexOf(m_plan.partitionOf(e.consumer)) };
            if (auto it = m_replicaOf.find(e.consumer.value); it != m_replicaOf.end())
                readers.insert(readers.end(), it->second.begin(), it->second.end());
            for (const int to : readers) {
                if (to < 0 || std::find(seen.begin(), seen.end(), to) != seen.end())
                    continue;
                seen.push_back(to);
                m_inputs[static_cast<std::size_t>(to)].push_back(PendingInput {
                    { m_view.position(e.consumer), e.user != e.consumer, e.input }, in, -1 });
            }
        }
    }
}

// Inputs: partition order, then first use; cut inputs take the next data_n_<k>.
void BoundaryBuilder::nameInputs()
{
    int counter = 0;
    m_firstName.assign(m_table.tensors.size(), -1);
    for (std::size_t i = 0; i < m_plan.partitionCount(); ++i) {
        PartitionInterface &iface = m_table.interfaces[i];
        iface.partition = m_plan.partitions()[i].id;
        auto &pending = m_inputs[i];
        std::stable_sort(
            pending.begin(), pending.end(),
            [](const PendingInput &a, const PendingInput &b) { return a.firstUse < b.firstUse; });
        for (const PendingInput &in : pending) {
            if (in.boundary < 0) {
                iface.inputs.push_back(PartitionInput { globalInputName(m_graph, in.globalInput),
                                                        in.globalInput, -1 });
                continue;
            }
            const auto boundary = static_cast<std::size_t>(in.boundary);
            BoundaryTensor &b = m_table.tensors[boundary];
            if (m_firstName[boundary] < 0)
                m_firstName[boundary] = counter;
            const std::string name = "data_n_" + std::to_string(counter++);
            for (BoundaryConsumer &c : b.consumers) {
                if (c.partition == iface.partition)
                    c.inputName = name;
            }
            iface.inputs.push_back(PartitionInput { name, {}, in.boundary });
            iface.bytesIn = satAdd(iface.bytesIn, b.bytes.value_or(0));
        }
    }
}

// Outputs as graph_split orders them: by first reference (the lowest data_n_<k> fed),
// then the global outputs that feed no other partition, in global output order.
void BoundaryBuilder::orderOutputs()
{
    for (std::size_t i = 0; i < m_plan.partitionCount(); ++i) {
        PartitionInterface &iface = m_table.interfaces[i];
        auto &outs = m_outputs[i];
        auto key = [&](const PartitionOutput &o) {
            if (o.boundary >= 0)
                return std::make_pair(0, m_firstName[static_cast<std::size_t>(o.boundary)]);
            return std::make_pair(1, o.globalOutput);
        };
        std::stable_sort(
            outs.begin(), outs.end(),
            [&](const PartitionOutput &a, const PartitionOutput &b) { return key(a) < key(b); });
        for (std::size_t k = 0; k < outs.size(); ++k) {
            if (outs[k].boundary >= 0) {
                BoundaryTensor &b = m_table.tensors[static_cast<std::size_t>(outs[k].boundary)];
                b.outputIndex = static_cast<std::uint32_t>(k);
                iface.bytesOut = satAdd(iface.bytesOut, b.bytes.value_or(0));
            }
        }
        iface.outputs = std::move(outs);
    }
}

// The table reads in pipeline order: producer partition, then output index.
BoundaryTable BoundaryBuilder::takeInPipelineOrder()
{
    std::vector<int> remap(m_table.tensors.size());
    std::vector<std::size_t> order(m_table.tensors.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const BoundaryTensor &x = m_table.tensors[a];
        const BoundaryTensor &y = m_table.tensors[b];
        return std::make_pair(m_plan.indexOf(x.producerPartition), x.outputIndex)
            < std::make_pair(m_plan.indexOf(y.producerPartition), y.outputIndex);
    });
    std::vector<BoundaryTensor> sorted;
    sorted.reserve(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        remap[order[i]] = static_cast<int>(i);
        sorted.push_back(std::move(m_table.tensors[order[i]]));
    }
    m_table.tensors = std::move(sorted);
    for (PartitionInterface &iface : m_table.interfaces) {
        for (PartitionInput &in : iface.inputs) {
            if (in.boundary >= 0)
                in.boundary = remap[static_cast<std::size_t>(in.boundary)];
        }
        for (PartitionOutput &out : iface.outputs) {
            if (out.boundary >= 0)
                out.boundary = remap[static_cast<std::size_t>(out.boundary)];
        }
    }
    return std::move(m_table);
}

} // namespace

BoundaryTable computeBoundary(const PartitionPlan &plan)
{
    BoundaryBuilder builder(plan);
    builder.replicateWeightValues();
    builder.collectCrossings();
    builder.addGlobalOutputs();
    builder.addGlobalInputs();
    builder.nameInputs();
    builder.orderOutputs();
    return builder.takeInPipelineOrder();
}

} // namespace cleave
