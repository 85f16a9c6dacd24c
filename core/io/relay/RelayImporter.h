// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/io/Importer.h"

namespace cleave {

/// Reads TVM Relay text (every version TVM 0.6–0.18 prints: `print(mod)`, `astext()`, let/ANF
/// forms, prelude ADTs, BYOC-partitioned and fused modules) into a Graph. Types come from
/// `ty=` comments, parameter annotations and the `#[metadata]` section, and are inferred for the
/// common ops where the text has none.
class RelayImporter final : public Importer
{
public:
    [[nodiscard]] std::string formatName() const override { return "relay"; }
    [[nodiscard]] bool canRead(std::string_view path, std::string_view head) const override;
    [[nodiscard]] ImportResult importBytes(std::string_view bytes,
                                           const std::string &path) const override;
};

} // namespace cleave
