// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/io/Importer.h"

#include <string>
#include <string_view>

namespace cleave {

/// Reads TVM graph-executor JSON (`graph.json`, `deploy.json`: what `relay.build(...)`'s
/// `get_graph_json()` writes, NNVM-era files included) into a Graph with one global function
/// `main`.
///
/// Mapping:
/// - every `tvm_op` node becomes an OpCall whose `op` is `attrs.func_name`, named after the JSON
///   node; its attributes are kept (num_inputs, num_outputs and flatten_data as Int, everything
///   else as String) and it has one output type per output, taken from `attrs.shape` /
///   `attrs.dltype` at entry id `node_row_ptr[nid] + index`;
/// - a `null` node is a Constant when its name looks like a parameter (see isParameterName()),
///   otherwise an Input, i.e. a parameter of `main`;
/// - `heads` become the result of `main`: the head node itself when there is one single-output
///   head, else a Tuple node named `heads`.
/// `attr` is accepted for `attrs`, 2-element `[nid, index]` inputs for triples, and a missing
/// `node_row_ptr` is computed from `num_outputs`. Problems (bad JSON, missing keys, ids out of
/// range, num_outputs contradicting node_row_ptr, cycles) are errors located at the JSON node,
/// and no graph is returned then.
class GraphJsonImporter final : public Importer
{
public:
    [[nodiscard]] std::string formatName() const override { return "graph.json"; }
    /// Files named `*.json` whose first bytes hold both `"nodes"` and `"node_row_ptr"` or
    /// `"heads"`.
    [[nodiscard]] bool canRead(std::string_view path, std::string_view head) const override;
    [[nodiscard]] ImportResult importBytes(std::string_view bytes,
                                           const std::string &path) const override;

    /// The rule that tells weights from graph inputs among `null` nodes, which graph.json does
    /// not record. True for `p<digits>` (Relay-era params, the keys of `lib.params`), for names
    /// starting with `_param_` (NNVM) and for names ending in a weight-like suffix
    /// (`_weight`, `_bias`, `_gamma`, `_beta`, `_mean`, `_var`, `_moving_mean`, `_moving_var`,
    /// `_running_mean`, `_running_var`, `_scale`, `_shift`, `_expand`, `_const`): NNVM and
    /// unbound frontend params are named after their layer. Everything else (`data`,
    /// `input0`, `input1`) is a graph input.
    [[nodiscard]] static bool isParameterName(std::string_view name);
};

} // namespace cleave
