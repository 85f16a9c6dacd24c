// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relay/RelayMetadataSubset.h"

#include "core/support/NodeGraphIndex.h"
#include "core/support/NodeGraphPrune.h"

#include <nlohmann/json.hpp>

#include <functional>

namespace cleave {

using Json = nlohmann::json;

namespace {

/// Attribute fields that always hold node references in TVM's node graph.
bool isStructuralRefKey(const std::string &key)
{
    return key == "span" || key == "_checked_type_" || key == "virtual_device_" || key == "shape"
        || key == "fields" || key == "type_params" || key == "arg_types" || key == "ret_type"
        || key == "source_name" || key == "checked_type";
}

/// Calls `visit(value)` for every reference held by `node` (values are json strings/numbers
/// that can be rewritten in place).
void forEachRef(Json &node, const Json &nodes, const std::function<void(Json &)> &visit)
{
    const std::string type = node.value("type_key", "");
    if ((type == "Array" || type == "Map") && node.contains("data") && node["data"].is_array()) {
        for (Json &ref : node["data"])
            visit(ref);
        if (type == "Map" && node.contains("keys") && node["keys"].is_array()) {
            for (Json &k : node["keys"]) {
                if (!k.is_string())
                    visit(k);
            }
        }
        return;
    }
    if (!node.contains("attrs") || !node["attrs"].is_object())
        return;
    for (auto it = node["attrs"].begin(); it != node["attrs"].end(); ++it) {
        const std::string &key = it.key();
        if (key == "dtype" || key == "value" || (type == "relay.Constant" && key == "data"))
            continue;
        const auto idx = nodeGraphIndex(it.value());
        if (!idx || *idx == 0 || *idx >= nodes.size())
            continue;
        if (isStructuralRefKey(key)) {
            visit(it.value());
            continue;
        }
        // Other fields (attrs objects): digit strings are references when they point at an
        // array or an integer immediate, as the importer reads them.
        const std::string target = nodes[*idx].value("type_key", "");
        if (target == "Array" || target == "IntImm" || target == "runtime.String")
            visit(it.value());
    }
}

} // namespace

std::optional<std::size_t> constantIndex(const std::string &metaRef)
{
    const std::string prefix = "meta[relay.Constant][";
    if (metaRef.rfind(prefix, 0) != 0 || metaRef.back() != ']')
        return std::nullopt;
    const std::string digits = metaRef.substr(prefix.size(), metaRef.size() - prefix.size() - 1);
    return nodeGraphIndex(Json(digits));
}

namespace {

std::optional<std::vector<std::string>> uncheckedConstantPayloads(const std::string &metadata)
{
    const Json doc = Json::parse(metadata, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("nodes")
        || !doc["nodes"].is_array())
        return std::nullopt;
    const Json &nodes = doc["nodes"];
    const Json b64 = doc.value("b64ndarrays", Json::array());
    const auto rootIdx = nodeGraphIndex(doc.value("root", Json(0)));
    if (!rootIdx || *rootIdx >= nodes.size())
        return std::nullopt;
    const Json &root = nodes[*rootIdx];
    const Json &keys = root.value("keys", Json::array());
    const Json &data = root.value("data", Json::array());
    std::vector<std::string> payloads;
    for (std::size_t i = 0; i < keys.size() && i < data.size(); ++i) {
        if (keys[i] != "relay.Constant")
            continue;
        const auto arrayIdx = nodeGraphIndex(data[i]);
        if (!arrayIdx || *arrayIdx >= nodes.size())
            return std::nullopt;
        for (const Json &ref : nodes[*arrayIdx].value("data", Json::array())) {
            const auto c = nodeGraphIndex(ref);
            std::string payload;
            if (c && *c < nodes.size()) {
                const auto d = nodeGraphIndex(
                    nodes[*c].value("attrs", Json::object()).value("data", Json("")));
                if (d && *d < b64.size() && b64[*d].is_string())
                    payload = b64[*d].get<std::string>();
            }
            payloads.push_back(std::move(payload));
        }
    }
    return payloads;
}

std::optional<std::string> uncheckedSubsetMetadata(const std::string &source,
                                                   const std::vector<std::size_t> &constants)
{
    Json doc = Json::parse(source, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("nodes")
        || !doc["nodes"].is_array())
        return std::nullopt;
    Json nodes = doc["nodes"];
    const auto rootIdx = nodeGraphIndex(doc.value("root", Json(0)));
    if (!rootIdx || *rootIdx >= nodes.size() || nodes[*rootIdx].value("type_key", "") != "Map")
        return std::nullopt;
    Json root = nodes[*rootIdx];

    // The new root: the same tables, relay.Constant restricted to the module's constants.
    Json newRoot = { { "type_key", "Map" }, { "keys", Json::array() }, { "data", Json::array() } };
    const Json &keys = root.value("keys", Json::array());
    const Json &data = root.value("data", Json::array());
    for (std::size_t i = 0; i < keys.size() && i < data.size(); ++i) {
        if (!keys[i].is_string())
            continue;
        const auto arrayIdx = nodeGraphIndex(data[i]);
        if (!arrayIdx || *arrayIdx >= nodes.size())
            continue;
        if (keys[i] == "relay.Constant") {
            if (constants.empty())
                continue;
            const Json &old = nodes[*arrayIdx].value("data", Json::array());
            Json array = { { "type_key", "Array" }, { "data", Json::array() } };
            for (std::size_t c : constants) {
                if (c >= old.size())
                    return std::nullopt;
                array["data"].push_back(old[c]);
            }
            nodes.push_back(array);
            newRoot["keys"].push_back("relay.Constant");
            newRoot["data"].push_back(nodes.size() - 1);
        } else {
            newRoot["keys"].push_back(keys[i]);
            newRoot["data"].push_back(*arrayIdx);
        }
    }
    nodes.push_back(newRoot);
    const std::size_t newRootIdx = nodes.size() - 1;

    // Reachability from the new root, then compact renumbering (node 0 stays the null node).
    const auto refs = [&nodes](Json &node, const std::function<void(Json &)> &visit) {
        forEachRef(node, nodes, visit);
        return true;
    };
    const auto order = reachableNodes(nodes, newRootIdx, refs, DanglingRef::Keep);
    auto kept = order ? prunedNodeGraph(nodes, *order, doc.value("b64ndarrays", Json::array()),
                                        "relay.Constant", refs, DanglingRef::Keep)
                      : std::nullopt;
    if (!kept)
        return std::nullopt; // Keep never gives up; this only guards the optionals
    Json out = { { "root", 1 },
                 { "nodes", std::move(kept->nodes) },
                 { "b64ndarrays", std::move(kept->payloads) } };
    if (doc.contains("attrs"))
        out["attrs"] = doc["attrs"];
    return out.dump(2);
}

} // namespace

// The section comes from the model file: any structure nlohmann rejects (a type_error from
// value() on a non-object, an index of the wrong type) means "cannot subset", never a crash.
std::optional<std::vector<std::string>> constantPayloads(const std::string &metadata)
{
    try {
        return uncheckedConstantPayloads(metadata);
    } catch (const Json::exception &) {
        return std::nullopt;
    }
}

std::optional<std::string> subsetMetadata(const std::string &source,
                                          const std::vector<std::size_t> &constants)
{
    try {
        return uncheckedSubsetMetadata(source, constants);
    } catch (const Json::exception &) {
        return std::nullopt;
    }
}

} // namespace cleave
