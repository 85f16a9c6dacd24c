// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/PipelineConfig.h"

namespace cleave {

nlohmann::ordered_json pipelineConfigJson(const ExportModel &m)
{
    using Json = nlohmann::ordered_json;
    Json config;
    Json params = Json::array();
    for (const ExportParam &p : m.params) {
        for (const auto &[group, module] : p.groups) {
            Json entry;
            entry["global_param_name"] = group;
            entry["mod_idx"] = module;
            params.push_back(std::move(entry));
        }
    }
    config["param_connection"] = std::move(params);
    Json inputs = Json::array();
    for (const auto &[name, module] : m.globalInputs) {
        if (module < 0)
            continue;
        Json in;
        in["global_interface_name"] = name;
        in["mod_idx"] = module;
        in["module_interface_name"] = name;
        inputs.push_back(std::move(in));
    }
    config["input_connection"] = std::move(inputs);
    Json modules = Json::array();
    for (std::size_t k = 0; k < m.outputs.size(); ++k) {
        Json mod;
        mod["mod_idx"] = k;
        mod["cpu_affinity"] = "";
        Json outputs = Json::array();
        for (std::size_t o = 0; o < m.outputs[k].size(); ++o) {
            Json out;
            out["output_idx"] = o;
            Json deps = Json::array();
            for (const OutputDependency &d : m.outputs[k][o].dependencies) {
                Json dep;
                if (d.module >= 0) {
                    dep["mod_idx"] = d.module;
                    dep["input_name"] = d.inputName;
                } else {
                    dep["global_output_index"] = d.globalOutput;
                }
                deps.push_back(std::move(dep));
            }
            out["dependencies"] = std::move(deps);
            outputs.push_back(std::move(out));
        }
        mod["output"] = std::move(outputs);
        mod["dev"] = deviceOf(m.targets[k]);
        modules.push_back(std::move(mod));
    }
    config["module_connection"] = std::move(modules);
    return config;
}

std::string dumpPythonJson(const nlohmann::ordered_json &v)
{
    if (v.is_object()) {
        std::string s = "{";
        bool first = true;
        for (auto it = v.begin(); it != v.end(); ++it) {
            s += first ? "" : ", ";
            first = false;
            s += nlohmann::ordered_json(it.key()).dump() + ": " + dumpPythonJson(it.value());
        }
        return s + "}";
    }
    if (v.is_array()) {
        std::string s = "[";
        for (std::size_t i = 0; i < v.size(); ++i)
            s += (i ? ", " : "") + dumpPythonJson(v[i]);
        return s + "]";
    }
    return v.dump();
}

} // namespace cleave
