// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <string>
#include <vector>

namespace cleave {

class Graph;
class LatencyTable;

/// How to measure a model on this machine (`cleave-cli profile`, the editor's Model ▸ Measure on
/// this machine…): profile.py runs the model in ONNX Runtime with its profiler.
struct ProfileOptions
{
    std::string python; ///< The interpreter; empty: the first of pythonCandidates() with ORT.
    int threads = 1; ///< Intra-op threads (1: one per pipeline stage).
    int runs = 15; ///< Measured runs; each node's entry is its median.
    int warmup = 3; ///< Runs before measuring.
    std::string level = "all"; ///< ORT graph optimisations: all, extended, basic, disable.
    std::string provider = "CPUExecutionProvider";
    std::vector<std::string> dims; ///< `NAME=VALUE` for symbolic dimensions.
};

/// A command line (no shell) that writes the latency table of `model` to `output`. profile.py is
/// written to a private temporary folder (`scriptDir`), never beside the model; `error` says why
/// there is no command (not an ONNX model, no Python with onnxruntime).
struct ProfileCommand
{
    std::string program;
    std::vector<std::string> args;
    std::string scriptDir; ///< Remove with removeProfileScript once the command has run.
    std::string output;
    std::string error;
};

/// True when profileCommand can measure the graph: it was imported from an ONNX file.
bool canProfile(const Graph &graph);

/// The command that measures the model at `modelPath`, imported as `format` (Graph::format),
/// into `output`. Looks for a Python with onnxruntime (starts Python a few times): call it off
/// the UI thread.
ProfileCommand profileCommand(const std::string &modelPath, const std::string &format,
                              const std::string &output, const ProfileOptions &options);

/// profileCommand for the file `graph` was imported from.
ProfileCommand profileCommand(const Graph &graph, const std::string &output,
                              const ProfileOptions &options);

/// Deletes the temporary folder holding profile.py.
void removeProfileScript(const ProfileCommand &command);

/// Parses a `progress DONE/TOTAL` line of profile.py; false for other lines.
bool parseProfileProgress(const std::string &line, int &done, int &total);

/// The operator nodes of the graph's main function that `table` has no node entry for (their
/// keys), to tell a user what a measurement missed.
std::vector<std::string> unmeasuredNodes(const Graph &graph, const LatencyTable &table);

} // namespace cleave
