// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/NameRules.h"

#include <algorithm>
#include <array>

namespace cleave {

namespace {

bool isAsciiAlpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool isAsciiDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isIdentifier(std::string_view s)
{
    if (s.empty() || !(isAsciiAlpha(s[0]) || s[0] == '_'))
        return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return isAsciiAlpha(c) || isAsciiDigit(c) || c == '_'; });
}

/// Device kinds TVM builds for directly (everything else is a BYOC compiler name).
bool isDeviceKind(std::string_view kind)
{
    static constexpr std::array<std::string_view, 16> devices
        = { "llvm",    "c",      "cuda",    "nvptx", "opencl",  "vulkan", "metal", "rocm",
            "hexagon", "webgpu", "ext_dev", "aocl",  "sdaccel", "cpu",    "gpu",   "hybrid" };
    return std::find(devices.begin(), devices.end(), kind) != devices.end();
}

} // namespace

std::optional<std::string> partitionNameProblem(std::string_view name)
{
    if (name.empty())
        return "a partition name cannot be empty";
    if (name.size() > maxPartitionNameBytes)
        return "a partition name is at most " + std::to_string(maxPartitionNameBytes)
            + " bytes long (this one has " + std::to_string(name.size()) + ")";
    if (name.find("..") != std::string_view::npos)
        return "a partition name cannot contain '..'";
    for (const char c : name) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x80 || isAsciiAlpha(c) || isAsciiDigit(c))
            continue; // UTF-8 letters are checked for validity by the readers
        if (std::string_view(" _-.+:#@()").find(c) != std::string_view::npos)
            continue;
        if (u < 0x20 || u == 0x7f)
            return "a partition name cannot contain control characters (such as a line break)";
        return std::string("a partition name cannot contain '") + c
            + "' (allowed: letters, digits, space and _ - . + : # @ ( ))";
    }
    return std::nullopt;
}

std::optional<std::string> targetProblem(std::string_view target)
{
    const std::size_t space = target.find(' ');
    const std::string_view kind = target.substr(0, space);
    if (!isIdentifier(kind))
        return "a target starts with an identifier such as llvm, cuda or a BYOC compiler name "
               "(letters, digits, '_')";
    if (space == std::string_view::npos)
        return std::nullopt;
    if (!isDeviceKind(kind))
        return "the BYOC compiler name '" + std::string(kind)
            + "' takes no options: it becomes part of Relay identifiers";
    if (target.size() > 256)
        return "target options are at most 256 bytes long";
    for (const char c : target.substr(space)) {
        if (!(isAsciiAlpha(c) || isAsciiDigit(c)
              || std::string_view(" -_=+,.").find(c) != std::string_view::npos))
            return "target options may hold letters, digits, space and - _ = + , . only";
    }
    return std::nullopt;
}

} // namespace cleave
