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

/// The range of a device's `gflops` (and of `--flops-rate`): a megaFLOPS to an exaFLOPS. Rates
/// beyond it are typos, and would make times infinite or zero.
inline constexpr double minGflops = 1e-3;
inline constexpr double maxGflops = 1e9;
/// The range of a link's bandwidth, in bytes per second: 1 KB/s to 10^9 GB/s (an exabyte a second).
inline constexpr double minBandwidthBytesPerSecond = 1e3;
inline constexpr double maxBandwidthBytesPerSecond = 1e18;

/// Parses a device file; nullopt with diagnostics when it is not one. Every finding is located
/// at the value it is about (file:line:column) and coded `devices.*`: `syntax` (with numbers out
/// of double's range), `type`, `name`, `target`, `gflops`, `memory`, `latency` (and the latency
/// file's own `latency.*`), `links`; unknown keys are `devices.unknown_key` warnings.
std::optional<DeviceSet> parseDeviceFile(std::string_view text, const std::string &path,
                                         std::vector<Diagnostic> &diagnostics);
/// Reads and parses a device file.
std::optional<DeviceSet> loadDeviceFile(const std::string &path,
                                        std::vector<Diagnostic> &diagnostics);

/// `16GiB` → 17179869184, `512MB` → 512000000, `1024` → 1024; nullopt when not a size.
std::optional<std::int64_t> parseByteSize(std::string_view text);
/// `12GB/s` → 12e9 bytes per second; a bare number is GB/s (`10` → 1e10). Nullopt outside
/// 1 KB/s to 10^9 GB/s.
std::optional<double> parseBandwidth(std::string_view text);
/// `20us` → 20, `1ms` → 1000, `500ns` → 0.5; a bare number is µs. Nullopt beyond an hour
/// (maxLatencyUs).
std::optional<double> parseDurationUs(std::string_view text);

} // namespace cleave
