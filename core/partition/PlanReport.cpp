// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/PlanReport.h"

#include "core/analysis/Cost.h"
#include "core/partition/DiagnosticFix.h"
#include "core/partition/PartitionCost.h"
#include "core/support/Saturating.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace cleave {

namespace {

nlohmann::json shapeJson(const Type &type)
{
    nlohmann::json shape = nlohmann::json::array();
    for (const Dim &d : type.shape) {
        if (d.isKnown())
            shape.push_back(d.value);
        else if (!d.symbol.empty())
            shape.push_back(d.symbol);
        else
            shape.push_back(nullptr);
    }
    return shape;
}

std::string partitionName(const PartitionPlan &plan, PartitionId id)
{
    const Partition *p = plan.partition(id);
    return p ? p->name : "#" + std::to_string(id.value);
}

/// Left-aligned columns, two spaces apart.
std::string table(const std::vector<std::vector<std::string>> &rows)
{
    std::vector<std::size_t> width;
    auto displayWidth = [](const std::string &s) {
        // Count UTF-8 code points, not bytes, so `×` takes one column.
        return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
            return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
        }));
    };
    for (const auto &row : rows) {
        width.resize(std::max(width.size(), row.size()), 0);
        for (std::size_t i = 0; i < row.size(); ++i)
            width[i] = std::max(width[i], displayWidth(row[i]));
    }
    std::string out;
    for (const auto &row : rows) {
        std::string line = "  ";
        for (std::size_t i = 0; i < row.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size())
                line += std::string(width[i] - displayWidth(row[i]) + 2, ' ');
        }
        out += line + "\n";
    }
    return out;
}

} // namespace

std::string boundaryTensorName(const Graph &graph, const BoundaryTensor &tensor)
{
    std::string name = graph.key(tensor.tensor.node);
    if (tensor.tensor.output != 0)
        name += ":" + std::to_string(tensor.tensor.output);
    if (tensor.field)
        name += "." + std::to_string(*tensor.field);
    return name;
}

nlohmann::json diagnosticsToJson(const PartitionPlan *plan, const Graph &graph,
                                 const std::vector<Diagnostic> &diagnostics)
{
    nlohmann::json out = nlohmann::json::array();
    for (const Diagnostic &d : diagnostics) {
        nlohmann::json nodes = nlohmann::json::array();
        for (NodeId n : d.nodes) {
            if (n.isValid() && n.index() < graph.nodeCount())
                nodes.push_back(graph.key(n));
        }
        nlohmann::json item { { "severity", severityName(d.severity) },
                              { "code", d.code },
                              { "message", d.message },
                              { "nodes", nodes } };
        item["partition"] = d.partition && plan ? nlohmann::json(partitionName(*plan, *d.partition))
                                                : nlohmann::json(nullptr);
        if (!d.where.file.empty() || d.where.isValid())
            item["location"] = d.where.toString();
        if (const auto fix = diagnosticFix(graph, d))
            item["fix"] = { { "action", fix->action },
                            { "label", fix->label },
                            { "arguments", fix->arguments } };
        out.push_back(std::move(item));
    }
    return out;
}

nlohmann::json planReportJson(const PartitionPlan &plan, const BoundaryTable &boundary,
                              const std::vector<Diagnostic> &diagnostics,
                              const LatencyTable *latency)
{
    const Graph &g = plan.graph();
    const std::vector<PartitionCost> costs = partitionCosts(plan, boundary, latency);
    nlohmann::json partitions = nlohmann::json::array();
    for (std::size_t i = 0; i < plan.partitionCount(); ++i) {
        const Partition &p = plan.partitions()[i];
        const PartitionCost &c = costs[i];
        nlohmann::json nodes = nlohmann::json::array();
        for (NodeId n : plan.nodesOf(p.id))
            nodes.push_back(g.key(n));
        nlohmann::json inputs = nlohmann::json::array();
        nlohmann::json outputs = nlohmann::json::array();
        if (i < boundary.interfaces.size()) {
            for (const PartitionInput &in : boundary.interfaces[i].inputs)
                inputs.push_back(in.name);
            for (std::size_t k = 0; k < boundary.interfaces[i].outputs.size(); ++k) {
                const PartitionOutput &o = boundary.interfaces[i].outputs[k];
                BoundaryTensor named;
                named.tensor = o.tensor;
                named.field = o.field;
                nlohmann::json out { { "output_index", k },
                                     { "tensor", boundaryTensorName(g, named) } };
                out["global_output"] = o.globalOutput >= 0 ? nlohmann::json(o.globalOutput)
                                                           : nlohmann::json(nullptr);
                outputs.push_back(std::move(out));
            }
        }
        partitions.push_back({ { "index", i },
                               { "name", p.name },
                               { "target", p.target },
                               { "ops", c.ops },
                               { "flops", c.flops },
                               { "ops_without_shapes", c.opsWithoutShapes },
                               { "param_bytes", c.paramBytes },
                               { "output_bytes", c.outputBytes },
                               { "boundary_bytes_in", c.boundaryBytesIn },
                               { "boundary_bytes_out", c.boundaryBytesOut },
                               { "inputs", inputs },
                               { "outputs", outputs },
                               { "nodes", nodes } });
        if (c.latencyUs) {
            partitions.back()["latency_us"] = *c.latencyUs;
            partitions.back()["latency_missing"] = c.latencyMissing;
        }
    }
    nlohmann::json tensors = nlohmann::json::array();
    for (const BoundaryTensor &b : boundary.tensors) {
        nlohmann::json consumers = nlohmann::json::array();
        for (const BoundaryConsumer &c : b.consumers) {
            nlohmann::json nodes = nlohmann::json::array();
            for (NodeId n : c.nodes)
                nodes.push_back(g.key(n));
            consumers.push_back({ { "partition", partitionName(plan, c.partition) },
                                  { "input_name", c.inputName },
                                  { "nodes", nodes } });
        }
        nlohmann::json item { { "tensor", boundaryTensorName(g, b) },
                              { "shape", shapeJson(b.type) },
                              { "dtype", b.type.dtype.str() } };
        item["bytes"] = b.bytes ? nlohmann::json(*b.bytes) : nlohmann::json(nullptr);
        item["producer"] = { { "partition", partitionName(plan, b.producerPartition) },
                             { "node", g.key(b.tensor.node) },
                             { "output_index", b.outputIndex } };
        item["consumers"] = std::move(consumers);
        tensors.push_back(std::move(item));
    }
    return { { "partitions", partitions },
             { "boundary", tensors },
             { "diagnostics", diagnosticsToJson(&plan, g, diagnostics) } };
}

std::string planReportText(const PartitionPlan &plan, const BoundaryTable &boundary,
                           const std::vector<Diagnostic> &diagnostics, const LatencyTable *latency)
{
    const Graph &g = plan.graph();
    const std::vector<PartitionCost> costs = partitionCosts(plan, boundary, latency);
    std::ostringstream out;
    out << "Partitions (" << plan.partitionCount() << "):\n";
    std::vector<std::vector<std::string>> rows { { "#", "name", "target", "ops", "FLOPs", "params",
                                                   "in", "out", "inputs" } };
    for (std::size_t i = 0; i < plan.partitionCount(); ++i) {
        const Partition &p = plan.partitions()[i];
        const PartitionCost &c = costs[i];
        std::string inputs;
        if (i < boundary.interfaces.size()) {
            for (const PartitionInput &in : boundary.interfaces[i].inputs)
                inputs += (inputs.empty() ? "" : ", ") + in.name;
        }
        rows.push_back({ std::to_string(i), p.name, p.target, std::to_string(c.ops),
                         flopsText(c.flops, c.opsWithoutShapes), humanBytes(c.paramBytes),
                         humanBytes(c.boundaryBytesIn), humanBytes(c.boundaryBytesOut), inputs });
        if (c.latencyUs) {
            char us[32];
            std::snprintf(us, sizeof us, "%.1f us", *c.latencyUs);
            rows.back().insert(rows.back().begin() + 5, us);
        }
    }
    if (latency)
        rows.front().insert(rows.front().begin() + 5, "latency");
    out << table(rows);
    std::int64_t flops = 0;
    std::size_t shapeless = 0;
    for (const PartitionCost &c : costs) {
        flops = satAdd(flops, c.flops);
        shapeless += c.opsWithoutShapes;
    }
    out << "FLOPs: " << flopsText(flops, shapeless);
    if (shapeless)
        out << ", " << shapeless << (shapeless == 1 ? " node" : " nodes")
            << " without shapes (their FLOPs are not counted)";
    out << '\n';

    out << "\nBoundary tensors (" << boundary.tensors.size() << "):\n";
    if (!boundary.tensors.empty()) {
        rows = { { "tensor", "type", "bytes", "producer", "consumers" } };
        for (const BoundaryTensor &b : boundary.tensors) {
            std::string consumers;
            for (const BoundaryConsumer &c : b.consumers) {
                std::string nodes;
                for (NodeId n : c.nodes)
                    nodes += (nodes.empty() ? "" : ", ") + g.key(n);
                consumers += (consumers.empty() ? "" : "; ") + partitionName(plan, c.partition)
                    + "." + c.inputName + " (" + nodes + ")";
            }
            rows.push_back({ boundaryTensorName(g, b), b.type.toShortString(),
                             b.bytes ? humanBytes(*b.bytes) : "?",
                             partitionName(plan, b.producerPartition) + ".output("
                                 + std::to_string(b.outputIndex) + ")",
                             consumers });
        }
        out << table(rows);
    }

    out << "\nDiagnostics (" << diagnostics.size() << "):\n";
    for (const Diagnostic &d : diagnostics) {
        out << "  " << d.toString() << '\n';
        if (const auto fix = diagnosticFix(g, d); fix && fix->action == "mark_params") {
            std::string names;
            for (const std::string &a : fix->arguments)
                names += (names.empty() ? "" : ",") + a;
            out << "    fix: " << fix->label << " (--params " << names << ")\n";
        }
    }
    return out.str();
}

} // namespace cleave
