// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Reading ONNX models for the ONNX module exporter and verify (ONNX code only).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace cleave::onnxio {

/// Reads the ONNX model at `path` into `model` with the data of external initializers and
/// tensor attributes of top-level nodes inlined (read from the model's folder). When `checksum`
/// is not empty the file's SHA-256 must equal it. Returns false with a message in `error`.
bool loadModel(const std::string &path, const std::string &checksum, onnx::ModelProto &model,
               std::string &error);

/// Replaces the external data reference of an initializer by its bytes (`raw_data`), read from
/// `folder`. Returns false with a message in `error`.
bool inlineExternalData(onnx::TensorProto &tensor, const std::string &folder, std::string &error);

} // namespace cleave::onnxio
