// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relax/RelaxMetadataCheck.h"

#include "core/io/TensorPayload.h"
#include "core/support/NodeGraphIndex.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace cleave::relax {

namespace {

using Json = nlohmann::json;

std::string typeOf(const Json &node)
{
    for (const char *key : { "type", "type_key" }) {
        const auto it = node.find(key);
        if (it != node.end() && it->is_string())
            return it->get<std::string>();
    }
    return {};
}

/// The node references an Array or Map node holds; nullptr for any other node. A legacy Map's
/// string keys are names, not references.
struct Container
{
    std::vector<const Json *> refs;
    bool isContainer = false;
};

Container containerRefs(const Json &node)
{
    Container c;
    if (!node.is_object())
        return c;
    const std::string type = typeOf(node);
    c.isContainer = type == "Array" || type == "Map" || type == "ffi.Array" || type == "ffi.Map";
    if (!c.isContainer)
        return c;
    for (const char *key : { "data", "keys" }) {
        const auto it = node.find(key);
        if (it == node.end() || !it->is_array())
            continue;
        for (const Json &ref : *it) {
            if (!(std::string_view(key) == "keys" && ref.is_string()))
                c.refs.push_back(&ref);
        }
    }
    return c;
}

/// Payloads: every b64ndarrays entry and every ffi.Tensor node's data.
std::optional<MetadataProblem> checkPayloads(const Json &doc, const Json &nodes)
{
    const auto b64 = doc.find("b64ndarrays");
    if (b64 != doc.end()) {
        if (!b64->is_array())
            return MetadataProblem { "\"b64ndarrays\" is not an array", "nodes", 0 };
        for (std::size_t i = 0; i < b64->size(); ++i) {
            const Json &payload = (*b64)[i];
            const std::string problem = payload.is_string()
                ? tensorPayloadProblem(payload.get_ref<const std::string &>())
                : "the payload is not a string";
            if (!problem.empty())
                return MetadataProblem { "tensor payload " + std::to_string(i) + ": " + problem,
                                         "b64ndarrays", i };
        }
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const Json &node = nodes[i];
        if (!node.is_object() || typeOf(node) != "ffi.Tensor")
            continue;
        const auto data = node.find("data");
        const std::string problem = data != node.end() && data->is_string()
            ? tensorPayloadProblem(data->get_ref<const std::string &>())
            : "the payload is not a string";
        if (!problem.empty())
            return MetadataProblem { "tensor node " + std::to_string(i) + ": " + problem, "nodes",
                                     i };
    }
    return std::nullopt;
}

/// A legacy constant's attrs.data indexes b64ndarrays.
std::optional<MetadataProblem> checkConstantPayloads(const Json &doc, const Json &nodes)
{
    const std::size_t payloads = doc.contains("b64ndarrays") && doc["b64ndarrays"].is_array()
        ? doc["b64ndarrays"].size()
        : 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const Json &node = nodes[i];
        if (!node.is_object() || !node.contains("attrs") || !node["attrs"].is_object())
            continue;
        const std::string type = typeOf(node);
        if (type != "relax.expr.Constant" && type != "relay.Constant")
            continue;
        const auto data = node["attrs"].find("data");
        const auto index = data != node["attrs"].end() ? nodeGraphIndex(*data) : std::nullopt;
        if (!index || *index >= payloads)
            return MetadataProblem { "constant node " + std::to_string(i)
                                         + " names no tensor payload (there are "
                                         + std::to_string(payloads) + ")",
                                     "nodes", i };
    }
    return std::nullopt;
}

/// Container references in range, and no container on a cycle of containers (an iterative
/// depth-first search: a hostile header may chain a million containers).
std::optional<MetadataProblem> checkContainers(const Json &nodes)
{
    enum class Mark : unsigned char { New, Open, Done };
    std::vector<Mark> mark(nodes.size(), Mark::New);
    std::vector<std::vector<std::size_t>> children(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const Container c = containerRefs(nodes[i]);
        for (const Json *ref : c.refs) {
            const auto child = nodeGraphIndex(*ref);
            if (!child || *child >= nodes.size())
                return MetadataProblem { typeOf(nodes[i]) + " node " + std::to_string(i)
                                             + " references " + ref->dump()
                                             + ", which is no node (there are "
                                             + std::to_string(nodes.size()) + ")",
                                         "nodes", i };
            if (containerRefs(nodes[*child]).isContainer)
                children[i].push_back(*child);
        }
    }
    std::vector<std::pair<std::size_t, std::size_t>> stack; // node, next child
    for (std::size_t start = 0; start < nodes.size(); ++start) {
        if (mark[start] != Mark::New)
            continue;
        stack.emplace_back(start, 0);
        mark[start] = Mark::Open;
        while (!stack.empty()) {
            auto &[node, next] = stack.back();
            if (next == children[node].size()) {
                mark[node] = Mark::Done;
                stack.pop_back();
                continue;
            }
            const std::size_t child = children[node][next++];
            if (mark[child] == Mark::Open)
                return MetadataProblem { typeOf(nodes[node]) + " node " + std::to_string(node)
                                             + " references node " + std::to_string(child)
                                             + ", which contains it (a cycle)",
                                         "nodes", node };
            if (mark[child] == Mark::New) {
                mark[child] = Mark::Open;
                stack.emplace_back(child, 0);
            }
        }
    }
    return std::nullopt;
}

/// Source bytes an escape at `raw` (a backslash) spans, and the characters it decodes to.
std::pair<std::size_t, std::size_t> escapeSpan(std::string_view raw)
{
    if (raw.size() < 2)
        return { raw.size(), 1 };
    switch (raw[1]) {
    case '\n':
        return { 2, 0 }; // a line continuation
    case 'x':
        return { 4, 1 };
    case 'u':
        return { 6, 1 };
    case 'U':
        return { 10, 1 };
    case 'N': {
        const std::size_t close = raw.find('}');
        return { close == std::string_view::npos ? raw.size() : close + 1, 1 };
    }
    default:
        break;
    }
    std::size_t n = 1;
    while (n < 4 && n < raw.size() && raw[n] >= '0' && raw[n] <= '7')
        ++n;
    return { n > 1 ? n : 2, 1 }; // octal, or a one-character escape
}

} // namespace

std::optional<MetadataProblem> checkRelaxMetadata(const nlohmann::json &doc)
{
    if (!doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array())
        return std::nullopt; // the parser reports a header that is no node graph
    const Json &nodes = doc["nodes"];
    if (auto p = checkPayloads(doc, nodes))
        return p;
    if (auto p = checkConstantPayloads(doc, nodes))
        return p;
    return checkContainers(nodes);
}

std::pair<int, int> literalPosition(std::string_view source, int line, int column,
                                    std::string_view decoded, std::size_t offset)
{
    // The literal's first byte.
    std::size_t pos = 0;
    for (int l = 1; l < line && pos != std::string_view::npos; ++l) {
        pos = source.find('\n', pos);
        pos = pos == std::string_view::npos ? pos : pos + 1;
    }
    if (pos == std::string_view::npos || column < 1)
        return { line, column };
    pos += static_cast<std::size_t>(column - 1);
    while (pos < source.size() && source[pos] != '"' && source[pos] != '\'')
        ++pos; // a prefix such as r or b
    if (pos >= source.size())
        return { line, column };
    const char quote = source[pos];
    pos += source.substr(pos, 3) == std::string(3, quote) ? 3 : 1;
    // The line and column of the value's first byte.
    const std::size_t lineStart = source.rfind('\n', pos - 1);
    int atLine = line;
    int atColumn
        = static_cast<int>(pos - (lineStart == std::string_view::npos ? 0 : lineStart + 1)) + 1;
    // Walk the source and the decoded value together up to `offset`.
    std::size_t done = 0; // decoded characters passed
    while (done < offset && done < decoded.size() && pos < source.size()) {
        std::size_t rawBytes = 1;
        std::size_t produced = 1;
        if (source[pos] == '\\') {
            const auto [bytes, chars] = escapeSpan(source.substr(pos));
            rawBytes = bytes;
            produced = chars;
        }
        for (std::size_t k = 0; k < rawBytes && pos < source.size(); ++k, ++pos) {
            if (source[pos] == '\n') {
                ++atLine;
                atColumn = 1;
            } else {
                ++atColumn;
            }
        }
        done += produced;
    }
    return { atLine, atColumn };
}

} // namespace cleave::relax
