// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// Builds the `#[metadata]` section of an exported module from the source's section (TVM's
/// node-graph JSON): `relay.Constant` lists only the module's constants, in module order
/// (`constants[i]` is the source index of the module's `meta[relay.Constant][i]`); other tables
/// (`relay.attrs.*`) are kept. Unreachable nodes and tensor payloads are dropped and the rest
/// renumbered. Returns nullopt when the source section cannot be read.
std::optional<std::string> subsetMetadata(const std::string &source,
                                          const std::vector<std::size_t> &constants);

/// The tensor payload (base64 NDArray) of each `meta[relay.Constant][i]` of a metadata
/// section, by i; nullopt when the section cannot be read.
std::optional<std::vector<std::string>> constantPayloads(const std::string &metadata);

/// `meta[relay.Constant][3]` → 3; nullopt for other references.
std::optional<std::size_t> constantIndex(const std::string &metaRef);

} // namespace cleave
