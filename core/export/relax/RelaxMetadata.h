// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// `metadata["relax.expr.Constant"][3]` (TVM <= 0.26) or `metadata["ir.GenericConst"][3]`
/// (TVM 0.27) → 3; nullopt for other references.
std::optional<std::size_t> relaxConstantIndex(const std::string &metaRef);

/// The metadata JSON (TVM's node graph, as `tvm.ir.save_json` writes it) of a module that keeps
/// `constants` (source indices, in module order: the module's `metadata["relax.expr.Constant"]
/// [i]` is the source's `[constants[i]]`) of the source's `relax.expr.Constant` table. The nodes
/// no kept constant reaches (their struct info, shapes, types) and the tensor payloads
/// (`b64ndarrays`) of dropped constants are removed and the rest renumbered, node 0 staying the
/// null node. When the graph holds a node type whose reference fields Cleave does not know, or is
/// TVM 0.27's tvm-ffi graph (`root_index`, `ir.GenericConst`), the nodes are kept as they are
/// and only the table is cut down (still a valid document). Returns
/// nullopt when the source JSON cannot be read or an index is out of range.
std::optional<std::string> relaxMetadataSubset(const std::string &source,
                                               const std::vector<std::size_t> &constants);

/// The base64 payload of each `relax.expr.Constant` entry, by index; nullopt when unreadable.
std::optional<std::vector<std::string>> relaxConstantPayloads(const std::string &metadata);

} // namespace cleave
