// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ConnectionConfig.h"
#include "core/export/ModuleComposer.h"
#include "core/export/ModuleExporter.h"
#include "core/export/VerifySupport.h"
#include "core/formats/Exporter.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/GraphCompare.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace cleave {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using verify::BadInput;

/// Checked access to a manifest / config field.
const json &field(const json &obj, const char *key, const std::string &where)
{
    if (!obj.is_object() || !obj.contains(key))
        throw BadInput(where + ": missing \"" + key + "\"");
    return obj[key];
}

std::size_t index(const json &v, const std::string &where)
{
    if (!v.is_number_integer() || v.get<long long>() < 0)
        throw BadInput(where + ": expected a non-negative integer");
    return v.get<std::size_t>();
}

std::string text(const json &v, const std::string &where)
{
    if (!v.is_string())
        throw BadInput(where + ": expected a string");
    return v.get<std::string>();
}

VerifyResult runVerify(const std::string &dir)
{
    VerifyResult r;
    const fs::path root(dir);
    const std::string manifestPath = (root / "partitions.json").string();
    const std::string configPath = (root / "pipeline_config.json").string();
    const json manifest = verify::readJson(manifestPath);
    // Exports for runtimes without a pipeline executor (Relax) are wired by partitions.json.
    const json config = fs::exists(configPath) || !fs::exists(manifestPath)
        ? verify::readJson(configPath)
        : json(connectionConfigFromManifest(manifest));

    const json &source = field(manifest, "source", manifestPath);
    const std::string sourcePath = text(field(source, "path", manifestPath), manifestPath);
    const std::string format = manifest.value("module_format", std::string("relay"));
    const ModuleExporter *reader = moduleExporterFor(format);
    if (!reader)
        throw BadInput(manifestPath + ": unknown module format '" + format + "'");
    if (std::optional<VerifyResult> own = reader->verifyFolder(dir))
        return *own;
    ImportResult imported = importFile(sourcePath);
    if (!imported.ok())
        throw BadInput("the source model " + sourcePath
                       + " cannot be read: " + imported.firstError());
    const Graph &src = *imported.graph;
    const std::string checksum = source.value("checksum", std::string());
    if (!checksum.empty() && checksum != src.checksum()) {
        r.firstDifference
            = "the source model " + sourcePath + " has changed since the export (checksum differs)";
        return r;
    }

    const json &parts = field(manifest, "partitions", manifestPath);
    const json &modulesCfg = field(config, "module_connection", configPath);
    if (!parts.is_array() || !modulesCfg.is_array())
        throw BadInput(configPath + ": module_connection must be a list");
    if (parts.size() != modulesCfg.size()) {
        r.firstDifference = "pipeline_config.json has " + std::to_string(modulesCfg.size())
            + " modules but partitions.json lists " + std::to_string(parts.size());
        return r;
    }
    const std::size_t n = parts.size();
    std::vector<std::unique_ptr<Graph>> graphs(n);
    std::vector<ComposedModule> composed(n);
    std::vector<std::map<std::string, ModuleBinding>> bound(n);
    for (std::size_t k = 0; k < n; ++k) {
        const std::string where = manifestPath + ": partitions[" + std::to_string(k) + "]";
        const std::string file = text(field(parts[k], "file", where), where);
        if (file.find_first_of("/\\") != std::string::npos || file == ".." || file.empty())
            throw BadInput(where + ": module file '" + file + "' is not a plain file name");
        std::vector<Diagnostic> diags;
        graphs[k] = reader->readModule((root / file).string(), diags);
        for (Diagnostic &d : diags)
            r.diagnostics.push_back(std::move(d));
        if (!graphs[k]) {
            r.firstDifference = file + " cannot be re-imported";
            for (const Diagnostic &d : r.diagnostics) {
                if (d.severity == Severity::Error) {
                    r.firstDifference += ": " + d.toString();
                    break;
                }
            }
            return r;
        }
        composed[k].graph = graphs[k].get();
        for (const json &c : parts[k].value("constants", json::array())) {
            if (c.contains("module_ref") && c.contains("source_ref") && c["module_ref"].is_string()
                && c["source_ref"].is_string())
                composed[k].constantRefs.emplace(c["module_ref"].get<std::string>(),
                                                 c["source_ref"].get<std::string>());
            if (c.contains("parameter") && c.contains("source_ref") && c["parameter"].is_string()
                && c["source_ref"].is_string()) {
                ModuleBinding b;
                b.kind = ModuleBinding::Kind::Constant;
                b.constantRef = c["source_ref"].get<std::string>();
                bound[k][c["parameter"].get<std::string>()] = b;
            }
        }
    }
    // Constant values, where the files carry them.
    for (std::size_t k = 0; k < n; ++k) {
        std::vector<std::pair<std::string, std::string>> refs;
        for (const json &c : parts[k].value("constants", json::array())) {
            if (c.contains("module_ref") && c.contains("source_ref") && c["module_ref"].is_string()
                && c["source_ref"].is_string())
                refs.emplace_back(c["module_ref"].get<std::string>(),
                                  c["source_ref"].get<std::string>());
        }
        if (auto diff = reader->constantDifference(*graphs[k], src, refs)) {
            r.firstDifference = "mod" + std::to_string(k) + ": " + *diff;
            return r;
        }
    }
    // Weights passed as inputs: each param group of pipeline_config.json feeds the module
    // parameter of the weight's name (partitions.json "params" says which weight a group is).
    std::map<std::string, std::size_t> groups;
    for (const json &pc : config.value("param_connection", json::array())) {
        const std::size_t k = index(field(pc, "mod_idx", configPath), configPath);
        if (k >= n)
            throw BadInput(configPath + ": param_connection names mod_idx " + std::to_string(k));
        groups[text(field(pc, "global_param_name", configPath), configPath)] = k;
    }
    for (const json &p : manifest.value("params", json::array())) {
        const std::string name = text(field(p, "name", manifestPath), manifestPath);
        for (const json &grp : p.value("param_connection", json::array())) {
            const std::string group
                = text(field(grp, "global_param_name", manifestPath), manifestPath);
            auto it = groups.find(group);
            if (it == groups.end()) {
                r.firstDifference = "param group " + group + " of weight " + name
                    + " is missing from pipeline_config.json's param_connection";
                return r;
            }
            ModuleBinding b;
            b.kind = ModuleBinding::Kind::GlobalInput;
            b.name = name;
            bound[it->second][name] = b;
        }
    }
    // Wiring from pipeline_config.json.
    for (const json &in : field(config, "input_connection", configPath)) {
        const std::size_t k = index(field(in, "mod_idx", configPath), configPath);
        if (k >= n)
            throw BadInput(configPath + ": input_connection names mod_idx " + std::to_string(k));
        ModuleBinding b;
        b.kind = ModuleBinding::Kind::GlobalInput;
        b.name = text(field(in, "global_interface_name", configPath), configPath);
        bound[k][text(field(in, "module_interface_name", configPath), configPath)] = b;
    }
    ComposeSpec spec;
    std::map<std::size_t, std::pair<std::size_t, std::size_t>> globalOuts;
    for (std::size_t j = 0; j < n; ++j) {
        const json &mod = modulesCfg[j];
        if (index(field(mod, "mod_idx", configPath), configPath) != j)
            throw BadInput(configPath + ": module_connection[" + std::to_string(j)
                           + "] has another mod_idx");
        std::size_t outputs = 0;
        for (const json &out : field(mod, "output", configPath)) {
            const std::size_t o = index(field(out, "output_idx", configPath), configPath);
            outputs = std::max(outputs, o + 1);
            for (const json &dep : field(out, "dependencies", configPath)) {
                if (dep.contains("global_output_index")) {
                    globalOuts[index(dep["global_output_index"], configPath)] = { j, o };
                    continue;
                }
                const std::size_t k = index(field(dep, "mod_idx", configPath), configPath);
                if (k >= n)
                    throw BadInput(configPath + ": a dependency names mod_idx "
                                   + std::to_string(k));
                ModuleBinding b;
                b.kind = ModuleBinding::Kind::ModuleOutput;
                b.module = j;
                b.output = o;
                const std::string input = text(field(dep, "input_name", configPath), configPath);
                if (bound[k].count(input)) {
                    r.firstDifference = "mod" + std::to_string(k) + " input " + input
                        + " is bound twice in pipeline_config.json";
                    return r;
                }
                bound[k][input] = b;
            }
        }
        composed[j].outputCount = std::max<std::size_t>(outputs, 1);
        composed[j].tupleOutputs = outputs > 1;
    }
    for (std::size_t k = 0; k < n; ++k) {
        const Graph &g = *graphs[k];
        const FunctionId main = g.findFunction("main");
        if (!main.isValid()) {
            r.firstDifference = "mod" + std::to_string(k) + " has no @main";
            return r;
        }
        for (NodeId p : g.function(main).params) {
            const std::string name = g.node(p).name.substr(g.node(p).name.front() == '%' ? 1 : 0);
            auto it = bound[k].find(name);
            if (it == bound[k].end()) {
                r.firstDifference = "mod" + std::to_string(k) + " parameter %" + name
                    + " is not connected in pipeline_config.json";
                return r;
            }
            if (it->second.kind == ModuleBinding::Kind::Constant)
                it->second.type = g.node(p).outputType();
            composed[k].bindings.push_back(it->second);
        }
    }
    const FunctionId srcMain
        = src.findFunction(text(source.value("function", json("main")), manifestPath));
    if (!srcMain.isValid())
        throw BadInput(manifestPath + ": the source model has no function @"
                       + source.value("function", std::string("main")));
    const Function &sm = src.function(srcMain);
    for (NodeId p : sm.params)
        spec.inputs.emplace_back(globalInputName(src, p), src.node(p).outputType());
    for (std::size_t i = 0; i < globalOuts.size(); ++i) {
        auto it = globalOuts.find(i);
        if (it == globalOuts.end()) {
            r.firstDifference = "no module produces global output " + std::to_string(i);
            return r;
        }
        spec.outputs.push_back(it->second);
    }
    spec.tupleResult = manifest.value("result_is_tuple", false);
    spec.signature = sm;
    std::string error;
    Graph recomposed = composeModules(composed, spec, error);
    if (!error.empty()) {
        r.firstDifference = error;
        return r;
    }
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
    if (auto diff = firstDifference(recomposed, reference)) {
        r.firstDifference = *diff;
        return r;
    }
    r.ok = true;
    return r;
}

} // namespace

VerifyResult verifyExport(const std::string &dir)
{
    return verify::guarded(dir, [&] { return runVerify(dir); });
}

} // namespace cleave
