// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ModuleMetadata.h"

namespace cleave {

std::vector<std::size_t> summarizeConstants(const Graph &source, const PartitionModule &module,
                                            const ConstantIndexFn &index, ModuleSummary &summary)
{
    std::vector<std::size_t> kept;
    for (const ModuleConstant &c : module.constants) {
        summary.constants.push_back({ c.sourceRef, c.moduleRef, c.parameter, c.type,
                                      source.key(c.source), c.threadedThrough });
        if (!c.moduleRef.empty()) {
            if (const auto i = index(c.sourceRef))
                kept.push_back(*i);
        }
    }
    return kept;
}

void keepMetadataSubset(const Graph &source, const std::vector<std::size_t> &kept,
                        const MetadataSubsetFn &subset, const std::string &what,
                        const std::string &file, Graph &module,
                        std::vector<Diagnostic> &diagnostics)
{
    if (auto metadata = subset(source.metadata(), kept)) {
        module.setMetadata(std::move(*metadata));
        return;
    }
    diagnostics.push_back(Diagnostic::make(Severity::Warning, "export.metadata",
                                           "the source's " + what + " could not be read; " + file
                                               + " carries it unchanged"));
    module.setMetadata(source.metadata());
}

} // namespace cleave
