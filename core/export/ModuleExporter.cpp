// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ModuleExporter.h"

#include "core/export/OnnxModuleExporter.h"
#include "core/export/RelayModuleExporter.h"
#include "core/export/relax/RelaxModuleExporter.h"

namespace cleave {

const std::vector<std::unique_ptr<ModuleExporter>> &moduleExporters()
{
    static const std::vector<std::unique_ptr<ModuleExporter>> list = [] {
        std::vector<std::unique_ptr<ModuleExporter>> v;
        v.push_back(std::make_unique<RelayModuleExporter>());
        v.push_back(std::make_unique<OnnxModuleExporter>());
        v.push_back(std::make_unique<RelaxModuleExporter>());
        return v;
    }();
    return list;
}

const ModuleExporter *moduleExporterFor(const std::string &formatName)
{
    for (const auto &e : moduleExporters()) {
        if (e->formatName() == formatName)
            return e.get();
    }
    return nullptr;
}

} // namespace cleave
