// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/BoundaryTensors.h"

#include <algorithm>
#include <tuple>

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

std::string globalInputName(const Graph &graph, NodeId input)
{
    const std::string &name = graph.node(input).name;
    if (!name.empty() && name.front() == '%')
        return name.substr(1);
    return name.empty() ? graph.key(input) : name;
}

BoundaryTable computeBoundary(const PartitionPlan &plan)
{
    const FunctionView &view = plan.view();
    const Graph &g = view.graph();
    BoundaryTable table;

    const std::size_t partitionCount = plan.partitionCount();
    std::vector<std::vector<PendingInput>> inputs(partitionCount);
    std::vector<std::vector<PartitionOutput>> outputs(partitionCount);

    // Crossing tensors, producer by producer in program order (edges are ordered by consumer).
    for (NodeId p : view.assignableNodes()) {
        const int from = plan.indexOf(plan.partitionOf(p));
        if (from < 0)
            continue;
        const std::size_t firstEntry = table.tensors.size();
        for (const FlowEdge &e : view.outEdges(p)) {
            const int to = plan.indexOf(plan.partitionOf(e.consumer));
            if (to < 0 || to == from)
                continue;
            const PartitionId toId = plan.partitions()[static_cast<std::size_t>(to)].id;
            std::vector<std::optional<std::uint32_t>> fields;
            if (isTupleLike(g, e.tensor)) {
                const Node &reader = g.node(e.user);
                if (e.user == e.consumer && reader.kind == NodeKind::TupleGetItem)
                    fields.emplace_back(reader.index);
                else
                    for (std::uint32_t k = 0; k < fieldCount(g, e.tensor); ++k)
                        fields.emplace_back(k);
            } else {
                fields.emplace_back(std::nullopt);
            }
            for (const auto &field : fields) {
                auto it = std::find_if(table.tensors.begin() + static_cast<long>(firstEntry),
                                       table.tensors.end(), [&](const BoundaryTensor &b) {
                                           return b.tensor == e.tensor && b.field == field;
                                       });
                if (it == table.tensors.end()) {
                    BoundaryTensor b;
                    b.tensor = e.tensor;
                    b.field = field;
                    b.producerPartition = plan.partitionOf(p);
                    b.type = field ? fieldType(g, e.tensor, *field) : g.tensorType(e.tensor);
                    b.bytes = b.type.byteSize();
                    table.tensors.push_back(std::move(b));
                    it = table.tensors.end() - 1;
                }
                auto group
                    = std::find_if(it->consumers.begin(), it->consumers.end(),
                                   [&](const BoundaryConsumer &c) { return c.partition == toId; });
                const int boundaryIndex = static_cast<int>(it - table.tensors.begin());
                if (group == it->consumers.end()) {
                    it->consumers.push_back(BoundaryConsumer { toId, {}, {} });
                    group = it->consumers.end() - 1;
                    inputs[static_cast<std::size_t>(to)].push_back(
                        PendingInput { { view.position(e.consumer), e.user != e.consumer, e.input },
                                       {},
                                       boundaryIndex });
                }
                if (group->nodes.empty() || group->nodes.back() != e.consumer)
                    group->nodes.push_back(e.consumer);
            }
        }
        for (std::size_t i = firstEntry; i < table.tensors.size(); ++i) {
            BoundaryTensor &b = table.tensors[i];
            std::sort(b.consumers.begin(), b.consumers.end(),
                      [&](const BoundaryConsumer &x, const BoundaryConsumer &y) {
                          return plan.indexOf(x.partition) < plan.indexOf(y.partition);
                      });
            outputs[static_cast<std::size_t>(from)].push_back(
                PartitionOutput { b.tensor, b.field, static_cast<int>(i), -1 });
        }
    }

    // Global outputs of the function join their producer partition's outputs.
    const std::vector<TensorRef> globalOutputs = g.outputs(view.function());
    for (std::size_t k = 0; k < globalOutputs.size(); ++k) {
        const TensorRef t = globalOutputs[k];
        if (!t.isValid() || !view.isAssignable(t.node))
            continue;
        const int at = plan.indexOf(plan.partitionOf(t.node));
        if (at < 0)
            continue;
        auto &list = outputs[static_cast<std::size_t>(at)];
        auto it = std::find_if(list.begin(), list.end(), [&](const PartitionOutput &o) {
            return o.tensor == t && !o.field && o.globalOutput < 0;
        });
        if (it != list.end())
            it->globalOutput = static_cast<int>(k);
        else
            list.push_back(PartitionOutput { t, std::nullopt, -1, static_cast<int>(k) });
    }

    // Global inputs: every partition reading one gets it under its own name.
    for (NodeId in : view.inputs()) {
        std::vector<int> seen;
        for (const FlowEdge &e : view.outEdges(in)) {
            const int to = plan.indexOf(plan.partitionOf(e.consumer));
            if (to < 0 || std::find(seen.begin(), seen.end(), to) != seen.end())
                continue;
            seen.push_back(to);
            inputs[static_cast<std::size_t>(to)].push_back(PendingInput {
                { view.position(e.consumer), e.user != e.consumer, e.input }, in, -1 });
        }
    }

    // Inputs: partition order, then first use; cut inputs take the next data_n_<k>.
    int counter = 0;
    std::vector<int> firstName(table.tensors.size(), -1);
    table.interfaces.resize(partitionCount);
    for (std::size_t i = 0; i < partitionCount; ++i) {
        PartitionInterface &iface = table.interfaces[i];
        iface.partition = plan.partitions()[i].id;
        auto &pending = inputs[i];
        std::stable_sort(
            pending.begin(), pending.end(),
            [](const PendingInput &a, const PendingInput &b) { return a.firstUse < b.firstUse; });
        for (const PendingInput &in : pending) {
            if (in.boundary >= 0) {
                BoundaryTensor &b = table.tensors[static_cast<std::size_t>(in.boundary)];
                if (firstName[static_cast<std::size_t>(in.boundary)] < 0)
                    firstName[static_cast<std::size_t>(in.boundary)] = counter;
                const std::string name = "data_n_" + std::to_string(counter++);
                for (BoundaryConsumer &c : b.consumers) {
                    if (c.partition == iface.partition)
                        c.inputName = name;
                }
                iface.inputs.push_back(PartitionInput { name, {}, in.boundary });
                iface.bytesIn += b.bytes.value_or(0);
            } else {
                iface.inputs.push_back(
                    PartitionInput { globalInputName(g, in.globalInput), in.globalInput, -1 });
            }
        }
    }
    // Outputs as graph_split orders them: by first reference (the lowest data_n_<k> fed),
    // then the global outputs that feed no other partition, in global output order.
    for (std::size_t i = 0; i < partitionCount; ++i) {
        PartitionInterface &iface = table.interfaces[i];
        auto &outs = outputs[i];
        auto key = [&](const PartitionOutput &o) {
            if (o.boundary >= 0)
                return std::make_pair(0, firstName[static_cast<std::size_t>(o.boundary)]);
            return std::make_pair(1, o.globalOutput);
        };
        std::stable_sort(
            outs.begin(), outs.end(),
            [&](const PartitionOutput &a, const PartitionOutput &b) { return key(a) < key(b); });
        for (std::size_t k = 0; k < outs.size(); ++k) {
            if (outs[k].boundary >= 0) {
                BoundaryTensor &b = table.tensors[static_cast<std::size_t>(outs[k].boundary)];
                b.outputIndex = static_cast<std::uint32_t>(k);
                iface.bytesOut += b.bytes.value_or(0);
            }
        }
        iface.outputs = std::move(outs);
    }

    // The table reads in pipeline order: producer partition, then output index.
    std::vector<int> remap(table.tensors.size());
    std::vector<std::size_t> order(table.tensors.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const BoundaryTensor &x = table.tensors[a], &y = table.tensors[b];
        return std::make_pair(plan.indexOf(x.producerPartition), x.outputIndex)
            < std::make_pair(plan.indexOf(y.producerPartition), y.outputIndex);
    });
    std::vector<BoundaryTensor> sorted;
    sorted.reserve(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        remap[order[i]] = static_cast<int>(i);
        sorted.push_back(std::move(table.tensors[order[i]]));
    }
    table.tensors = std::move(sorted);
    for (PartitionInterface &iface : table.interfaces) {
        for (PartitionInput &in : iface.inputs) {
            if (in.boundary >= 0)
                in.boundary = remap[static_cast<std::size_t>(in.boundary)];
        }
        for (PartitionOutput &out : iface.outputs) {
            if (out.boundary >= 0)
                out.boundary = remap[static_cast<std::size_t>(out.boundary)];
        }
    }
    return table;
}

} // namespace cleave
