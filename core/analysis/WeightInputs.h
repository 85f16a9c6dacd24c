// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"

#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// Why an input of a function is treated as a parameter (a weight) rather than an activation.
enum class WeightReason : std::uint8_t {
    None, ///< An activation: it travels through the data path.
    Operand, ///< Every use reads it as a weight operand (conv / dense weight, bias, norm stats).
    Marked, ///< The user named it (`--params`, a params list file, a plan's "params").
};

/// One input of a function classified as a weight.
struct WeightInput
{
    NodeId input;
    std::string name; ///< The input's name without `%`.
    WeightReason reason = WeightReason::None;
};

/// The inputs of `function` that are weights passed as graph inputs (models imported with
/// `from_onnx` / `from_pytorch` without binding params). An input is a weight when every use of
/// it is a weight use: operand 1 of conv / dense / matmul / bias_add / prelu, operands 1–4 of
/// batch_norm, 1–2 of layer / group / instance norm, the table of `take`, the ONNX equivalents
/// (Conv, Gemm, BatchNormalization, ...), the smaller, broadcast operand of a floating-point
/// binary op (a bias `add`, a scale `multiply`, a clip bound `minimum`), or an operand of a value
/// computed from weights and constants only (a transposed weight, SimplifyInference's
/// arithmetic on batch-norm statistics), whose uses are then checked in turn; parameters of
/// called fused / composite functions are followed. Inputs whose name is in `marked` (with or
/// without `%`) are weights too. Inputs come in parameter order.
std::vector<WeightInput> weightInputs(const Graph &graph, FunctionId function,
                                      const std::vector<std::string> &marked = {});

/// True when `input` is among weightInputs(graph, function, marked).
bool isWeightInput(const std::vector<WeightInput> &weights, NodeId input);

/// Parses the user's list of parameter names: `text` is a params list file's content — a JSON
/// array of names, a JSON object with a `"params"` array (a plan file), or one name per line
/// (blank lines and `#` comments skipped) — or, when `isFile` is false, a comma-separated list.
/// Returns nullopt with `error` set when a JSON text is not such a list.
std::optional<std::vector<std::string>> parseParamNames(const std::string &text, bool isFile,
                                                        std::string &error);

} // namespace cleave
