// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/io/Importer.h"

namespace cleave {

/// Reads a Relax IRModule printed as TVMScript (`mod.script()`, `mod.show()`; TVM ≥ 0.13, the
/// only model format of TVM ≥ 0.20) into a Graph (see relax::RelaxParser for the mapping).
/// Recognised by the `.relax.py` / `.relax` suffix or by an `@I.ir_module` /
/// `@tvm.script.ir_module` class or `from tvm.script import relax` header in the first bytes.
class RelaxImporter final : public Importer
{
public:
    [[nodiscard]] std::string formatName() const override { return "relax"; }
    [[nodiscard]] bool canRead(std::string_view path, std::string_view head) const override;
    [[nodiscard]] ImportResult importBytes(std::string_view bytes,
                                           const std::string &path) const override;
};

} // namespace cleave
