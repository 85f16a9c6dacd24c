// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/LatencyTable.h"
#include "core/auto/CostModel.h"
#include "core/graph/Diagnostic.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cleave {

/// The devices of a pipeline, one per stage, and the link between them. The file is JSON:
/// ```
/// {"devices": [{"name": "gpu0", "target": "cuda", "gflops": 50000, "memory": "16GiB",
///               "latency": "gpu0_latency.json"}, ...],
///  "links": {"bandwidth": "12GB/s", "latency": "20us"}}
/// ```
/// `gflops` (default 1000) times nodes the device's latency table (a path relative to the
/// device file) lacks; `memory` is a size (`16GiB`, `512MB`, or a number of bytes);
/// `bandwidth` a rate (`12GB/s`: decimal units) and `latency` a duration (`20us`, `1ms`,
/// `500ns`, a number means µs). Missing `links` keep the defaults (10 GB/s, 20 µs).
struct DeviceSet
{
    std::vector<DeviceSpec> devices;
    LinkSpec link;
    bool hasLink = false;
    std::vector<std::unique_ptr<LatencyTable>> tables; ///< Owned tables the devices point to.
};

/// Parses a device file; nullopt with diagnostics (codes `devices.*`, file:line:column for
/// syntax errors) when it is not one.
std::optional<DeviceSet> parseDeviceFile(std::string_view text, const std::string &path,
                                         std::vector<Diagnostic> &diagnostics);
/// Reads and parses a device file.
std::optional<DeviceSet> loadDeviceFile(const std::string &path,
                                        std::vector<Diagnostic> &diagnostics);

/// `16GiB` → 17179869184, `512MB` → 512000000, `1024` → 1024; nullopt when not a size.
std::optional<std::int64_t> parseByteSize(std::string_view text);
/// `12GB/s` → 12e9 bytes per second; a bare number is GB/s (`10` → 1e10).
std::optional<double> parseBandwidth(std::string_view text);
/// `20us` → 20, `1ms` → 1000, `500ns` → 0.5; a bare number is µs.
std::optional<double> parseDurationUs(std::string_view text);

} // namespace cleave
