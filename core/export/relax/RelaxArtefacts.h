// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ExportModel.h"

#include <string>
#include <utility>
#include <vector>

namespace cleave {

/// `byoc.relax.py`: the whole module as `MergeCompositeFunctions` leaves it for the plan's BYOC
/// targets. Each partition with a BYOC target becomes one global `@R.function` with
/// `R.func_attr({"Codegen": target})` whose body calls one `Composite` closure per operator
/// (a `Composite` module function it called is moved into the region as that closure; a plain
/// operator gets a closure `"<target>.<op>"`); `main` calls the regions and keeps the other
/// partitions' bindings. Returns false with `error` when the plan has no BYOC partition.
bool relaxByocModule(const ExportModel &model, std::string &text, std::string &error);

/// `placed.relax.py`: the whole module for multi-device execution with TVM ≥ 0.20:
/// `I.module_global_infos({"vdevice": [...]})` with one `I.vdevice(target, i)` per partition
/// (BYOC partitions run from the host, `llvm`), every tensor binding of the partitioned function
/// annotated with its partition's vdevice (`"cuda:1"`: the second cuda entry), and each
/// boundary tensor moved once per consuming partition with `R.to_vdevice`.
std::string relaxPlacedModule(const ExportModel &model);

/// The vdevice name each partition runs on in placed.relax.py (`llvm:0`, `cuda:1`, ...).
std::vector<std::string> relaxPartitionDevices(const ExportModel &model);

/// Every tensor input of the partitioned function, by name, with the partition whose vdevice it
/// arrives on in placed.relax.py: the first partition (in plan order) that reads it. Later
/// partitions that read it get a copy through `R.to_vdevice`.
std::vector<std::pair<std::string, int>> relaxInputDevices(const ExportModel &model);

/// `build_relax.py`: loads every `mod<k>.relax.py` with `tvm.script.from_source`, builds it
/// for its target with `tvm.compile` (`relax.build` before TVM 0.21), runs the partitions in
/// plan order on seeded inputs wired by partitions.json, runs the whole source module (found
/// relative to the folder) on the same inputs and compares every output; `--placed` also
/// builds and runs placed.relax.py on all devices. Exit 0 only when every output matches.
std::string relaxBuildScript(const ExportModel &model);

/// Every Relax-specific file of an export (byoc.relax.py when a partition has a BYOC target,
/// placed.relax.py, build_relax.py), as the options select; false with diagnostics on failure.
bool relaxArtefacts(const ExportModel &model,
                    std::vector<std::pair<std::string, std::string>> &files,
                    std::vector<Diagnostic> &diagnostics);

} // namespace cleave
