// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ExportModel.h"

#include <nlohmann/json.hpp>

#include <string>

namespace cleave {

/// pipeline_config.json: TVM's pipeline executor schema (tvm-formats.md §1.6), keys in the
/// order TVM writes them.
nlohmann::ordered_json pipelineConfigJson(const ExportModel &model);

/// JSON text as Python's json.dump writes it (one line, ", " and ": " separators).
std::string dumpPythonJson(const nlohmann::ordered_json &value);

} // namespace cleave
