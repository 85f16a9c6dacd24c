// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// How to run an export folder in the runtime its modules are for (ModuleExporter::runtimeCheck):
/// a Relax export's `build_relax.py` builds every module with TVM, an ONNX export's
/// `run_pipeline.py --check` runs every module in ONNX Runtime; either runs the partitions wired
/// by partitions.json on seeded inputs and compares them with the whole source model.
struct RuntimeCheckOptions
{
    /// The runtime asked for (`tvm`, `onnxruntime`); empty: the one of the export's format.
    std::string runtime;
    /// The interpreter; empty: the first of pythonCandidates() that has the runtime.
    std::string python;
    std::vector<std::string> dims; ///< `NAME=VALUE` for symbolic dimensions (`--dim`).
    bool placed = false; ///< Also build and run placed.relax.py on all partition devices.
};

/// A command line (program and arguments, no shell) with the folder it runs in and the JSON
/// report it writes; `error` says why there is none (no runtime for the export's format, no
/// Python with the runtime).
struct RuntimeCheckCommand
{
    std::string runtime; ///< What users read: "TVM", "ONNX Runtime".
    std::string script; ///< `build_relax.py`, `run_pipeline.py`.
    std::string program;
    std::vector<std::string> args;
    std::string workingDir;
    std::string reportPath;
    std::string error;
};

/// The Python interpreters that may have TVM or ONNX Runtime, in the order they are tried:
/// $CLEAVE_PYTHON, the environments packaging/pydeps.sh makes (`$XDG_CACHE_HOME` or `~/.cache`,
/// `cleave/pyenv-*`), then `python3` on the PATH.
std::vector<std::string> pythonCandidates();

/// The first candidate that imports every module of `modules` ("tvm,numpy"); empty when none
/// does, with `tried` listing what was tried.
std::string findPythonWith(const std::string &modules, std::string &tried);

/// The interpreter to run a runtime's script with: `given` when it imports every module of
/// `modules` ("tvm, numpy"), else (when `given` is empty) the first candidate that does. Empty
/// with `error` set (what failed, and how to install `pipPackages`) when there is none.
std::string choosePython(const std::string &given, const std::string &modules,
                         const std::string &pipPackages, std::string &error);

/// The command that checks export folder `dir` in its runtime, or one with `error` set.
RuntimeCheckCommand runtimeCheckCommand(const std::string &dir, const RuntimeCheckOptions &options);

/// Runs a command to its end (no shell), collecting its standard output and error together;
/// returns its exit status (-1 when it could not start or was killed by a signal).
int runProgram(const std::string &program, const std::vector<std::string> &args,
               const std::string &workingDir, std::string &output);

/// One output's comparison in a runtime check report.
struct RuntimeOutputCheck
{
    std::string output; ///< `output 0`, `output 1[0]` (a tuple's field).
    bool ok = false;
    bool object = false; ///< Not a tensor (an effect token): compared by presence only.
    double maxRelDiff = 0; ///< max|got - expected| / max|expected|.
    double maxAbsDiff = 0;
    std::string error; ///< A shape or dtype mismatch.
};

/// What the `--json` report of build_relax.py or run_pipeline.py says.
struct RuntimeReport
{
    bool ok = false;
    std::string runtimeVersion; ///< `tvm_version` or `runtime_version`.
    int partitions = 0;
    std::vector<RuntimeOutputCheck> outputs; ///< Partitions against the source.
    std::vector<RuntimeOutputCheck> placed; ///< placed.relax.py against the partitions.
};

/// Reads a report file; nullopt with `error` when it is missing or malformed.
std::optional<RuntimeReport> readRuntimeReport(const std::string &path, std::string &error);

} // namespace cleave
