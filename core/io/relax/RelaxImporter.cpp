// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relax/RelaxImporter.h"

#include "core/analysis/ShapeInference.h"
#include "core/io/relax/RelaxParser.h"

#include <algorithm>

namespace cleave {

namespace {

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Gives every unnamed node a stable name: function results are `return`, values written inline
// in a call are named after their first consumer and argument position (`lv3/1`), unused ones
// after their index. Consumers are created after their inputs, so walking backwards names a
// consumer before its arguments.
void nameNodes(Graph &g)
{
    const std::size_t n = g.nodeCount();
    std::vector<Use> firstUse(n);
    std::vector<bool> used(n, false);
    for (std::size_t c = 0; c < n; ++c) {
        const auto &inputs = g.node(NodeId(c)).inputs;
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            const NodeId p = inputs[k].node;
            if (p.isValid() && p.index() < c && !used[p.index()]) {
                used[p.index()] = true;
                firstUse[p.index()] = Use { NodeId(c), static_cast<std::uint32_t>(k) };
            }
        }
    }
    std::vector<bool> isResult(n, false);
    for (std::size_t f = 0; f < g.functionCount(); ++f) {
        const NodeId r = g.function(FunctionId(f)).result;
        if (r.isValid())
            isResult[r.index()] = true;
    }
    for (std::size_t i = n; i-- > 0;) {
        Node &node = g.node(NodeId(i));
        if (!node.name.empty())
            continue;
        if (used[i])
            node.name = g.node(firstUse[i].consumer).name + "/" + std::to_string(firstUse[i].input);
        else if (isResult[i])
            node.name = "return";
        else
            node.name = "$" + std::to_string(i);
    }
}

/// True when some node has no type yet (a binding printed without its annotation): only then
/// is shape inference worth its walk over the module.
bool hasUntypedNode(const Graph &g)
{
    return std::ranges::any_of(g.nodes(), [](const Node &n) { return n.outputType().isUnknown(); });
}

} // namespace

bool RelaxImporter::canRead(std::string_view path, std::string_view head) const
{
    if (endsWith(path, ".relax.py") || endsWith(path, ".relax"))
        return true;
    return head.find("@I.ir_module") != std::string_view::npos
        || head.find("@tvm.script.ir_module") != std::string_view::npos
        || head.find("from tvm.script import relax") != std::string_view::npos;
}

ImportResult RelaxImporter::importBytes(std::string_view bytes, const std::string &path) const
{
    return guardedImport(path, "relax.internal", [&](ImportResult &result) {
        std::unique_ptr<Graph> graph;
        try {
            relax::RelaxParser parser(bytes);
            try {
                graph = parser.parse();
            } catch (const relax::ParseError &e) {
                if (!parser.reusedKeywords())
                    throw;
                // The error may lie in keyword arguments shared with an earlier call, and so be
                // placed there: read again without sharing, which places it where it is.
                relax::RelaxParser(bytes, false).parse();
                throw; // (not reached: the same text fails the same way)
            }
        } catch (const relax::ParseError &e) {
            result.diagnostics.push_back(parseErrorDiagnostic(e, path));
            return;
        }
        nameNodes(*graph);
        if (hasUntypedNode(*graph))
            inferTypes(*graph, false); // bindings printed without annotations
        graph->finalize();
        result.graph = std::move(graph);
    });
}

} // namespace cleave
