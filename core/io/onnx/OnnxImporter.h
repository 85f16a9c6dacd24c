// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/io/Importer.h"

namespace cleave {

/// Reads ONNX models (opset 7 to 18, through Debian's libonnx protobuf classes) into the graph
/// model. Graph inputs that are not initializers become Input nodes; initializers and `Constant`
/// nodes become Constant nodes (shape, dtype, bytes); every other node is an operator call named
/// by its ONNX op_type (prefixed with its domain when that is not the default one:
/// `com.microsoft.FusedConv`), in a topological order that keeps the file's order where it can.
/// Tensor types come from the graph's inputs, outputs and value_info after ONNX shape
/// inference. `If`, `Loop` and `Scan` stay operator calls (counted by op_type) that own their
/// subgraphs as scopes (shown as blocks); reads of outer tensors from a subgraph count as reads
/// by the owning node. Node keys are the ONNX node names (see
/// onnxNodeKeys); each output keeps its ONNX tensor name in Node::outputNames. External data
/// files are checked in the model's folder. Errors name the file; protobuf has no lines, so
/// they point at 1:1 and say which node or tensor is wrong.
class OnnxImporter final : public Importer
{
public:
    [[nodiscard]] std::string formatName() const override { return "onnx"; }
    /// `*.onnx` files, and files whose first byte is the ModelProto `ir_version` tag (0x08)
    /// followed by a small version number and a known field.
    [[nodiscard]] bool canRead(std::string_view path, std::string_view head) const override;
    [[nodiscard]] ImportResult importBytes(std::string_view bytes,
                                           const std::string &path) const override;
};

} // namespace cleave
