// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ConnectionConfig.h"

namespace cleave {

using json = nlohmann::json;

json connectionConfigFromManifest(const json &manifest)
{
    json config;
    json inputs = json::array();
    json modules = json::array();
    const json parts = manifest.value("partitions", json::array());
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const json &part = parts[k];
        for (const json &in : part.value("inputs", json::array())) {
            const json from = in.value("from", json::object());
            if (!from.is_object() || !from.contains("global_input") || from.contains("mod_idx"))
                continue;
            inputs.push_back({ { "global_interface_name", from["global_input"] },
                               { "mod_idx", part.value("mod_idx", k) },
                               { "module_interface_name", in.value("name", std::string()) } });
        }
        json outputs = json::array();
        for (const json &out : part.value("outputs", json::array())) {
            json deps = json::array();
            for (const json &to : out.value("to", json::array()))
                deps.push_back(to);
            outputs.push_back(
                { { "output_idx", out.value("output_idx", 0) }, { "dependencies", deps } });
        }
        modules.push_back({ { "mod_idx", part.value("mod_idx", k) }, { "output", outputs } });
    }
    config["input_connection"] = std::move(inputs);
    config["module_connection"] = std::move(modules);
    return config;
}

} // namespace cleave
