// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <string_view>

namespace cleave {

/// `profile.py` (core/export/onnx/profile.py, compiled in): measures every node of an ONNX model
/// in ONNX Runtime with its profiler and writes a Cleave latency table with a "provenance" and a
/// "calibration" block. `cleave-cli profile` runs it; ONNX exports carry it so that a user can
/// measure on the deployment machine.
std::string_view onnxProfileScript();

/// `run_pipeline.py` (core/export/onnx/run_pipeline.py, compiled in): runs an ONNX export's
/// partitions in ONNX Runtime, one session per partition wired by partitions.json; `--check`
/// compares with the whole model, `--bench N` streams micro-batches through the stages, `--ray`
/// runs each stage as a Ray actor.
std::string_view onnxRunPipelineScript();

} // namespace cleave
