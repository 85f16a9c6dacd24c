// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <string>
#include <string_view>

namespace cleave {

/// Checks one tensor payload of a TVM metadata section (Relay's and Relax's `b64ndarrays`, a
/// TVM 0.27 `ffi.Tensor` node's data) as TVM's NDArray loader reads it: base64 of the magic
/// 0xDD5E40F096B4A13F, a reserved word, a CPU device, ndim, the dtype (code, bits > 0,
/// lanes > 0), ndim dims ≥ 0, the data's byte size, which must be the element count times the
/// element size, then that many bytes (TVM 0.27 loads a payload shorter than its declared size
/// with whatever memory follows as data; Cleave refuses it). Returns what is wrong ("not base64",
/// "the payload ends in its header", "declares 8 data bytes but holds 4", ...) or an empty string
/// when it loads.
std::string tensorPayloadProblem(std::string_view base64);

} // namespace cleave
