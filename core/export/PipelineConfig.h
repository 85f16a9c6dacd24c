// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/ExportModel.h"

#include <nlohmann/json.hpp>

#include <string>

namespace cleave {

/// pipeline_config.json: TVM's pipeline executor schema (docs/DESIGN.md §5.1; TVM's
/// python/tvm/contrib/pipeline_executor_build.py), keys in the order TVM writes them.
nlohmann::ordered_json pipelineConfigJson(const ExportModel &model);

/// JSON text as Python's json.dump writes it (one line, ", " and ": " separators).
std::string dumpPythonJson(const nlohmann::ordered_json &value);

} // namespace cleave
