// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relay/RelayImporter.h"

#include "core/analysis/ShapeInference.h"
#include "core/io/relay/RelayMetadata.h"
#include "core/io/relay/RelayParser.h"
#include "core/support/Utf8.h"

#include <algorithm>
#include <new>

namespace cleave {

namespace {

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string resultName(const Graph &g, FunctionId f)
{
    const Function &fn = g.function(f);
    if (fn.kind == Function::Kind::Global)
        return "%ret";
    return fn.name + "/ret";
}

// Gives every node a stable name: bound nodes already carry their binding (`%12`); inline
// values are named after their first consumer and argument position (`%12/1`), function results
// after their function (`%ret`, `%3/ret`), and `if`/`match` scopes after their node.
void nameNodes(Graph &g)
{
    const std::size_t n = g.nodeCount();
    std::vector<Use> firstUse(n);
    std::vector<bool> used(n, false);
    for (std::size_t c = 0; c < n; ++c) {
        const auto &inputs = g.node(NodeId(c)).inputs;
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            const NodeId p = inputs[k].node;
            if (p.isValid() && !used[p.index()]) {
                used[p.index()] = true;
                firstUse[p.index()] = Use { NodeId(c), static_cast<std::uint32_t>(k) };
            }
        }
    }
    std::vector<bool> isResult(n, false);
    std::vector<FunctionId> resultOf(n);
    for (std::size_t f = 0; f < g.functionCount(); ++f) {
        const NodeId r = g.function(FunctionId(f)).result;
        if (r.isValid() && !isResult[r.index()]) {
            isResult[r.index()] = true;
            resultOf[r.index()] = FunctionId(f);
        }
    }
    // Consumers are created after their inputs, so walking backwards names a consumer first.
    for (std::size_t i = n; i-- > 0;) {
        Node &node = g.node(NodeId(i));
        if (node.name.empty()) {
            if (isResult[i])
                node.name = resultName(g, resultOf[i]);
            else if (used[i])
                node.name
                    = g.node(firstUse[i].consumer).name + "/" + std::to_string(firstUse[i].input);
            else
                node.name = "%$" + std::to_string(i);
        }
        if (node.kind == NodeKind::If && node.scopes().size() == 2) {
            g.function(node.scopes()[0]).name = node.name + "/then";
            g.function(node.scopes()[1]).name = node.name + "/else";
        } else if (node.kind == NodeKind::Match) {
            for (std::size_t k = 0; k < node.scopes().size(); ++k)
                g.function(node.scopes()[k]).name = node.name + "/case" + std::to_string(k);
        }
    }
}

} // namespace

bool RelayImporter::canRead(std::string_view path, std::string_view head) const
{
    if (endsWith(path, ".relay") || endsWith(path, ".relay.txt") || endsWith(path, ".rly"))
        return true;
    return head.find("def @") != std::string_view::npos
        || head.find("#[version") != std::string_view::npos
        || head.find("free_var %") != std::string_view::npos || head.rfind("fn (", 0) == 0;
}

namespace {

/// Where the `#[metadata]` header is (the last one: headers inside comments come earlier).
SourceLocation metadataLocation(std::string_view bytes, const std::string &path)
{
    const std::size_t offset = bytes.rfind("#[metadata]");
    return locationAt(bytes, offset == std::string_view::npos ? 0 : offset, path);
}

} // namespace

ImportResult RelayImporter::importBytes(std::string_view bytes, const std::string &path) const
{
    return guardedImport(path, "relay.internal", [&](ImportResult &result) {
        if (const std::size_t bad = firstInvalidUtf8(bytes); bad != std::string_view::npos) {
            static const char hex[] = "0123456789ABCDEF";
            const auto byte = static_cast<unsigned char>(bytes[bad]);
            Diagnostic d = Diagnostic::make(Severity::Error, "relay.encoding",
                                            std::string("invalid UTF-8 (byte 0x") + hex[byte >> 4]
                                                + hex[byte & 15] + "): Relay text is UTF-8");
            d.where = locationAt(bytes, bad, path);
            result.diagnostics.push_back(std::move(d));
            return;
        }
        try {
            // The parser (its scopes and caches) is gone before the graph builds its indexes.
            std::unique_ptr<Graph> graph = relay::RelayParser(bytes).parse();
            nameNodes(*graph);
            if (!graph->metadata().empty())
                relay::applyMetadata(*graph, metadataLocation(bytes, path), result.diagnostics);
            inferTypes(*graph, false);
            graph->finalize();
            result.graph = std::move(graph);
        } catch (const relay::ParseError &e) {
            result.diagnostics.push_back(parseErrorDiagnostic(e, path));
        }
    });
}

} // namespace cleave
