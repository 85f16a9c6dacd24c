// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Type.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace cleave::relax {

/// The types of the constants a Relax metadata header holds, per table (`"ir.GenericConst"` in
/// TVM 0.27, `"relax.expr.Constant"` before), in index order: `metadata["ir.GenericConst"][3]`
/// has type `result["ir.GenericConst"][3]`. Read from each constant's own type in the header:
/// TVM 0.27's tvm-ffi graph (`root_index`; a GenericConst's `ty`, a `relax.TensorType` whose
/// `shape` is a ShapeExpr of `ir.IntImm`s and whose `dtype` is an `ir.PrimType`) and the legacy
/// graph (`root`; a Constant's `struct_info_`, a `relax.TensorStructInfo` with `dtype` and
/// `shape`). A constant whose type the header does not give, or gives in a form not listed here,
/// is Type::Kind::Unknown; a dim that is not an integer is unknown. Never throws on a malformed
/// document: what cannot be read is unknown.
std::map<std::string, std::vector<Type>, std::less<>>
metadataConstantTypes(const nlohmann::json &doc);

} // namespace cleave::relax
