// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Internal helpers shared by the Relay and ONNX recomposition checks (Verify.cpp, OnnxVerify.cpp).
#pragma once

#include "core/export/VerifyResult.h"
#include "core/graph/Graph.h"
#include "core/support/FileIo.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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

/// The comparison behind the text formats' ModuleExporter::constantDifference: `payloads` reads
/// a metadata text into the constant values by index, `index` turns a constant reference into
/// its index, `section` names the metadata part in messages ("#[metadata] section").
template <class Payloads, class Index>
std::optional<std::string>
compareConstantValues(const Graph &module, const Graph &source,
                      const std::vector<std::pair<std::string, std::string>> &refs,
                      Payloads payloads, Index index, const std::string &section)
{
    if (source.metadata().empty() || refs.empty())
        return std::nullopt; // the source carries no values to compare
    if (module.metadata().empty())
        return "the module has no " + section + ", the source has constant values";
    const auto mine = payloads(module.metadata());
    const auto theirs = payloads(source.metadata());
    if (!mine)
        return "the module's " + section + " cannot be read";
    if (!theirs)
        return std::nullopt;
    // The first reference whose value the module lacks or holds otherwise than the source.
    const auto mismatch = std::find_if(refs.begin(), refs.end(), [&](const auto &ref) {
        const auto i = index(ref.first);
        const auto j = index(ref.second);
        return i && j && *j < theirs->size()
            && (*i >= mine->size() || (*mine)[*i] != (*theirs)[*j]);
    });
    if (mismatch == refs.end())
        return std::nullopt;
    const auto &[moduleRef, sourceRef] = *mismatch;
    if (*index(moduleRef) >= mine->size())
        return moduleRef + " has no value in the module's " + section;
    return "the value of " + moduleRef + " differs from the source's " + sourceRef;
}

} // namespace cleave::verify
