// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// One stage of a pipeline run: its time measured in the runtime, and what the cost model had
/// predicted for it (partitions.json `predicted_us`), when the export carried a prediction.
struct StageRun
{
    std::string name;
    double measuredUs = 0;
    std::optional<double> predictedUs;
};

/// What `run_pipeline.py --bench N --json FILE` reports: each stage timed alone (median), the
/// slowest one, the streamed throughput against the whole model in one session.
struct PipelineRunReport
{
    std::string runtime; ///< "onnxruntime 1.30.0"
    std::string mode; ///< "threads" or "ray"
    std::string host;
    std::vector<StageRun> stages;
    std::string bottleneck;
    double wholeUs = 0;
    double throughputPerSecond = 0;
    double wholeThroughputPerSecond = 0;
    int items = 0;
};

/// Reads a run report; nullopt with `error` (file:line:column for JSON syntax errors, the field
/// otherwise) when it is not one.
std::optional<PipelineRunReport> readPipelineRunReport(const std::string &path, std::string &error);

/// Parses the text of a run report read from `path` (for messages), as readPipelineRunReport.
std::optional<PipelineRunReport>
parsePipelineRunReport(std::string_view text, const std::string &path, std::string &error);

} // namespace cleave
