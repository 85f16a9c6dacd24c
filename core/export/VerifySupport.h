// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Internal helpers shared by the Relay and ONNX recomposition checks (Verify.cpp, OnnxVerify.cpp).
#pragma once

#include "core/export/VerifyResult.h"
#include "core/support/FileIo.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace cleave::verify {

/// An export folder that cannot be read as one (missing file, bad JSON, missing field): `verify`
/// exits 2 with this message.
struct BadInput : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

/// Reads a JSON file of the export folder; BadInput when it is missing or malformed.
inline nlohmann::json readJson(const std::string &path)
{
    const std::optional<std::string> text = readFile(path);
    if (!text)
        throw BadInput(path + ": cannot read the file");
    try {
        return nlohmann::json::parse(*text);
    } catch (const nlohmann::json::parse_error &e) {
        throw BadInput(path + ": invalid JSON: " + e.what());
    }
}

/// Runs a check and turns what it throws into a bad-input result, so no exception escapes.
inline VerifyResult guarded(const std::string &dir, const std::function<VerifyResult()> &check)
{
    try {
        return check();
    } catch (const BadInput &e) {
        VerifyResult r;
        r.badInput = true;
        r.firstDifference = e.what();
        return r;
    } catch (const std::exception &e) {
        VerifyResult r;
        r.badInput = true;
        r.firstDifference = std::string("cannot verify ") + dir + ": " + e.what();
        return r;
    }
}

} // namespace cleave::verify
