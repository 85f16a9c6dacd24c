// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/AttrValue.h"
#include "core/graph/Graph.h"
#include "core/graph/Ids.h"
#include "core/graph/Type.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cleave {

/// Operator name → number of calls, sorted by name.
using OpHistogram = std::map<std::string, std::size_t>;

/// One input or output of the main function.
struct TensorSummary
{
    std::string name; ///< Inputs: the parameter name without `%`; outputs: `output_<i>`.
    std::string node; ///< The key of the node that is (inputs) or produces (outputs) the value.
    Type type;
};

/// One function of the module, as the summary lists it.
struct FunctionSummary
{
    FunctionId id;
    std::string name; ///< `@main` for globals, the binding (`%2`) for literals.
    Function::Kind kind = Function::Kind::Global;
    std::size_t params = 0;
    std::size_t nodes = 0; ///< Nodes of the function itself (not of nested functions).
    Attributes attrs;
};

/// A fused block: a `Primitive=1` / `Composite=` / `Compiler=` function literal anywhere in the
/// module, or a global function that the main function calls.
struct BlockSummary
{
    FunctionId function;
    std::string name; ///< As in FunctionSummary::name.
    std::string kind; ///< "composite", "external" (has `Compiler=`), "primitive" or "global".
    Attributes attrs;
    std::size_t calls = 0; ///< How many call sites in the module call this function.
    std::size_t opCalls = 0; ///< Operator calls inside, nested functions included.
    OpHistogram ops; ///< Histogram of those operator calls.
};

/// What `cleave-cli inspect` and the editor's Summary dock show about a model: format, functions,
/// operator histogram, the main function's inputs and outputs, fused blocks and constants.
/// Operator counts cover every OpCall node of the module, nested function bodies included (for
/// Relax modules also every `cls.f(...)` call of a module function, counted under `f`).
struct ModelSummary
{
    std::string format;
    std::string sourcePath;
    std::string checksum;
    std::size_t nodeCount = 0;
    std::size_t opCalls = 0;
    /// FLOPs of the main function's operators (Cost.h); a lower bound when opsWithoutShapes > 0.
    std::int64_t flops = 0;
    std::size_t opsWithoutShapes = 0; ///< Main-function operators without a static shape.
    std::size_t mainOps = 0; ///< Main-function operators (what opsWithoutShapes counts among).
    OpHistogram ops;
    std::vector<FunctionSummary> functions; ///< Globals and literals (not if/match scopes).
    std::vector<TensorSummary> inputs; ///< Parameters of the main function, in order.
    std::vector<TensorSummary> outputs; ///< Tensors the main function returns, in order.
    std::vector<BlockSummary> blocks; ///< In function order.
    std::size_t constants = 0; ///< Distinct tensor constants (a `meta[...]` reference counts once).
    std::int64_t constantBytes = 0; ///< Bytes of the constants whose type has a static shape.
    bool constantBytesKnown = true; ///< False when some constant's size is unknown.
    std::size_t scalarConstants = 0; ///< Inline scalar literals (`1f`, `0i64`).

    /// Summarises `graph` (which must be finalized).
    static ModelSummary compute(const Graph &graph);

    /// The summary as one JSON object with the keys `format`, `source`, `nodes`, `op_calls`,
    /// `ops`, `inputs`, `outputs` (each `{name, node, shape, dtype, type}`), `functions`,
    /// `block_functions` and `constants` (`{count, bytes, bytes_known, scalars}`). Shapes list
    /// ints, -1 for `?` and the source text for a symbolic dim; non-tensor values have a null
    /// shape.
    [[nodiscard]] nlohmann::json toJson() const;

    /// Why shapes are missing, for the Summary and the status bar ("864 of 868 ops have no
    /// shape: the file has no type annotations (no ty=) and no metadata, ..."); empty when
    /// every operator of the main function has a static shape.
    [[nodiscard]] std::string shapesNote() const;

    /// A readable, column-aligned report. Blocks are counted by kind, and listed one per line
    /// with their op histograms when `listBlocks` is set.
    [[nodiscard]] std::string toText(bool listBlocks = false) const;
};

/// The JSON form of an attribute value: numbers, bools, strings and arrays as such; null for
/// `None`; maps as objects; meta references and opaque values as their source text.
nlohmann::json attrValueToJson(const AttrValue &value);

/// The JSON form of a shape: ints, -1 for `?`, strings for symbolic dims; null when `type` is
/// not a tensor.
nlohmann::json shapeToJson(const Type &type);

} // namespace cleave
