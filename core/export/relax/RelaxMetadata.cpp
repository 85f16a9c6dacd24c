// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relax/RelaxMetadata.h"

#include "core/support/NodeGraphIndex.h"
#include "core/support/NodeGraphPrune.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>

namespace cleave {

namespace {

using OrderedJson = nlohmann::ordered_json;

/// The tables that hold a module's constants: `relax.expr.Constant` up to TVM 0.26,
/// `ir.GenericConst` from TVM 0.27 (whose JSON is the tvm-ffi graph format: `root_index`, nodes
/// of `{"type", "data"}`, tensor payloads in `ffi.Tensor` nodes).
const std::string constantKeys[] = { "relax.expr.Constant", "ir.GenericConst" };

/// How TVM's node graph stores one attribute: a node reference (the node's index as a decimal
/// string), a plain value (dtype, ndim, an immediate's value), or an index into `b64ndarrays`.
enum class Field {
    Ref,
    Value,
    Payload,
};

/// The attribute fields of the node types a Relax constant's metadata reaches (TVM ≤ 0.20's
/// reflection: `relax.expr.Constant` and its struct info, shapes, types and spans). A type or
/// field missing here makes the pruning step back (references cannot be told from values).
const std::map<std::string, std::map<std::string, Field>> &knownTypes()
{
    static const std::map<std::string, std::map<std::string, Field>> types = [] {
        std::map<std::string, std::map<std::string, Field>> t;
        const Field r = Field::Ref;
        const Field v = Field::Value;
        t["relax.expr.Constant"] = { { "_checked_type_", r },
                                     { "span", r },
                                     { "struct_info_", r },
                                     { "virtual_device_", r },
                                     { "data", Field::Payload } };
        t["relax.expr.ShapeExpr"] = { { "_checked_type_", r },
                                      { "span", r },
                                      { "struct_info_", r },
                                      { "virtual_device_", r },
                                      { "values", r } };
        t["relax.TensorStructInfo"]
            = { { "shape", r }, { "span", r }, { "vdevice", r }, { "dtype", v }, { "ndim", v } };
        t["relax.ShapeStructInfo"] = { { "values", r }, { "span", r }, { "ndim", v } };
        t["relax.ShapeType"] = { { "span", r }, { "ndim", v } };
        t["relax.DynTensorType"] = { { "span", r }, { "dtype", v }, { "ndim", v } };
        t["relax.TensorType"] = t["relax.DynTensorType"];
        t["relax.ObjectType"] = { { "span", r } };
        t["relax.ObjectStructInfo"] = { { "span", r } };
        t["relax.TupleStructInfo"] = { { "fields", r }, { "span", r } };
        t["relax.TupleType"] = { { "fields", r }, { "span", r } };
        t["TupleType"] = t["relax.TupleType"];
        t["relax.PrimStructInfo"] = { { "value", r }, { "span", r }, { "dtype", v } };
        t["PrimType"] = { { "span", r }, { "dtype", v } };
        t["IntImm"] = { { "span", r }, { "dtype", v }, { "value", v } };
        t["FloatImm"] = t["IntImm"];
        t["Span"] = { { "source_name", r },
                      { "line", v },
                      { "column", v },
                      { "end_line", v },
                      { "end_column", v } };
        t["SourceName"] = { { "name", r } };
        return t;
    }();
    return types;
}

/// Calls `visit` on every node reference `node` holds (values that can be rewritten in place).
/// False when the node has a field of unknown kind.
bool forEachRef(OrderedJson &node, const std::function<void(OrderedJson &)> &visit)
{
    if (!node.is_object())
        return false;
    const std::string type = node.value("type_key", "");
    if (type == "Array" || type == "Map") {
        if (node.contains("data") && node["data"].is_array()) {
            for (OrderedJson &ref : node["data"])
                visit(ref);
        }
        if (node.contains("keys") && node["keys"].is_array()) {
            for (OrderedJson &key : node["keys"]) {
                if (!key.is_string())
                    visit(key);
            }
        }
        return true;
    }
    if (!node.contains("attrs"))
        return !node.contains("data") && !node.contains("keys"); // the null node, a String
    const auto known = knownTypes().find(type);
    if (known == knownTypes().end() || !node["attrs"].is_object())
        return false;
    for (auto it = node["attrs"].begin(); it != node["attrs"].end(); ++it) {
        const auto field = known->second.find(it.key());
        if (field == known->second.end())
            return false;
        if (field->second == Field::Ref)
            visit(it.value());
    }
    return true;
}

bool isConstantKey(const OrderedJson &key)
{
    return key.is_string()
        && std::find(std::begin(constantKeys), std::end(constantKeys), key.get<std::string>())
        != std::end(constantKeys);
}

/// True for TVM 0.27's tvm-ffi graph format (`root_index`), false for the legacy one (`root`).
bool isFfiGraph(const OrderedJson &doc)
{
    return doc.is_object() && doc.contains("root_index");
}

/// The constant table's array node of a tvm-ffi graph: the root `ffi.Map` holds key and value
/// node indices in turn, each key an `ffi.String` node.
OrderedJson *ffiConstantArray(OrderedJson &doc)
{
    OrderedJson &nodes = doc["nodes"];
    const auto root = nodeGraphIndex(doc["root_index"]);
    if (!root || *root >= nodes.size() || !nodes[*root].is_object()
        || nodes[*root].value("type", "") != "ffi.Map" || !nodes[*root].contains("data")
        || !nodes[*root]["data"].is_array())
        return nullptr;
    const OrderedJson &pairs = nodes[*root]["data"];
    for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
        const auto key = nodeGraphIndex(pairs[i]);
        const auto value = nodeGraphIndex(pairs[i + 1]);
        if (!key || !value || *key >= nodes.size() || *value >= nodes.size()
            || !nodes[*key].is_object() || !isConstantKey(nodes[*key].value("data", OrderedJson())))
            continue;
        if (nodes[*value].is_object() && nodes[*value].contains("data")
            && nodes[*value]["data"].is_array())
            return &nodes[*value];
    }
    return nullptr;
}

/// The constant table's array node of a metadata document, or nullptr.
OrderedJson *constantArray(OrderedJson &doc)
{
    if (!doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array())
        return nullptr;
    if (isFfiGraph(doc))
        return ffiConstantArray(doc);
    OrderedJson &nodes = doc["nodes"];
    const auto root = nodeGraphIndex(doc.value("root", OrderedJson(0)));
    if (!root || *root >= nodes.size() || !nodes[*root].is_object()
        || !nodes[*root].contains("keys"))
        return nullptr;
    const OrderedJson &keys = nodes[*root]["keys"];
    const OrderedJson &data = nodes[*root].value("data", OrderedJson::array());
    for (std::size_t i = 0; i < keys.size() && i < data.size(); ++i) {
        if (!isConstantKey(keys[i]))
            continue;
        const auto arr = nodeGraphIndex(data[i]);
        if (arr && *arr < nodes.size() && nodes[*arr].is_object() && nodes[*arr].contains("data")
            && nodes[*arr]["data"].is_array())
            return &nodes[*arr];
    }
    return nullptr;
}

/// Drops the nodes and payloads the root no longer reaches and renumbers the rest, keeping
/// their order; nullopt when the graph cannot be pruned safely.
std::optional<OrderedJson> pruned(OrderedJson doc)
{
    OrderedJson &nodes = doc["nodes"];
    const auto root = nodeGraphIndex(doc.value("root", OrderedJson(0)));
    if (!root || *root == 0 || *root >= nodes.size())
        return std::nullopt;
    auto order = reachableNodes(nodes, *root, forEachRef, DanglingRef::Fail);
    if (!order)
        return std::nullopt;
    std::sort(order->begin(), order->end()); // the kept nodes stay in their order
    auto kept = prunedNodeGraph(nodes, *order, doc.value("b64ndarrays", OrderedJson::array()),
                                "relax.expr.Constant", forEachRef, DanglingRef::Fail);
    if (!kept)
        return std::nullopt;
    OrderedJson out = OrderedJson::object();
    out["root"] = static_cast<std::size_t>(std::lower_bound(order->begin(), order->end(), *root)
                                           - order->begin());
    out["nodes"] = std::move(kept->nodes);
    out["b64ndarrays"] = std::move(kept->payloads);
    if (doc.contains("attrs"))
        out["attrs"] = doc["attrs"];
    return out;
}

std::optional<std::string> uncheckedSubset(const std::string &source,
                                           const std::vector<std::size_t> &constants)
{
    OrderedJson doc = OrderedJson::parse(source, nullptr, false);
    if (doc.is_discarded())
        return std::nullopt;
    OrderedJson *array = constantArray(doc);
    if (!array)
        return std::nullopt;
    const OrderedJson all = (*array)["data"];
    OrderedJson kept = OrderedJson::array();
    for (std::size_t i : constants) {
        if (i >= all.size())
            return std::nullopt;
        kept.push_back(all[i]);
    }
    (*array)["data"] = std::move(kept);
    // The tvm-ffi graph keeps its nodes: only the table is cut down (a valid document).
    if (isFfiGraph(doc))
        return doc.dump(2);
    if (std::optional<OrderedJson> small = pruned(doc))
        return small->dump(2);
    return doc.dump(2);
}

std::optional<std::vector<std::string>> uncheckedPayloads(const std::string &metadata)
{
    OrderedJson doc = OrderedJson::parse(metadata, nullptr, false);
    if (doc.is_discarded())
        return std::nullopt;
    const OrderedJson *array = constantArray(doc);
    if (!array)
        return std::nullopt;
    const OrderedJson &nodes = doc["nodes"];
    const OrderedJson b64 = doc.value("b64ndarrays", OrderedJson::array());
    std::vector<std::string> payloads;
    const bool ffi = isFfiGraph(doc);
    for (const OrderedJson &ref : (*array)["data"]) {
        std::string payload;
        const auto c = nodeGraphIndex(ref);
        if (ffi && c && *c < nodes.size() && nodes[*c].is_object()) {
            // {"type": "ir.GenericConst", "data": {"value": i}}, i an ffi.Tensor node.
            const OrderedJson data = nodes[*c].value("data", OrderedJson::object());
            const auto t = data.is_object() ? nodeGraphIndex(data.value("value", OrderedJson("")))
                                            : std::nullopt;
            if (t && *t < nodes.size() && nodes[*t].is_object()
                && nodes[*t].value("data", OrderedJson()).is_string())
                payload = nodes[*t]["data"].get<std::string>();
        } else if (c && *c < nodes.size() && nodes[*c].is_object()) {
            const OrderedJson attrs = nodes[*c].value("attrs", OrderedJson::object());
            const auto k = nodeGraphIndex(attrs.value("data", OrderedJson("")));
            if (k && *k < b64.size() && b64[*k].is_string())
                payload = b64[*k].get<std::string>();
        }
        payloads.push_back(std::move(payload));
    }
    return payloads;
}

} // namespace

std::optional<std::size_t> relaxConstantIndex(const std::string &metaRef)
{
    for (const std::string &key : constantKeys) {
        const std::string prefix = "metadata[\"" + key + "\"][";
        if (metaRef.rfind(prefix, 0) != 0 || metaRef.size() <= prefix.size() + 1
            || metaRef.back() != ']')
            continue;
        const std::string digits
            = metaRef.substr(prefix.size(), metaRef.size() - prefix.size() - 1);
        if (digits.size() > 12)
            return std::nullopt;
        return nodeGraphIndex(OrderedJson(digits));
    }
    return std::nullopt;
}

// The header comes from the model file: any structure nlohmann rejects (a type_error from
// value() on a non-object) means "cannot subset", never a crash.
std::optional<std::string> relaxMetadataSubset(const std::string &source,
                                               const std::vector<std::size_t> &constants)
{
    try {
        return uncheckedSubset(source, constants);
    } catch (const nlohmann::json::exception &) {
        return std::nullopt;
    }
}

std::optional<std::vector<std::string>> relaxConstantPayloads(const std::string &metadata)
{
    try {
        return uncheckedPayloads(metadata);
    } catch (const nlohmann::json::exception &) {
        return std::nullopt;
    }
}

} // namespace cleave
