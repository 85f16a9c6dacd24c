// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/VerifyResult.h"

#include <string>

namespace cleave {

/// The recomposition check of an ONNX export: reads the `mod<k>.onnx` files listed in
/// partitions.json, connects them by tensor name (every module input is a global input of the
/// source or the output of the same name of another module; no tensor is produced twice) and
/// checks that the union of their nodes, initializers and `Constant` nodes is the source model
/// (named and checksummed in the manifest): the same nodes with the same op types, attributes
/// and input / output tensors (hence the same edges), the same initializer values, every
/// global output produced; then imports the recomposed model and compares it with the source
/// graph structurally (firstDifference). Never throws.
VerifyResult verifyOnnxExport(const std::string &dir);

} // namespace cleave
