// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relax/RelaxModuleExporter.h"

#include "core/export/VerifySupport.h"
#include "core/export/relax/RelaxArtefacts.h"
#include "core/export/relax/RelaxPrinter.h"
#include "core/io/Importer.h"
#include "core/io/relax/RelaxImporter.h"
#include "core/io/relax/RelaxValues.h"

namespace cleave {

namespace {

const std::string relayPrefix = "meta[relay.Constant][";

std::optional<std::size_t> indexAfter(const std::string &ref, const std::string &prefix)
{
    if (ref.rfind(prefix, 0) != 0 || ref.size() <= prefix.size() + 1 || ref.back() != ']')
        return std::nullopt;
    const std::string digits = ref.substr(prefix.size(), ref.size() - prefix.size() - 1);
    if (digits.empty() || digits.size() > 12
        || digits.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    return static_cast<std::size_t>(std::stoull(digits));
}

std::string relaxRef(std::size_t i)
{
    return "metadata[\"relax.expr.Constant\"][" + std::to_string(i) + "]";
}

bool callsPrimFunc(const Node &n)
{
    if (n.kind != NodeKind::OpCall)
        return false;
    const std::string form = n.attrs.stringOr("call", "");
    return form == "call_tir" || form == "call_tir_inplace" || form == "call_tir_with_grad"
        || form == "call_dps_packed";
}

} // namespace

void addCalledPrimFuncs(const Graph &source, Graph &module)
{
    for (std::size_t i = 0; i < module.nodeCount(); ++i) {
        const Node &n = module.node(NodeId(i));
        if (!callsPrimFunc(n) || module.findFunction(n.op).isValid())
            continue;
        const FunctionId src = source.findFunction(n.op);
        if (!src.isValid() || source.function(src).sourceText.empty())
            continue;
        Function f;
        f.kind = Function::Kind::Global;
        f.name = source.function(src).name;
        f.attrs = source.function(src).attrs;
        f.sourceText = source.function(src).sourceText;
        f.where = source.function(src).where;
        module.addFunction(std::move(f));
    }
}

PartitionModule extractRelaxPartition(const PartitionPlan &plan, const BoundaryTable &boundary,
                                      std::size_t k, bool liftConstants,
                                      const std::vector<std::string> &passThrough)
{
    const Graph &src = plan.graph();
    PartitionModule module = extractPartition(
        plan, boundary, k, liftConstants ? ConstantLifting::MainOnly : ConstantLifting::None,
        passThrough);
    Graph &g = module.graph;
    g.setFormat("relax");
    g.setVersionHeader("");
    for (const auto &[key, value] : src.moduleAttrs().items()) {
        if (key != "global_infos" && key != "decorator") // exports use @I.ir_module
            g.moduleAttrs().set(key, value);
    }
    const FunctionId main = g.findFunction("main");
    if (main.isValid()) {
        if (const AttrValue *df = src.function(plan.function()).attrs.find("@dataflow"))
            g.function(main).attrs.set("@dataflow", *df);
    }
    for (std::size_t i = 0; i < g.nodeCount(); ++i) {
        Node &n = g.node(NodeId(i));
        if (const auto idx = indexAfter(n.metaRef(), relayPrefix))
            n.setMetaRef(relaxRef(*idx));
    }
    for (ModuleConstant &c : module.constants) {
        if (const auto idx = indexAfter(c.moduleRef, relayPrefix))
            c.moduleRef = relaxRef(*idx);
    }
    addCalledPrimFuncs(src, g);
    g.finalize();
    return module;
}

bool RelaxModuleExporter::acceptsSource(const Graph &graph) const
{
    return graph.format() == "relax";
}

bool RelaxModuleExporter::writeModule(const PartitionPlan &plan, const BoundaryTable &boundary,
                                      std::size_t k, const ExportOptions &options,
                                      const std::vector<std::string> &passThrough,
                                      std::string &content, ModuleSummary &summary,
                                      std::vector<Diagnostic> &diagnostics) const
{
    const Graph &src = plan.graph();
    PartitionModule module
        = extractRelaxPartition(plan, boundary, k, options.liftConstants, passThrough);
    summary.parameters = module.parameters;
    std::vector<std::size_t> kept;
    for (const ModuleConstant &c : module.constants) {
        summary.constants.push_back({ c.sourceRef, c.moduleRef, c.parameter, c.type,
                                      src.key(c.source), c.threadedThrough });
        if (!c.moduleRef.empty()) {
            if (const auto index = relaxConstantIndex(c.sourceRef))
                kept.push_back(*index);
        }
    }
    if (!src.metadata().empty() && !kept.empty()) {
        const auto subset = relaxMetadataSubset(src.metadata(), kept);
        if (!subset) {
            diagnostics.push_back(
                Diagnostic::make(Severity::Warning, "export.metadata",
                                 "the source's metadata header could not be read; mod"
                                     + std::to_string(k) + ".relax.py carries it unchanged"));
            module.graph.setMetadata(src.metadata());
        } else {
            module.graph.setMetadata(*subset);
        }
    }
    content = printRelax(module.graph);
    return true;
}

std::unique_ptr<Graph> RelaxModuleExporter::readModule(const std::string &path,
                                                       std::vector<Diagnostic> &diagnostics) const
{
    return readGraphWith(RelaxImporter(), path, diagnostics);
}

std::optional<std::string> RelaxModuleExporter::constantDifference(
    const Graph &module, const Graph &source,
    const std::vector<std::pair<std::string, std::string>> &refs) const
{
    return verify::compareConstantValues(
        module, source, refs, [](const std::string &m) { return relaxConstantPayloads(m); },
        [](const std::string &r) { return relaxConstantIndex(r); }, "metadata header");
}

bool RelaxModuleExporter::writeModelArtefacts(
    const ExportModel &model, const ExportOptions &options,
    std::vector<std::pair<std::string, std::string>> &files,
    std::vector<Diagnostic> &diagnostics) const
{
    (void)options; // relaxArtefacts reads the options from the model
    return relaxArtefacts(model, files, diagnostics);
}

} // namespace cleave
