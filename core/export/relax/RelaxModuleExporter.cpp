// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relax/RelaxModuleExporter.h"

#include "core/export/ModuleMetadata.h"
#include "core/export/VerifySupport.h"
#include "core/export/relax/RelaxArtefacts.h"
#include "core/export/relax/RelaxPrinter.h"
#include "core/io/Importer.h"
#include "core/io/relax/RelaxImporter.h"
#include "core/io/relax/RelaxValues.h"

#include <set>

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

/// The metadata table the source's constants are in: `relax.expr.Constant` up to TVM 0.26,
/// `ir.GenericConst` in TVM 0.27's printing; the modules keep the source's.
std::string constantTable(const Graph &src)
{
    const std::string prefix = "metadata[\"";
    for (const Node &n : src.nodes()) {
        const std::string &ref = n.metaRef();
        if (ref.rfind(prefix, 0) == 0) {
            const std::size_t end = ref.find('"', prefix.size());
            if (end != std::string::npos)
                return ref.substr(prefix.size(), end - prefix.size());
        }
    }
    return "relax.expr.Constant";
}

std::string relaxRef(const std::string &table, std::size_t i)
{
    return "metadata[\"" + table + "\"][" + std::to_string(i) + "]";
}

bool callsPrimFunc(const Node &n)
{
    if (n.kind != NodeKind::OpCall)
        return false;
    const std::string form = n.attrs.stringOr("call", "");
    return form == "call_tir" || form == "call_tir_inplace" || form == "call_tir_with_grad"
        || form == "call_dps_packed";
}

/// The partitioned function's attributes on a module's `main`: its decorator options
/// (`@R.function(pure=False)`), `R.func_attr` entries and dataflow form. `num_input` (the leading
/// parameters that are inputs, the rest weights) holds only while the module takes the source's
/// parameters with the same leading ones, and `global_symbol` names the source function: the
/// first is left out otherwise, the second always.
void copyFunctionAttrs(const Graph &src, FunctionId from, Graph &g, FunctionId to)
{
    const Function &source = src.function(from);
    Function &target = g.function(to);
    const auto bare = [](const std::string &name) {
        return name.starts_with('%') ? name.substr(1) : name; // module parameters are `%name`
    };
    // num_input n: the first n parameters are inputs, the rest weights. A module that takes only
    // source parameters (in any order, unread weights left out) keeps it when the source's first
    // n lead its own list.
    std::set<std::string> sourceNames;
    for (NodeId p : source.params)
        sourceNames.insert(bare(src.node(p).name));
    std::set<std::string> targetNames;
    bool subset = true;
    for (NodeId p : target.params) {
        targetNames.insert(bare(g.node(p).name));
        subset = subset && sourceNames.contains(bare(g.node(p).name));
    }
    for (const auto &[key, value] : source.attrs.items()) {
        if (key == "global_symbol")
            continue;
        if (key == "num_input") {
            const auto n = value.toInt();
            if (!subset || !n || *n < 0 || static_cast<std::size_t>(*n) > source.params.size())
                continue;
            std::vector<std::string> leading;
            for (std::size_t i = 0; i < static_cast<std::size_t>(*n); ++i) {
                const std::string name = bare(src.node(source.params[i]).name);
                if (targetNames.contains(name))
                    leading.push_back(name);
            }
            // The module keeps all n inputs, first: num_input holds as written.
            bool leads = leading.size() == static_cast<std::size_t>(*n)
                && leading.size() <= target.params.size();
            for (std::size_t i = 0; leads && i < leading.size(); ++i)
                leads = bare(g.node(target.params[i]).name) == leading[i];
            if (leads)
                target.attrs.set(key, value);
            continue;
        }
        target.attrs.set(key, value);
    }
}

/// A module returning exactly the source function's result tuple, field for field, binds it
/// under the source's name as the source did (`gv = (y, w), (io,)` in the dataflow block, then
/// `R.output(gv)`), rather than writing the tuple in the return: the module then is the source
/// function itself, binding for binding.
void keepResultBinding(const Function &source, const Graph &src, const PartitionInterface &iface,
                       Graph &g, FunctionId main)
{
    if (!source.result.isValid() || !g.function(main).result.isValid())
        return;
    const Node &srcResult = src.node(source.result);
    Node &result = g.node(g.function(main).result);
    if (srcResult.kind != NodeKind::Tuple || result.kind != NodeKind::Tuple || !result.name.empty()
        || srcResult.name.empty() || srcResult.inputs.size() != iface.outputs.size()
        || result.inputs.size() != iface.outputs.size())
        return;
    for (std::size_t i = 0; i < iface.outputs.size(); ++i) {
        if (iface.outputs[i].globalOutput != static_cast<int>(i))
            return;
    }
    result.name = srcResult.name;
    result.typeAnnotated = srcResult.typeAnnotated;
}

/// A returned field of a tuple the module writes itself is that field's value: the return reads
/// `a`, not `(a, b)[0]` (the source binds `a`, and TVM's parse of `(a, b)[0]` differs from it).
void foldTupleLiteralFields(Graph &g, FunctionId main)
{
    // Written in place, not bound: the printer's rule (no name, a path `gv/1`, `$`, `%`).
    const auto literal = [](const std::string &name) {
        return name.empty() || name.find('/') != std::string::npos || name.front() == '$'
            || name.front() == '%';
    };
    const auto fold = [&g, &literal](TensorRef &ref) {
        const Node &item = g.node(ref.node);
        if (item.kind != NodeKind::TupleGetItem || item.inputs.empty() || !literal(item.name))
            return;
        const Node &tuple = g.node(item.inputs[0].node);
        if (tuple.kind == NodeKind::Tuple && literal(tuple.name)
            && static_cast<std::size_t>(item.index) < tuple.inputs.size())
            ref = tuple.inputs[static_cast<std::size_t>(item.index)];
    };
    const NodeId result = g.function(main).result;
    if (!result.isValid())
        return;
    if (g.node(result).kind == NodeKind::Tuple && literal(g.node(result).name)) {
        for (TensorRef &in : g.node(result).inputs)
            fold(in);
    } else {
        TensorRef ref { result, 0 };
        fold(ref);
        g.function(main).result = ref.node;
    }
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
    if (main.isValid())
        copyFunctionAttrs(src, plan.function(), g, main);
    const std::string table = constantTable(src);
    for (std::size_t i = 0; i < g.nodeCount(); ++i) {
        Node &n = g.node(NodeId(i));
        if (const auto idx = indexAfter(n.metaRef(), relayPrefix))
            n.setMetaRef(relaxRef(table, *idx));
    }
    for (ModuleConstant &c : module.constants) {
        if (const auto idx = indexAfter(c.moduleRef, relayPrefix))
            c.moduleRef = relaxRef(table, *idx);
    }
    addCalledPrimFuncs(src, g);
    if (main.isValid())
        foldTupleLiteralFields(g, main);
    if (main.isValid() && passThrough.empty())
        keepResultBinding(src.function(plan.function()), src, boundary.interfaces.at(k), g, main);
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
    const std::vector<std::size_t> kept
        = summarizeConstants(src, module, relaxConstantIndex, summary);
    if (!src.metadata().empty() && !kept.empty())
        keepMetadataSubset(src, kept, relaxMetadataSubset, "metadata header",
                           "mod" + std::to_string(k) + ".relax.py", module.graph, diagnostics);
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
