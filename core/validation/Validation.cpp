// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/validation/Validation.h"

#include "core/graph/JsonParse.h"
#include "core/support/FileIo.h"
#include "core/validation/RuleSupport.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace cleave {

namespace {

Diagnostic opSupportError(const std::string &path, std::string message)
{
    Diagnostic d = rules::make(Severity::Error, "opsupport.invalid", std::move(message));
    d.where.file = path;
    return d;
}

} // namespace

std::vector<OpSupportList> parseOpSupport(const std::string &jsonText, const std::string &path,
                                          std::vector<Diagnostic> &diagnostics)
{
    std::vector<OpSupportList> lists;
    const std::optional<nlohmann::json> parsed = parseJsonLocated(
        jsonText, path, "opsupport.invalid", diagnostics, "the op-support list is not valid JSON");
    if (!parsed)
        return lists;
    const nlohmann::json &doc = *parsed;
    auto error = [&](const std::string &pointer, std::string message) {
        Diagnostic d = opSupportError(path, std::move(message));
        d.where = locateJsonValue(jsonText, path, pointer);
        diagnostics.push_back(std::move(d));
    };
    const nlohmann::json entries = doc.is_array() ? doc : nlohmann::json::array({ doc });
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const nlohmann::json &e = entries[i];
        const std::string where = doc.is_array() ? "entry " + std::to_string(i) + ": " : "";
        const std::string here = doc.is_array() ? "/" + std::to_string(i) : "";
        if (!e.is_object() || !e.contains("target") || !e["target"].is_string()
            || !e.contains("ops") || !e["ops"].is_array()) {
            error(here, where + R"(expected {"target": "<name>", "ops": ["<op>", ...]})");
            continue;
        }
        OpSupportList list;
        list.target = e["target"].get<std::string>();
        const nlohmann::json &ops = e["ops"];
        for (std::size_t k = 0; k < ops.size(); ++k) {
            if (ops[k].is_string())
                list.ops.insert(ops[k].get<std::string>());
            else
                error(here + "/ops/" + std::to_string(k), where + "\"ops\" must hold strings");
        }
        lists.push_back(std::move(list));
    }
    return lists;
}

std::vector<OpSupportList> loadOpSupportFile(const std::string &path,
                                             std::vector<Diagnostic> &diagnostics)
{
    const std::optional<std::string> bytes = readFile(path);
    if (!bytes) {
        Diagnostic d = rules::make(Severity::Error, "opsupport.unreadable",
                                   "cannot open the op-support list");
        d.where.file = path;
        diagnostics.push_back(std::move(d));
        return {};
    }
    return parseOpSupport(*bytes, path, diagnostics);
}

std::vector<Diagnostic> validateAll(const PartitionPlan &plan, const BoundaryTable &boundary,
                                    const ValidationOptions &options)
{
    std::vector<Diagnostic> all;
    auto add = [&all](std::vector<Diagnostic> found) {
        for (Diagnostic &d : found)
            all.push_back(std::move(d));
    };
    add(checkAssignment(plan));
    add(checkEmptyPartitions(plan));
    add(checkPartitionCycles(plan, boundary));
    add(checkConvexity(plan, boundary));
    add(checkTargetSupport(plan, options.opSupport));
    add(checkSharedGlobalInputs(plan, options.params, options.forwardsAnyValue));
    add(checkConnectivity(plan));
    add(checkTupleCrossings(plan, boundary));
    add(checkImpliedEdges(plan, boundary));
    add(checkDuplicatedConstants(plan));
    add(checkWeightCrossings(plan, boundary));
    if (options.latency)
        add(checkBalance(plan, boundary, *options.latency));
    add(summarizeBoundary(plan, boundary));
    return all;
}

std::vector<Diagnostic> validateAll(const PartitionPlan &plan, const ValidationOptions &options)
{
    return validateAll(plan, computeBoundary(plan), options);
}

} // namespace cleave
