// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/AttrValue.h"
#include "core/graph/Type.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

/// Building blocks shared by the operator shape rules: dimension arithmetic that keeps unknown
/// dimensions unknown, tolerant attribute readers, padding normalisation and TVM data layouts.
namespace cleave::shapes {

// --- dimension arithmetic ---------------------------------------------------------------------
// Every result is a known extent only when every operand is; otherwise it is the dynamic `?`.
// Symbolic dims survive only where a rule copies them unchanged.

/// `a + b`.
Dim add(const Dim &a, std::int64_t b);
/// `a + b` for two dims.
Dim add(const Dim &a, const Dim &b);
/// `a · b`.
Dim mul(const Dim &a, const Dim &b);
/// `a · b` for a constant factor.
Dim mul(const Dim &a, std::int64_t b);
/// `⌊a / b⌋` (b > 0), as TVM's `indexdiv`.
Dim floorDiv(const Dim &a, std::int64_t b);
/// The product of all dims (1 for an empty list).
Dim product(std::span<const Dim> dims);
/// NumPy broadcasting of one dimension pair as TVM's BroadcastShape does it: equal dims stay,
/// a known 1 yields the other dim, `?` against a known extent yields that extent. Returns nullopt
/// when the dims are known to be incompatible.
std::optional<Dim> broadcast(const Dim &a, const Dim &b);
/// Broadcasts two shapes aligned on the right, or nullopt when incompatible.
std::optional<std::vector<Dim>> broadcastShapes(const std::vector<Dim> &a,
                                                const std::vector<Dim> &b);

/// Maps a possibly negative axis into [0, rank) (or [0, rank] when `allowEnd`), nullopt when out
/// of range.
std::optional<std::size_t> normaliseAxis(std::int64_t axis, std::size_t rank,
                                         bool allowEnd = false);

// --- attributes -------------------------------------------------------------------------------
// Relay text spells the same value in several ways (`True`, `1`, `"1"` in meta attrs, `None`);
// these readers accept all of them and treat `None` as absent.

/// An integer attribute (Int, Bool, or a numeric string), nullopt when absent or None.
std::optional<std::int64_t> intAttr(const Attributes &attrs, const std::string &key);
/// A boolean attribute with a default.
bool boolAttr(const Attributes &attrs, const std::string &key, bool fallback);
/// A float attribute (Float or Int), nullopt when absent.
std::optional<double> floatAttr(const Attributes &attrs, const std::string &key);
/// The number an attribute or scalar argument holds (an int widened), or nullopt for none or
/// another kind.
std::optional<double> scalarValue(const AttrValue *v);
/// A string attribute, `fallback` when absent, None or empty.
std::string stringAttr(const Attributes &attrs, const std::string &key,
                       const std::string &fallback);
/// An integer list attribute (a single int reads as a one-element list), nullopt when absent or
/// None or when an item is not an integer.
std::optional<std::vector<std::int64_t>> intListAttr(const Attributes &attrs,
                                                     const std::string &key);
/// A list whose items may be None (`begin=[0, None]`).
using OptionalIntList = std::vector<std::optional<std::int64_t>>;
/// A list attribute whose items may be None: each item is its integer or nullopt.
std::optional<OptionalIntList> optionalIntListAttr(const Attributes &attrs, const std::string &key);
/// `out_dtype` when set and non-empty, else `fallback` (TVM's "bits() == 0 means input dtype").
std::string outDtype(const Attributes &attrs, const std::string &fallback);

/// Sum of the leading and trailing padding of each of `spatial` dimensions, following TVM's
/// GetPadding* helpers: 1 value pads every side by it; `spatial` values pad both sides of each
/// dim; `2·spatial` values are all the "before" pads followed by all the "after" pads. Nullopt for
/// any other count.
std::optional<std::vector<std::int64_t>> totalPadding(const std::vector<std::int64_t> &padding,
                                                      std::size_t spatial);
/// The spatial rank an operator name announces (`nn.conv2d` → 2, `nn.max_pool1d` → 1,
/// `image.resize3d` → 3), or `fallback` when the name has no `<k>d` suffix.
std::size_t spatialRankOf(std::string_view op, std::size_t fallback);
/// The spatial axis letters of a rank: 1 → "W", 2 → "HW", 3 → "DHW".
std::string spatialLetters(std::size_t spatial);
/// `(k − 1)·dilation + 1`.
std::int64_t dilatedKernel(std::int64_t kernel, std::int64_t dilation);
/// Output extent of a sliding window: ⌊(in + pad − window [+ stride − 1 when ceil]) / stride⌋ + 1.
Dim windowOutput(const Dim &in, std::int64_t pad, std::int64_t window, std::int64_t stride,
                 bool ceilMode = false);
/// A per-spatial-dim attribute list (`strides`, `dilation`, `pool_size`): absent gives
/// `fallback` for every dim, a single value is repeated; nullopt for a wrong length.
std::optional<std::vector<std::int64_t>> spatialAttr(const Attributes &attrs,
                                                     const std::string &key, std::size_t spatial,
                                                     std::int64_t fallback);

// --- layouts ----------------------------------------------------------------------------------

/// A TVM data layout such as `NCHW`, `NHWC`, `OIHW` or the packed `NCHW16c`: upper-case letters
/// are primal axes, a lower-case letter with a factor prefix splits its primal axis.
class Layout
{
public:
    struct Axis
    {
        char name = 0; ///< Upper case for a primal axis, lower case for a sub-axis.
        std::int64_t factor = 0; ///< Sub-axis extent; 0 for primal axes.
    };

    /// Parses a layout; nullopt for malformed text (repeated axes, a sub-axis without a factor
    /// or without its primal axis).
    static std::optional<Layout> parse(std::string_view text);

    [[nodiscard]] const std::vector<Axis> &axes() const { return m_axes; }
    [[nodiscard]] std::size_t rank() const { return m_axes.size(); }
    /// Position of axis `name` (primal or sub), or nullopt.
    [[nodiscard]] std::optional<std::size_t> indexOf(char name) const;
    /// True when the layout has the primal axis `primal` (upper case).
    [[nodiscard]] bool hasPrimal(char primal) const { return indexOf(primal).has_value(); }

    /// The full extent of each primal axis of a shape in this layout (`C = C_outer · c`), in the
    /// order of `primals`; nullopt when ranks differ or a primal is missing.
    [[nodiscard]] std::optional<std::vector<Dim>> primalExtents(const std::vector<Dim> &shape,
                                                                std::string_view primals) const;
    /// The shape in this layout of a tensor whose primal extents are given in `primals` order;
    /// nullopt when the layout uses a primal that is not given.
    [[nodiscard]] std::optional<std::vector<Dim>> shapeFromPrimal(const std::vector<Dim> &extents,
                                                                  std::string_view primals) const;

private:
    std::vector<Axis> m_axes;
};

} // namespace cleave::shapes
