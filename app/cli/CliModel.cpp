// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "app/cli/CliModel.h"

#include "core/analysis/WeightInputs.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/JsonParse.h"
#include "core/partition/PlanFile.h"
#include "core/support/FileIo.h"

#include <filesystem>
#include <set>

namespace cleave::cli {

std::unique_ptr<Graph> importModel(const std::string &path, std::ostream &err)
{
    ImportResult result = importFile(path);
    for (const Diagnostic &d : result.diagnostics)
        err << d.toString() << '\n';
    if (!result.ok()) {
        if (result.diagnostics.empty())
            err << path << ": error: the model could not be read\n";
        return nullptr;
    }
    return std::move(result.graph);
}

bool chooseFunction(const Graph &graph, const Arguments &args, const std::string &model,
                    FunctionId &function, std::ostream &err)
{
    const auto name = args.value("--function");
    function = name ? graph.findFunction(*name) : FunctionId {};
    if (name && (!function.isValid() || !graph.function(function).sourceText.empty())) {
        err << model << ": error: the model has no dataflow function '" << *name << "'\n";
        return false;
    }
    return true;
}

std::optional<PartitionPlan> loadPlan(const Graph &graph, const Arguments &args,
                                      std::vector<Diagnostic> &notes, std::ostream &err,
                                      std::vector<SourceLocation> *locations)
{
    PlanLoadOptions options;
    options.force = args.has("--force");
    PlanLoadResult loaded = loadPlanFile(graph, *args.value("--plan"), options);
    for (Diagnostic &d : loaded.diagnostics) {
        if (!loaded.ok())
            err << d.toString() << '\n';
        else
            notes.push_back(std::move(d));
    }
    if (!loaded.ok())
        return std::nullopt;
    if (locations != nullptr)
        *locations = std::move(loaded.partitionLocations);
    return std::move(loaded.plan);
}

namespace {

/// The names of the inputs of the plan's function, as --params gives them (without `%`).
std::set<std::string> inputNames(const PartitionPlan &plan)
{
    const Graph &g = plan.graph();
    std::set<std::string> names;
    for (NodeId p : g.function(plan.function()).params) {
        std::string name = g.node(p).name.empty() ? g.key(p) : g.node(p).name;
        if (!name.empty() && name.front() == '%')
            name.erase(0, 1);
        names.insert(std::move(name));
    }
    return names;
}

/// --params must name inputs: a typo, or a file name that does not exist, would otherwise
/// be taken as a name nothing matches and be ignored.
bool checkParamNames(const PartitionPlan &plan, const std::string &spec, bool isFile,
                     const std::vector<std::string> &names, std::ostream &err)
{
    const std::set<std::string> inputs = inputNames(plan);
    std::vector<std::string> unknown;
    for (std::string name : names) {
        if (!name.empty() && name.front() == '%')
            name.erase(0, 1);
        if (!inputs.contains(name))
            unknown.push_back(quoteBounded(name));
    }
    if (unknown.empty())
        return true;
    std::string list;
    for (std::size_t i = 0; i < unknown.size() && i < 8; ++i)
        list += (i ? ", " : "") + unknown[i];
    if (unknown.size() > 8)
        list += " and " + std::to_string(unknown.size() - 8) + " more";
    const std::string function = "@" + plan.graph().function(plan.function()).name;
    err << spec << ": error: "
        << (isFile ? std::to_string(unknown.size()) + " name(s) of this params file are not "
                   : std::string("--params names neither a file nor "))
        << "inputs of " << function << ": " << list << " [params.unknown]\n";
    return false;
}

} // namespace

std::optional<EngineSettings> loadEngineSettings(const Arguments &args, const PartitionPlan *plan,
                                                 std::ostream &err)
{
    EngineSettings settings;
    std::vector<Diagnostic> problems;
    for (const std::string &file : args.values("--op-support")) {
        if (auto lists = EngineSettings::loadOpSupport(file, problems))
            settings.opSupport.push_back(std::move(lists));
    }
    if (const auto file = args.value("--latency")) {
        settings.latency = EngineSettings::loadLatency(*file, problems);
        settings.latencyPath = *file;
    }
    if (const auto file = args.value("--op-patterns")) {
        settings.opPatterns = EngineSettings::loadOpPatterns(*file, problems);
        settings.opPatternsPath = *file;
    }
    settings.foldBatchNorm = args.has("--fold-batch-norm");
    settings.transparentStopFusion = args.has("--transparent-stop-fusion");
    settings.liftConstants = args.has("--lift-constants");
    for (const Diagnostic &d : problems)
        err << d.toString() << '\n';
    if (hasErrors(problems))
        return std::nullopt;
    if (!plan)
        return settings;
    // Weights given by name (--params, and a plan's "params"): parameters, not data inputs.
    struct Source
    {
        std::string spec;
        bool isFile = false;
        bool isFlag = false; // --params: every name must be an input
    };
    std::vector<Source> sources;
    if (const auto file = args.value("--plan"))
        sources.push_back({ *file, true, false });
    if (const auto params = args.value("--params")) {
        std::error_code ec;
        const auto status = std::filesystem::status(*params, ec);
        if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
            err << *params
                << ": error: --params names a folder or special file, not a params "
                   "file [params.unreadable]\n";
            return std::nullopt;
        }
        sources.push_back({ *params, std::filesystem::is_regular_file(status), true });
    }
    for (const auto &[spec, isFile, isFlag] : sources) {
        const std::optional<std::string> text = isFile ? readFile(spec) : spec;
        std::string error;
        const auto names = text ? parseParamNames(*text, isFile, error) : std::nullopt;
        if (!names) {
            err << spec << ": error: " << (text ? error : "cannot read the file")
                << (text ? " [params.syntax]\n" : " [params.unreadable]\n");
            return std::nullopt;
        }
        if (isFlag && !checkParamNames(*plan, spec, isFile, *names, err))
            return std::nullopt;
        settings.params.insert(settings.params.end(), names->begin(), names->end());
    }
    return settings;
}

std::string jsonText(const nlohmann::json &value)
{
    return value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace cleave::cli
