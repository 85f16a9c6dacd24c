// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace cleave::relax {

/// What is wrong in a Relax metadata header, and where: the element `index` of its top-level
/// array `array` ("nodes" or "b64ndarrays").
struct MetadataProblem
{
    std::string message;
    std::string array;
    std::size_t index = 0;
};

/// Checks what TVM's `tvm.ir.load_json` would refuse in a metadata header that parsed as JSON,
/// so that no export copies it: every tensor payload (`b64ndarrays` and TVM 0.27's `ffi.Tensor`
/// nodes) loads as a tensor (tensorPayloadProblem), a legacy constant's `data` indexes an
/// existing payload, every element of an Array or Map node (legacy `Array`/`Map`, tvm-ffi
/// `ffi.Array`/`ffi.Map`) references an existing node, and no container reaches itself (a
/// cycle). The first problem found, or nullopt.
std::optional<MetadataProblem> checkRelaxMetadata(const nlohmann::json &doc);

/// The 1-based line and column in `source` of byte `offset` of a string literal's decoded value
/// `decoded`, the literal (`"""...`, `"...`, `'...`) starting at `line`:`column` of `source`.
/// Escapes (`\"`, `\\`, `\xHH`, `\uXXXX`, ...) are walked so that the column is the source's.
std::pair<int, int> literalPosition(std::string_view source, int line, int column,
                                    std::string_view decoded, std::size_t offset);

} // namespace cleave::relax
