// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relay/RelayModuleExporter.h"

#include "core/export/ModuleMetadata.h"
#include "core/export/PartitionModule.h"
#include "core/export/VerifySupport.h"
#include "core/export/relay/ByocExport.h"
#include "core/export/relay/RelayMetadataSubset.h"
#include "core/export/relay/RelayPrinter.h"
#include "core/io/relay/RelayImporter.h"

#include <algorithm>
#include <optional>

namespace cleave {

namespace {

/// The distinct reasons why constants stayed `meta[...]` references although lifting was asked.
std::string notLiftedReasons(const PartitionModule &module)
{
    std::vector<std::string> reasons;
    for (const ModuleConstant &c : module.constants) {
        if (!c.moduleRef.empty() && !c.notLiftedReason.empty()
            && std::find(reasons.begin(), reasons.end(), c.notLiftedReason) == reasons.end())
            reasons.push_back(c.notLiftedReason);
    }
    std::string out;
    for (std::size_t i = 0; i < reasons.size() && i < 3; ++i)
        out += (i ? "; " : "") + reasons[i];
    if (reasons.size() > 3)
        out += "; and " + std::to_string(reasons.size() - 3) + " more reason(s)";
    return out.empty() ? std::string("they are not constants of a function it can lift") : out;
}

/// The source printed its constants as `meta[relay.Constant][i]` without the `#[metadata]`
/// section (`meta data omitted`): the module cannot be parsed by TVM as written.
Diagnostic noMetadataWarning(const PartitionModule &module, std::size_t k, bool lifted)
{
    std::vector<NodeId> nodes;
    std::size_t count = 0;
    for (const ModuleConstant &c : module.constants) {
        if (c.moduleRef.empty())
            continue;
        ++count;
        if (nodes.size() < 16)
            nodes.push_back(c.source);
    }
    const std::string file = "mod" + std::to_string(k) + ".relay";
    if (lifted)
        return Diagnostic::make(
            Severity::Warning, "export.no_metadata",
            file + " still references " + std::to_string(count)
                + " constant(s) as meta[relay.Constant][i] and the source model has no "
                  "#[metadata] section, so tvm.parser.parse cannot read "
                + file + ": --lift-constants cannot lift them because " + notLiftedReasons(module),
            std::move(nodes));
    return Diagnostic::make(
        Severity::Warning, "export.no_metadata",
        file + " references " + std::to_string(count)
            + " constant(s) as meta[relay.Constant][i] but the source model has no #[metadata] "
              "section (it was printed with 'meta data omitted'), so tvm.parser.parse cannot "
              "read "
            + file
            + ": export with --lift-constants to make them parameters fed from your params "
              "file (partitions.json maps each one to its source constant)",
        std::move(nodes));
}

bool holdsMetaRef(const AttrValue &v)
{
    return v.kind == AttrValue::Kind::MetaRef
        || std::any_of(v.list.begin(), v.list.end(), holdsMetaRef);
}

/// Operator attributes written as `meta[...]` references (`step=meta[relay.Constant][19]`, a
/// whole `meta[relay.attrs.Conv2DAttrs][0]`) need the source's #[metadata] section too; they are
/// compile-time values of the operator, so no parameter can stand for them.
std::optional<Diagnostic> attributeMetaWarning(const Graph &module, std::size_t k, bool lifted)
{
    std::size_t count = 0;
    std::vector<std::string> examples;
    auto note = [&](const Node &n, const std::string &what) {
        ++count;
        if (examples.size() < 3)
            examples.push_back(n.op.str() + " " + what);
    };
    for (const Node &n : module.nodes()) {
        if (!n.attrsRef().empty())
            note(n, n.attrsRef());
        for (const auto &[key, value] : n.attrs.items()) {
            if (holdsMetaRef(value))
                note(n, key + "=" + value.toRelay());
        }
    }
    if (count == 0)
        return std::nullopt;
    std::string listed;
    for (std::size_t i = 0; i < examples.size(); ++i)
        listed += (i ? ", " : "") + examples[i];
    const std::string file = "mod" + std::to_string(k) + ".relay";
    return Diagnostic::make(
        Severity::Warning, "export.no_metadata",
        file + " keeps " + std::to_string(count) + " operator attribute(s) written as meta[...] ("
            + listed + (count > examples.size() ? ", ..." : "")
            + ") and the source model has no #[metadata] section, so tvm.parser.parse cannot "
              "read "
            + file
            + (lifted ? ": --lift-constants cannot lift them because attributes are "
                        "compile-time values of the operator, not tensors a parameter can feed"
                      : ""));
}

} // namespace

bool RelayModuleExporter::acceptsSource(const Graph &graph) const
{
    return graph.format() == "relay" || graph.format().empty();
}

bool RelayModuleExporter::writeModule(const PartitionPlan &plan, const BoundaryTable &boundary,
                                      std::size_t k, const ExportOptions &options,
                                      const std::vector<std::string> &passThrough,
                                      std::string &content, ModuleSummary &summary,
                                      std::vector<Diagnostic> &diagnostics) const
{
    const Graph &src = plan.graph();
    PartitionModule module = extractPartition(
        plan, boundary, k,
        options.liftConstants ? ConstantLifting::Everywhere : ConstantLifting::None, passThrough);
    summary.parameters = module.parameters;
    const std::vector<std::size_t> kept = summarizeConstants(src, module, constantIndex, summary);
    bool usesAttrs = false;
    for (const Node &n : module.graph.nodes())
        usesAttrs = usesAttrs || !n.attrsRef().empty();
    if (!src.metadata().empty() && (!kept.empty() || usesAttrs))
        keepMetadataSubset(src, kept, subsetMetadata, "#[metadata] section",
                           "mod" + std::to_string(k) + ".relay", module.graph, diagnostics);
    if (src.metadata().empty() && !kept.empty())
        diagnostics.push_back(noMetadataWarning(module, k, options.liftConstants));
    if (src.metadata().empty()) {
        if (auto warning = attributeMetaWarning(module.graph, k, options.liftConstants))
            diagnostics.push_back(std::move(*warning));
    }
    RelayPrintOptions printOptions;
    content = RelayPrinter(module.graph, printOptions).printModule();
    return true;
}

std::unique_ptr<Graph> RelayModuleExporter::readModule(const std::string &path,
                                                       std::vector<Diagnostic> &diagnostics) const
{
    return readGraphWith(RelayImporter(), path, diagnostics);
}

std::optional<std::string> RelayModuleExporter::constantDifference(
    const Graph &module, const Graph &source,
    const std::vector<std::pair<std::string, std::string>> &refs) const
{
    return verify::compareConstantValues(
        module, source, refs, [](const std::string &m) { return constantPayloads(m); },
        [](const std::string &r) { return constantIndex(r); }, "#[metadata] section");
}

bool RelayModuleExporter::writeModelArtefacts(
    const ExportModel &model, const ExportOptions &options,
    std::vector<std::pair<std::string, std::string>> &files,
    std::vector<Diagnostic> &diagnostics) const
{
    if (!options.byoc || !hasByocPartition(model))
        return true;
    std::string byoc;
    std::string annotated;
    std::string error;
    if (!byocModules(model, byoc, annotated, error)) {
        diagnostics.push_back(Diagnostic::make(Severity::Error, "export.byoc", error));
        return false;
    }
    files.emplace_back("byoc.relay", std::move(byoc));
    files.emplace_back("byoc_annotated.relay", std::move(annotated));
    return true;
}

} // namespace cleave
