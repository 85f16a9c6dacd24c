// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <nlohmann/json.hpp>

namespace cleave {

/// The module wiring of an export in pipeline_config.json's shape (`input_connection`,
/// `module_connection` with per-output `dependencies`), read from partitions.json: each
/// partition's global inputs and each output's `to` list. Exports without a pipeline executor
/// (Relax, TVM ≥ 0.20) have no pipeline_config.json; `verify` wires them with this.
nlohmann::json connectionConfigFromManifest(const nlohmann::json &manifest);

} // namespace cleave
