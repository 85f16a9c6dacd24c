// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Naming rules shared by the ONNX importer and the ONNX module exporter (ONNX code only).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cleave::onnxio {

/// The key of every node of `graph`, in node order: the node's name, or `<op_type>_<k>` (k
/// counting that op type's unnamed nodes) when it has none; a name already taken by an earlier
/// node, a graph input or an initializer gets `#2`, `#3`, ... The importer names its nodes so,
/// and the exporter finds the ONNX node behind a graph node by it.
std::vector<std::string> nodeKeys(const onnx::GraphProto &graph);

/// `float32`, `int64`, ... for an ONNX TensorProto data type; `unknown` for none.
std::string dtypeName(int elemType);

/// The op name Cleave shows for a node: op_type, prefixed by `<domain>.` outside the default
/// (`ai.onnx`) domain.
std::string opName(const onnx::NodeProto &node);

/// Where a tensor stored as external data keeps its bytes: a file relative to the model's
/// folder, the byte offset in it and the length (-1: up to the end of the file).
struct ExternalData
{
    std::string location;
    std::int64_t offset = 0;
    std::int64_t length = -1;
};

/// The `external_data` entries of a tensor (meaningful when its data_location is EXTERNAL).
ExternalData externalDataOf(const onnx::TensorProto &tensor);

/// The file an external-data `location` names, when it is safe to read: a relative path
/// without `..` that, after resolving symlinks, stays inside `modelFolder` and is a regular
/// file (the rule of onnx's own checker). Otherwise nullopt, with `problem` saying why
/// ("is an absolute path", "leaves the model's folder", ...).
std::optional<std::string> resolveExternalData(const std::string &modelFolder,
                                               const std::string &location, std::string &problem);

} // namespace cleave::onnxio
