// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/FusionAnalysis.h"
#include "core/graph/Graph.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cleave {

/// The user-facing name of a tensor: the producer's key (`%12`), with `:k` for output k > 0
/// (`tvmgen_default_mera_drp_0:1`).
std::string tensorLabel(const Graph &graph, TensorRef tensor);

/// The blocks as the JSON array `cleave-cli inspect --json --blocks` prints under
/// `blocks`: one object per block with `name`, `pattern`, `nodes` (node keys in
/// post-order), `ops` (op names in post-order), `inputs` and `outputs` (tensor labels), and
/// `function` (the called function's name) for a call of an existing function.
nlohmann::json fusedBlocksToJson(const Graph &graph, const std::vector<FusedBlock> &blocks);

/// A readable listing: a `Fused blocks (N)` heading, then one line per block with its name,
/// node count, ops in order and input/output tensors.
std::string fusedBlocksToText(const Graph &graph, const std::vector<FusedBlock> &blocks);

} // namespace cleave
