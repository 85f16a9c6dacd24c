// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ConnectionConfig.h"

namespace cleave {

using Json = nlohmann::json;

Json connectionConfigFromManifest(const Json &manifest)
{
    Json config;
    Json inputs = Json::array();
    Json modules = Json::array();
    const Json parts = manifest.value("partitions", Json::array());
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const Json &part = parts[k];
        for (const Json &in : part.value("inputs", Json::array())) {
            const Json from = in.value("from", Json::object());
            if (!from.is_object() || !from.contains("global_input") || from.contains("mod_idx"))
                continue;
            inputs.push_back({ { "global_interface_name", from["global_input"] },
                               { "mod_idx", part.value("mod_idx", k) },
                               { "module_interface_name", in.value("name", std::string()) } });
        }
        Json outputs = Json::array();
        for (const Json &out : part.value("outputs", Json::array())) {
            Json deps = Json::array();
            for (const Json &to : out.value("to", Json::array()))
                deps.push_back(to);
            outputs.push_back(
                { { "output_idx", out.value("output_idx", 0) }, { "dependencies", deps } });
        }
        modules.push_back({ { "mod_idx", part.value("mod_idx", k) }, { "output", outputs } });
    }
    // Weights passed as inputs reach each reading module through its own param group.
    Json params = Json::array();
    for (const Json &p : manifest.value("params", Json::array())) {
        for (const Json &group : p.value("param_connection", Json::array()))
            params.push_back(group);
    }
    config["param_connection"] = std::move(params);
    config["input_connection"] = std::move(inputs);
    config["module_connection"] = std::move(modules);
    return config;
}

} // namespace cleave
