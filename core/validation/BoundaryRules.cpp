// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Rules on what crosses between partitions: global inputs, tuples, implied edges, constants.
#include "core/analysis/Cost.h"
#include "core/analysis/WeightInputs.h"
#include "core/support/Saturating.h"
#include "core/validation/RuleSupport.h"
#include "core/validation/Validation.h"

#include <algorithm>
#include <map>

namespace cleave {

using namespace rules;

namespace {

/// The plan indices of the partitions reading `producer`, in plan order, plus the readers;
/// empty when fewer than two partitions read it.
std::vector<int> readers(const PartitionPlan &plan, NodeId producer, std::vector<NodeId> *nodes)
{
    std::vector<int> parts;
    // Fast path for the common case of one reading partition: nothing to allocate.
    PartitionId only;
    bool several = false;
    for (const FlowEdge &e : plan.view().outEdges(producer)) {
        const PartitionId p = plan.partitionOf(e.consumer);
        if (!p.isValid())
            continue;
        if (only.isValid() && p != only) {
            several = true;
            break;
        }
        only = p;
    }
    if (!several)
        return parts;
    for (const FlowEdge &e : plan.view().outEdges(producer)) {
        const int i = plan.indexOf(plan.partitionOf(e.consumer));
        if (i < 0)
            continue;
        if (std::find(parts.begin(), parts.end(), i) == parts.end())
            parts.push_back(i);
        if (nodes && (nodes->empty() || nodes->back() != e.consumer))
            nodes->push_back(e.consumer);
    }
    std::sort(parts.begin(), parts.end());
    return parts;
}

std::string nameList(const PartitionPlan &plan, const std::vector<int> &indices)
{
    std::string text;
    for (int i : indices) {
        if (!text.empty())
            text += ", ";
        text += plan.partitions()[static_cast<std::size_t>(i)].name;
    }
    return text;
}

} // namespace

std::vector<Diagnostic> checkSharedGlobalInputs(const PartitionPlan &plan,
                                                const std::vector<std::string> &params,
                                                bool forwardsAnyValue)
{
    std::vector<Diagnostic> out;
    const Graph &g = plan.graph();
    const std::vector<WeightInput> weights = weightInputs(g, plan.function(), params);
    for (NodeId in : plan.view().inputs()) {
        if (isWeightInput(weights, in))
            continue; // a parameter: param_connection feeds every module that reads it
        std::vector<NodeId> users;
        const std::vector<int> parts = readers(plan, in, &users);
        if (parts.size() < 2)
            continue;
        users.insert(users.begin(), in); // the input first: diagnosticFix() names it
        const std::string inputName = globalInputName(g, in);
        const std::string first = plan.partitions()[static_cast<std::size_t>(parts.front())].name;
        const std::vector<int> rest(parts.begin() + 1, parts.end());
        const std::string read = "global input " + inputName + " is read by "
            + std::to_string(parts.size()) + " partitions (" + nameList(plan, parts) + ")";
        // The export forwards a tensor through its first reader (an extra output); only a value
        // the pipeline executor cannot carry as an output (a tuple, an ADT) has no route, unless
        // the writer's modules return and take any value (Relax).
        if (forwardsAnyValue || g.node(in).outputType().isTensor()
            || g.node(in).outputType().isUnknown()) {
            std::string message = read;
            message += "; the export forwards it: ";
            message += first;
            message += " returns it as an extra output feeding ";
            message += nameList(plan, rest);
            message += " (treat it as a parameter if it is a weight)";
            out.push_back(make(Severity::Info, "pipeline.routed_input", message, users,
                               plan.partitions()[static_cast<std::size_t>(parts.front())].id));
            continue;
        }
        out.push_back(make(Severity::Error, "pipeline.shared_global_input",
                           read
                               + "; the pipeline config binds a global input to one module only "
                                 "and its type "
                               + g.node(in).outputType().toRelay()
                               + " cannot be forwarded as a module output: treat it as a "
                                 "parameter (param_connection feeds each module)",
                           users, plan.partitions()[static_cast<std::size_t>(parts.front())].id));
    }
    return out;
}

std::vector<Diagnostic> checkTupleCrossings(const PartitionPlan &plan,
                                            const BoundaryTable &boundary)
{
    std::vector<Diagnostic> out;
    const Graph &g = plan.graph();
    for (std::size_t i = 0; i < boundary.tensors.size(); ++i) {
        const BoundaryTensor &b = boundary.tensors[i];
        if (!b.field)
            continue;
        // Entries of one tuple are adjacent per producer partition; report the tuple once.
        bool first = true;
        for (std::size_t j = 0; j < i; ++j) {
            if (boundary.tensors[j].tensor == b.tensor)
                first = false;
        }
        if (!first)
            continue;
        std::vector<std::string> fields;
        std::vector<NodeId> nodes { b.tensor.node };
        std::vector<int> to;
        for (const BoundaryTensor &f : boundary.tensors) {
            if (f.tensor != b.tensor)
                continue;
            fields.push_back(std::to_string(*f.field) + " (" + f.type.toShortString() + ")");
            for (const BoundaryConsumer &c : f.consumers) {
                const int idx = plan.indexOf(c.partition);
                if (std::find(to.begin(), to.end(), idx) == to.end())
                    to.push_back(idx);
                for (NodeId n : c.nodes) {
                    if (std::find(nodes.begin(), nodes.end(), n) == nodes.end())
                        nodes.push_back(n);
                }
            }
        }
        std::sort(to.begin(), to.end());
        std::string fieldText;
        for (const std::string &f : fields)
            fieldText += (fieldText.empty() ? "" : ", ") + f;
        const Node &producer = g.node(b.tensor.node);
        const std::string what
            = producer.kind == NodeKind::OpCall ? " (" + producer.op.str() + ")" : "";
        std::string message = "the tuple " + g.key(b.tensor.node);
        message += what;
        message += " crosses from ";
        message += name(plan, b.producerPartition);
        message += " to ";
        message += nameList(plan, to);
        message += "; the boundary carries its ";
        message += fields.size() == 1 ? "field " : "fields ";
        message += fieldText;
        message += " instead";
        out.push_back(make(Severity::Warning, "partition.tuple_crossing", message, nodes,
                           b.producerPartition));
    }
    return out;
}

std::vector<Diagnostic> checkImpliedEdges(const PartitionPlan &plan, const BoundaryTable &boundary)
{
    std::vector<Diagnostic> out;
    const auto &crossed = plan.crossedEdges();
    if (crossed.empty())
        return out;
    std::vector<std::pair<PartitionId, PartitionId>> cutPairs;
    cutPairs.reserve(crossed.size());
    for (const EdgeRef &e : crossed)
        cutPairs.emplace_back(plan.partitionOf(e.tensor.node), plan.partitionOf(e.consumer));
    const Graph &g = plan.graph();
    for (const BoundaryTensor &b : boundary.tensors) {
        for (const BoundaryConsumer &c : b.consumers) {
            const auto pair = std::make_pair(b.producerPartition, c.partition);
            if (std::find(cutPairs.begin(), cutPairs.end(), pair) == cutPairs.end())
                continue;
            for (NodeId n : c.nodes) {
                const EdgeRef edge { b.tensor, n };
                if (std::binary_search(crossed.begin(), crossed.end(), edge))
                    continue;
                out.push_back(make(Severity::Warning, "partition.implied_edge",
                                   "the edge " + g.key(b.tensor.node) + " -> " + g.key(n)
                                       + " was not crossed by the cut line but is severed by it: "
                                       + name(plan, b.producerPartition) + " sends "
                                       + g.key(b.tensor.node) + " to " + name(plan, c.partition)
                                       + " as " + c.inputName,
                                   { b.tensor.node, n }, c.partition));
            }
        }
    }
    return out;
}

std::vector<Diagnostic> checkDuplicatedConstants(const PartitionPlan &plan)
{
    std::vector<Diagnostic> out;
    const Graph &g = plan.graph();
    for (NodeId c : plan.view().constants()) {
        std::vector<NodeId> users;
        const std::vector<int> parts = readers(plan, c, &users);
        if (parts.size() < 2)
            continue;
        const std::int64_t bytes = g.node(c).outputType(0).byteSize().value_or(0);
        const std::string ref = g.node(c).metaRef().empty() ? "" : " (" + g.node(c).metaRef() + ")";
        out.push_back(make(Severity::Info, "partition.duplicated_constant",
                           "constant " + g.key(c) + ref + ", " + humanBytes(bytes) + ", is used by "
                               + std::to_string(parts.size()) + " partitions ("
                               + nameList(plan, parts) + ") and duplicated: "
                               + humanBytes(bytes * static_cast<std::int64_t>(parts.size() - 1))
                               + " extra",
                           users));
    }
    return out;
}

std::vector<Diagnostic> summarizeBoundary(const PartitionPlan &plan, const BoundaryTable &boundary)
{
    std::map<std::pair<int, int>, std::pair<std::size_t, std::int64_t>> pairs;
    for (const BoundaryTensor &b : boundary.tensors) {
        for (const BoundaryConsumer &c : b.consumers) {
            auto &[count, bytes]
                = pairs[{ plan.indexOf(b.producerPartition), plan.indexOf(c.partition) }];
            ++count;
            bytes = satAdd(bytes, b.bytes.value_or(0));
        }
    }
    std::vector<Diagnostic> out;
    for (const auto &[key, value] : pairs) {
        const Partition &from = plan.partitions()[static_cast<std::size_t>(key.first)];
        const Partition &to = plan.partitions()[static_cast<std::size_t>(key.second)];
        out.push_back(make(Severity::Info, "partition.boundary",
                           plural(value.first, "tensor", "tensors") + ", "
                               + humanBytes(value.second) + " cross from " + from.name + " to "
                               + to.name,
                           {}, from.id));
    }
    return out;
}

} // namespace cleave
