// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cleave {

class LatencyTable;

/// The name of a boundary tensor as reports print it: the producer's key, `:<output>` for
/// outputs other than 0, `.<field>` for a tuple field (`%3`, `%1.0`).
std::string boundaryTensorName(const Graph &graph, const BoundaryTensor &tensor);

/// Diagnostics as JSON objects: severity, code, message, node keys, partition name, location.
nlohmann::json diagnosticsToJson(const PartitionPlan *plan, const Graph &graph,
                                 const std::vector<Diagnostic> &diagnostics);

/// The machine-readable partition report (what `cleave-cli partition --json` prints):
/// `{"partitions": [...], "boundary": [{"tensor", "shape", "dtype", "bytes", "producer":
/// {"partition", "node", "output_index"}, "consumers": [{"partition", "input_name",
/// "nodes"}]}], "diagnostics": [...]}`. Partitions carry name, target, ops, FLOPs, parameter
/// and boundary bytes, node keys, inputs and outputs.
/// With `latency`, partitions also carry `latency_us` and `latency_missing`.
nlohmann::json planReportJson(const PartitionPlan &plan, const BoundaryTable &boundary,
                              const std::vector<Diagnostic> &diagnostics,
                              const LatencyTable *latency = nullptr);

/// The same report as text: a partition table, the boundary table and the diagnostics.
/// With `latency`, the partition table gains a latency column.
std::string planReportText(const PartitionPlan &plan, const BoundaryTable &boundary,
                           const std::vector<Diagnostic> &diagnostics,
                           const LatencyTable *latency = nullptr);

} // namespace cleave
