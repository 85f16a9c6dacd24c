// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relay/RelayImporter.h"

#include "core/analysis/ShapeInference.h"
#include "core/io/relay/RelayMetadata.h"
#include "core/io/relay/RelayParser.h"
#include "core/support/Utf8.h"

#include <algorithm>
#include <new>
#include <span>
#include <unordered_map>

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
// after their function (`%ret`, `%3/ret`), and `if`/`match` scopes after their node. The scratch
// memory is one NodeId per node, and none when every node is named (TVM binds every call and
// meta constants carry their reference): freed, it would stay resident while the graph builds
// its indexes, and add to the peak of a large import.
void nameNodes(Graph &g)
{
    const std::size_t n = g.nodeCount();
    const std::span<const Node> nodes = g.nodes();
    const bool allNamed = std::none_of(nodes.begin(), nodes.end(),
                                       [](const Node &node) { return node.name.empty(); });
    std::vector<NodeId> firstConsumer;
    std::unordered_map<std::uint32_t, FunctionId> resultOf; // a result's first function
    if (!allNamed) {
        firstConsumer.resize(n);
        for (std::size_t c = 0; c < n; ++c) {
            for (const TensorRef &in : nodes[c].inputs) {
                if (in.node.isValid() && !firstConsumer[in.node.index()].isValid())
                    firstConsumer[in.node.index()] = NodeId(c);
            }
        }
        for (std::size_t f = 0; f < g.functionCount(); ++f) {
            const NodeId r = g.function(FunctionId(f)).result;
            if (r.isValid())
                resultOf.try_emplace(r.value, FunctionId(f));
        }
    }
    // Consumers are created after their inputs, so walking backwards names a consumer first.
    for (std::size_t i = n; i-- > 0;) {
        Node &node = g.node(NodeId(i));
        if (node.name.empty()) {
            if (auto r = resultOf.find(static_cast<std::uint32_t>(i)); r != resultOf.end()) {
                node.name = resultName(g, r->second);
            } else if (const NodeId c = firstConsumer[i]; c.isValid()) {
                const TensorRefList &inputs = g.node(c).inputs;
                const auto k = std::find_if(inputs.begin(), inputs.end(), [i](const TensorRef &in) {
                    return in.node.index() == i;
                });
                node.name = g.node(c).name + "/" + std::to_string(k - inputs.begin());
            } else {
                node.name = "%$" + std::to_string(i);
            }
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
