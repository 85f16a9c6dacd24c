// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ConnectionConfig.h"
#include "core/export/ExportFolder.h"
#include "core/export/ModuleComposer.h"
#include "core/export/ModuleExporter.h"
#include "core/export/VerifySupport.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/GraphCompare.h"
#include "core/partition/WeightFollowers.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cleave {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

using verify::BadInput;

/// Checked access to a manifest / config field.
const Json &field(const Json &obj, const char *key, const std::string &where)
{
    if (!obj.is_object() || !obj.contains(key))
        throw BadInput(where + ": missing \"" + key + "\"");
    return obj[key];
}

std::size_t index(const Json &v, const std::string &where)
{
    if (!v.is_number_integer() || v.get<long long>() < 0)
        throw BadInput(where + ": expected a non-negative integer");
    return v.get<std::size_t>();
}

std::string text(const Json &v, const std::string &where)
{
    if (!v.is_string())
        throw BadInput(where + ": expected a string");
    return v.get<std::string>();
}

/// The (module_ref, source_ref) pairs of a manifest partition's constants that stay in the
/// module.
std::vector<std::pair<std::string, std::string>> keptConstantRefs(const Json &part)
{
    std::vector<std::pair<std::string, std::string>> refs;
    for (const Json &c : part.value("constants", Json::array())) {
        if (c.contains("module_ref") && c.contains("source_ref") && c["module_ref"].is_string()
            && c["source_ref"].is_string())
            refs.emplace_back(c["module_ref"].get<std::string>(),
                              c["source_ref"].get<std::string>());
    }
    return refs;
}

/// The format-neutral recomposition check of an export folder: re-imports every module with
/// its writer's reader, binds each module parameter as pipeline_config.json (and
/// partitions.json) say, composes the modules into one graph and compares it with the source's
/// function wired the same way. Each step returns the first difference it finds.
class ExportCheck
{
public:
    explicit ExportCheck(const std::string &dir)
        : m_dir(dir)
        , m_root(dir)
        , m_manifestPath((m_root / "partitions.json").string())
        , m_configPath((m_root / "pipeline_config.json").string())
    {
    }

    VerifyResult run();

private:
    std::optional<std::string> readSource();
    std::optional<std::string> readModules();
    std::optional<std::string> readModule(std::size_t k, const Json &part);
    std::optional<std::string> compareConstants();
    std::optional<std::string> bindWeights();
    void bindGlobalInputs();
    std::optional<std::string> bindModuleOutputs();
    std::optional<std::string> bindParameters();
    std::optional<std::string> composeAndCompare();
    [[nodiscard]] std::vector<std::string> weightInputNames(const Graph &src,
                                                            FunctionId function) const;

    std::string m_dir;
    fs::path m_root;
    std::string m_manifestPath;
    std::string m_configPath;
    Json m_manifest;
    Json m_config;
    const ModuleExporter *m_reader = nullptr;
    std::string m_sourcePath;
    ImportResult m_imported;
    std::size_t m_n = 0; // modules
    std::vector<std::unique_ptr<Graph>> m_graphs;
    std::vector<ComposedModule> m_composed;
    std::vector<std::map<std::string, ModuleBinding>> m_bound; // per module, by parameter
    std::map<std::size_t, std::pair<std::size_t, std::size_t>> m_globalOuts; // -> (module, output)
    VerifyResult m_result;
};

VerifyResult ExportCheck::run()
{
    m_manifest = verify::readJson(m_manifestPath);
    // Exports for runtimes without a pipeline executor (Relax) are wired by partitions.json.
    m_config = fs::exists(m_configPath) || !fs::exists(m_manifestPath)
        ? verify::readJson(m_configPath)
        : Json(connectionConfigFromManifest(m_manifest));
    const Json &source = field(m_manifest, "source", m_manifestPath);
    m_sourcePath = text(field(source, "path", m_manifestPath), m_manifestPath);
    const std::string format = m_manifest.value("module_format", std::string("relay"));
    m_reader = moduleExporterFor(format);
    if (!m_reader)
        throw BadInput(m_manifestPath + ": unknown module format '" + format + "'");
    if (std::optional<VerifyResult> own = m_reader->verifyFolder(m_dir))
        return *own;

    std::optional<std::string> difference = readSource();
    if (!difference)
        difference = readModules();
    if (!difference)
        difference = compareConstants();
    if (!difference)
        difference = bindWeights();
    if (!difference) {
        bindGlobalInputs();
        difference = bindModuleOutputs();
    }
    if (!difference)
        difference = bindParameters();
    if (!difference)
        difference = composeAndCompare();
    m_result.ok = !difference;
    if (difference)
        m_result.firstDifference = *difference;
    return std::move(m_result);
}

std::optional<std::string> ExportCheck::readSource()
{
    m_imported = importFile(m_sourcePath);
    if (!m_imported.ok())
        throw BadInput("the source model " + m_sourcePath
                       + " cannot be read: " + m_imported.firstError());
    const std::string checksum = m_manifest["source"].value("checksum", std::string());
    if (!checksum.empty() && checksum != m_imported.graph->checksum())
        return "the source model " + m_sourcePath
            + " has changed since the export (checksum differs)";
    return std::nullopt;
}

std::optional<std::string> ExportCheck::readModules()
{
    const Json &parts = field(m_manifest, "partitions", m_manifestPath);
    const Json &modulesCfg = field(m_config, "module_connection", m_configPath);
    if (!parts.is_array() || !modulesCfg.is_array())
        throw BadInput(m_configPath + ": module_connection must be a list");
    if (parts.size() != modulesCfg.size())
        return "pipeline_config.json has " + std::to_string(modulesCfg.size())
            + " modules but partitions.json lists " + std::to_string(parts.size());
    m_n = parts.size();
    m_graphs.resize(m_n);
    m_composed.resize(m_n);
    m_bound.resize(m_n);
    for (std::size_t k = 0; k < m_n; ++k) {
        if (auto difference = readModule(k, parts[k]))
            return difference;
    }
    return std::nullopt;
}

// Module `k` read back with the writer's reader, and the bindings of its lifted constants.
std::optional<std::string> ExportCheck::readModule(std::size_t k, const Json &part)
{
    const std::string where = m_manifestPath + ": partitions[" + std::to_string(k) + "]";
    const std::string file = text(field(part, "file", where), where);
    if (file.find_first_of("/\\") != std::string::npos || file == ".." || file.empty())
        throw BadInput(where + ": module file '" + file + "' is not a plain file name");
    std::vector<Diagnostic> diags;
    m_graphs[k] = m_reader->readModule((m_root / file).string(), diags);
    for (Diagnostic &d : diags)
        m_result.diagnostics.push_back(std::move(d));
    if (!m_graphs[k]) {
        std::string difference = file + " cannot be re-imported";
        const auto error
            = std::find_if(m_result.diagnostics.begin(), m_result.diagnostics.end(),
                           [](const Diagnostic &d) { return d.severity == Severity::Error; });
        if (error != m_result.diagnostics.end())
            difference += ": " + error->toString();
        return difference;
    }
    m_composed[k].graph = m_graphs[k].get();
    for (const auto &[moduleRef, sourceRef] : keptConstantRefs(part))
        m_composed[k].constantRefs.emplace(moduleRef, sourceRef);
    for (const Json &c : part.value("constants", Json::array())) {
        if (c.contains("parameter") && c.contains("source_ref") && c["parameter"].is_string()
            && c["source_ref"].is_string()) {
            ModuleBinding b;
            b.kind = ModuleBinding::Kind::Constant;
            b.constantRef = c["source_ref"].get<std::string>();
            m_bound[k][c["parameter"].get<std::string>()] = b;
        }
    }
    return std::nullopt;
}

// Constant values, where the files carry them.
std::optional<std::string> ExportCheck::compareConstants()
{
    const Json &parts = m_manifest["partitions"];
    for (std::size_t k = 0; k < m_n; ++k) {
        if (auto diff = m_reader->constantDifference(*m_graphs[k], *m_imported.graph,
                                                     keptConstantRefs(parts[k])))
            return "mod" + std::to_string(k) + ": " + *diff;
    }
    return std::nullopt;
}

// Weights passed as inputs: each param group of pipeline_config.json feeds the module
// parameter of the weight's name (partitions.json "params" says which weight a group is).
std::optional<std::string> ExportCheck::bindWeights()
{
    std::map<std::string, std::size_t> groups;
    for (const Json &pc : m_config.value("param_connection", Json::array())) {
        const std::size_t k = index(field(pc, "mod_idx", m_configPath), m_configPath);
        if (k >= m_n)
            throw BadInput(m_configPath + ": param_connection names mod_idx " + std::to_string(k));
        groups[text(field(pc, "global_param_name", m_configPath), m_configPath)] = k;
    }
    for (const Json &p : m_manifest.value("params", Json::array())) {
        const std::string name = text(field(p, "name", m_manifestPath), m_manifestPath);
        for (const Json &grp : p.value("param_connection", Json::array())) {
            const std::string group
                = text(field(grp, "global_param_name", m_manifestPath), m_manifestPath);
            auto it = groups.find(group);
            if (it == groups.end())
                return std::string("param group ")
                    .append(group)
                    .append(" of weight ")
                    .append(name)
                    .append(" is missing from pipeline_config.json's param_connection");
            ModuleBinding b;
            b.kind = ModuleBinding::Kind::GlobalInput;
            b.name = name;
            m_bound[it->second][name] = b;
        }
    }
    return std::nullopt;
}

// Global inputs wired by pipeline_config.json's input_connection.
void ExportCheck::bindGlobalInputs()
{
    for (const Json &in : field(m_config, "input_connection", m_configPath)) {
        const std::size_t k = index(field(in, "mod_idx", m_configPath), m_configPath);
        if (k >= m_n)
            throw BadInput(m_configPath + ": input_connection names mod_idx " + std::to_string(k));
        ModuleBinding b;
        b.kind = ModuleBinding::Kind::GlobalInput;
        b.name = text(field(in, "global_interface_name", m_configPath), m_configPath);
        m_bound[k][text(field(in, "module_interface_name", m_configPath), m_configPath)] = b;
    }
}

// Module outputs wired by pipeline_config.json's module_connection: to module inputs or to
// global outputs.
std::optional<std::string> ExportCheck::bindModuleOutputs()
{
    const Json &modulesCfg = m_config["module_connection"];
    for (std::size_t j = 0; j < m_n; ++j) {
        const Json &mod = modulesCfg[j];
        if (index(field(mod, "mod_idx", m_configPath), m_configPath) != j)
            throw BadInput(m_configPath + ": module_connection[" + std::to_string(j)
                           + "] has another mod_idx");
        std::size_t outputs = 0;
        for (const Json &out : field(mod, "output", m_configPath)) {
            const std::size_t o = index(field(out, "output_idx", m_configPath), m_configPath);
            outputs = std::max(outputs, o + 1);
            for (const Json &dep : field(out, "dependencies", m_configPath)) {
                if (dep.contains("global_output_index")) {
                    m_globalOuts[index(dep["global_output_index"], m_configPath)] = { j, o };
                    continue;
                }
                const std::size_t k = index(field(dep, "mod_idx", m_configPath), m_configPath);
                if (k >= m_n)
                    throw BadInput(m_configPath + ": a dependency names mod_idx "
                                   + std::to_string(k));
                ModuleBinding b;
                b.kind = ModuleBinding::Kind::ModuleOutput;
                b.module = j;
                b.output = o;
                const std::string input
                    = text(field(dep, "input_name", m_configPath), m_configPath);
                if (m_bound[k].contains(input))
                    return "mod" + std::to_string(k) + " input " + input
                        + " is bound twice in pipeline_config.json";
                m_bound[k][input] = b;
            }
        }
        m_composed[j].outputCount = std::max<std::size_t>(outputs, 1);
        m_composed[j].tupleOutputs = outputs > 1;
    }
    return std::nullopt;
}

// Every parameter of every module's @main is bound.
std::optional<std::string> ExportCheck::bindParameters()
{
    for (std::size_t k = 0; k < m_n; ++k) {
        const Graph &g = *m_graphs[k];
        const FunctionId main = g.findFunction("main");
        if (!main.isValid())
            return "mod" + std::to_string(k) + " has no @main";
        for (NodeId p : g.function(main).params) {
            const std::string name = g.node(p).name.substr(g.node(p).name.front() == '%' ? 1 : 0);
            auto it = m_bound[k].find(name);
            if (it == m_bound[k].end())
                return "mod" + std::to_string(k) + " parameter %" + name
                    + " is not connected in pipeline_config.json";
            if (it->second.kind == ModuleBinding::Kind::Constant)
                it->second.type = g.node(p).outputType();
            m_composed[k].bindings.push_back(it->second);
        }
    }
    return std::nullopt;
}

/// The source's weight inputs (WeightFollowers::followedWeights, with the inputs the manifest
/// lists as params): the modules may compute a value of them again in each stage that reads it.
std::vector<std::string> ExportCheck::weightInputNames(const Graph &src, FunctionId function) const
{
    std::vector<std::string> marked;
    if (const auto in = m_manifest.find("global_inputs");
        in != m_manifest.end() && in->is_array()) {
        for (const Json &i : *in) {
            if (i.is_object() && i.value("param", false) && i.contains("name")
                && i["name"].is_string())
                marked.push_back(i["name"].get<std::string>());
        }
    }
    const FunctionView view(src, function);
    std::vector<std::string> names;
    for (const WeightInput &w : WeightFollowers::followedWeights(view, marked))
        names.push_back(globalInputName(src, w.input));
    return names;
}

std::optional<std::string> ExportCheck::composeAndCompare()
{
    const Graph &src = *m_imported.graph;
    const Json &source = m_manifest["source"];
    const FunctionId srcMain
        = src.findFunction(text(source.value("function", Json("main")), m_manifestPath));
    if (!srcMain.isValid())
        throw BadInput(m_manifestPath + ": the source model has no function @"
                       + source.value("function", std::string("main")));
    const Function &sm = src.function(srcMain);
    ComposeSpec spec;
    for (NodeId p : sm.params)
        spec.inputs.emplace_back(globalInputName(src, p), src.node(p).outputType());
    for (std::size_t i = 0; i < m_globalOuts.size(); ++i) {
        auto it = m_globalOuts.find(i);
        if (it == m_globalOuts.end())
            return "no module produces global output " + std::to_string(i);
        spec.outputs.push_back(it->second);
    }
    spec.tupleResult = m_manifest.value("result_is_tuple", false);
    spec.signature = sm;
    spec.mergeWeightOnly = true;
    spec.weightInputs = weightInputNames(src, srcMain);
    std::string error;
    Graph recomposed = composeModules(m_composed, spec, error);
    if (!error.empty())
        return error;
    // The reference: the source's function wired the same way (so that only @main and the
    // globals it uses take part, as in the modules), then compared structurally.
    ComposedModule whole;
    whole.graph = &src;
    whole.function = sm.name;
    const bool tupleResult = sm.result.isValid() && src.node(sm.result).kind == NodeKind::Tuple;
    whole.tupleOutputs = tupleResult;
    whole.outputCount = tupleResult ? src.node(sm.result).inputs.size() : 1;
    ComposeSpec refSpec = spec;
    refSpec.outputs.clear();
    for (std::size_t i = 0; i < whole.outputCount; ++i)
        refSpec.outputs.emplace_back(0, i);
    for (NodeId p : sm.params) {
        ModuleBinding b;
        b.name = globalInputName(src, p);
        whole.bindings.push_back(b);
    }
    const Graph reference = composeModules({ whole }, refSpec, error);
    if (!error.empty())
        throw BadInput("the source model cannot be read back as one module: " + error);
    return firstDifference(recomposed, reference);
}

} // namespace

VerifyResult verifyExport(const std::string &dir)
{
    if (const std::string old = interruptedExportOf(dir); !old.empty()) {
        VerifyResult r;
        r.badInput = true;
        r.firstDifference = dir + " is missing: an interrupted export left the previous one in "
            + old + " (the next export into " + dir + " puts it back; or rename it yourself)";
        return r;
    }
    return verify::guarded(dir, [&] { return ExportCheck(dir).run(); });
}

} // namespace cleave
