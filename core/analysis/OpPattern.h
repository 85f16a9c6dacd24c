// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cleave {

/// How an operator may fuse with its neighbours: TVM's `OpPatternKind` (the `TOpPattern` op
/// attribute), with TVM's numeric values. Larger is more restrictive; combining two patterns
/// takes the maximum.
enum class OpPatternKind : int {
    ElemWise = 0, ///< One output element from the same input element (relu, exp, cast).
    Broadcast = 1, ///< Elementwise with broadcasting (add, multiply, nn.bias_add).
    Injective = 2, ///< Each output element from one input element (reshape, transpose).
    CommReduce = 3, ///< Commutative reduction (sum, mean, max).
    OutEWiseFusable = 4, ///< Complex op whose output can take an elementwise tail (conv2d, dense).
    Tuple = 7, ///< A tuple node.
    Opaque = 8, ///< Never fused (sort, device_copy, annotation.stop_fusion, unknown ops).
};

/// The lower-case name used in pattern files and reports: "elemwise", "broadcast",
/// "injective", "comm_reduce", "out_elemwise_fusable", "tuple", "opaque".
const char *opPatternName(OpPatternKind kind);

/// Parses a pattern name: the names opPatternName() gives, TVM's enumerator spellings
/// (`kElemWise`, `kOutEWiseFusable`, ...) in any case, or the numeric value as a string.
std::optional<OpPatternKind> opPatternFromName(std::string_view name);

/// The fusion pattern of every operator Cleave knows: TVM v0.14's `TOpPattern` registrations for
/// the common Relay ops, extensible at run time (custom ops, backend-specific kernels) from a
/// JSON file `{"my.op": "injective", ...}`. Unknown operators are Opaque, as in TVM.
class OpPatternTable
{
public:
    /// The built-in table (TVM's TOpPattern of each operator).
    static const OpPatternTable &builtin();

    /// The pattern of `op`; Opaque when the table does not know it.
    [[nodiscard]] OpPatternKind pattern(std::string_view op) const;
    /// True when the table has an entry for `op`.
    [[nodiscard]] bool contains(std::string_view op) const;
    [[nodiscard]] std::size_t size() const { return m_patterns.size(); }
    /// Every op name the table knows, in no particular order.
    [[nodiscard]] std::vector<std::string> opNames() const;

    /// Adds or overrides one entry.
    void set(std::string op, OpPatternKind kind);

    /// Adds or overrides entries from a JSON object mapping op names to pattern names (or
    /// numbers). Returns false and reports diagnostics (file:line:column for syntax errors) when
    /// the text is not such an object; entries with an unknown pattern name are reported and
    /// skipped. Never throws.
    bool loadJson(std::string_view text, const std::string &path,
                  std::vector<Diagnostic> &diagnostics);

private:
    std::unordered_map<std::string, OpPatternKind> m_patterns;
};

} // namespace cleave
