// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relay/RelayMetadata.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <map>

namespace cleave::relay {

namespace {

using nlohmann::json;

// Node references inside TVM's JSON are decimal strings.
const json *refNode(const json &nodes, const json &ref)
{
    std::size_t idx = 0;
    if (ref.is_string()) {
        const std::string &s = ref.get_ref<const std::string &>();
        if (std::from_chars(s.data(), s.data() + s.size(), idx).ec != std::errc())
            return nullptr;
    } else if (ref.is_number_unsigned() || ref.is_number_integer()) {
        idx = ref.get<std::size_t>();
    } else {
        return nullptr;
    }
    return idx < nodes.size() ? &nodes[idx] : nullptr;
}

Type tensorTypeOf(const json &nodes, const json &typeNode)
{
    if (!typeNode.is_object() || typeNode.value("type_key", "") != "relay.TensorType")
        return {};
    const json &attrs = typeNode.value("attrs", json::object());
    const json *shape = attrs.contains("shape") ? refNode(nodes, attrs["shape"]) : nullptr;
    if (!shape || !shape->contains("data"))
        return {};
    std::vector<Dim> dims;
    for (const json &d : (*shape)["data"]) {
        const json *imm = refNode(nodes, d);
        if (!imm || imm->value("type_key", "") != "IntImm")
            dims.push_back(Dim::unknown());
        else
            dims.push_back(Dim::known(std::stoll((*imm)["attrs"].value("value", "-1"))));
    }
    return Type::tensor(std::move(dims), attrs.value("dtype", "float32"));
}

// An attrs field is either a plain value ("1", "NCHW") or, for object fields such as
// `strides`, a decimal reference to another metadata node. References to arrays and integer
// immediates are followed; any other digit string is a plain integer (bools, enums, counts).
AttrValue attrValueOf(const json &nodes, const std::string &s)
{
    std::int64_t v = 0;
    const char *end = s.data() + s.size();
    if (s.empty() || std::from_chars(s.data(), end, v).ptr != end)
        return AttrValue::string(s);
    const json *target = v > 0 ? refNode(nodes, json(s)) : nullptr;
    const std::string kind = target && target->is_object() ? target->value("type_key", "") : std::string();
    if (kind == "IntImm")
        return AttrValue::integer(std::stoll((*target)["attrs"].value("value", "0")),
                                  (*target)["attrs"].value("dtype", "int32"));
    if (kind == "Array" && target->contains("data")) {
        std::vector<AttrValue> items;
        for (const json &ref : (*target)["data"]) {
            const json *item = refNode(nodes, ref);
            if (!item || item->value("type_key", "") != "IntImm")
                return AttrValue::integer(v);
            items.push_back(AttrValue::integer(std::stoll((*item)["attrs"].value("value", "0")),
                                               (*item)["attrs"].value("dtype", "int32")));
        }
        return AttrValue::listOf(std::move(items));
    }
    return AttrValue::integer(v);
}

// `meta[relay.Constant][3]` → ("relay.Constant", 3).
bool splitRef(const std::string &ref, std::string &key, std::size_t &index)
{
    const std::size_t a = ref.find('[');
    const std::size_t b = ref.find("][");
    if (a == std::string::npos || b == std::string::npos)
        return false;
    key = ref.substr(a + 1, b - a - 1);
    const std::string digits = ref.substr(b + 2, ref.size() - b - 3);
    return std::from_chars(digits.data(), digits.data() + digits.size(), index).ec == std::errc();
}

} // namespace

void applyMetadata(Graph &graph, const std::string &path, std::vector<Diagnostic> &diagnostics)
{
    const json doc = json::parse(graph.metadata(), nullptr, false);
    auto warn = [&](const std::string &message) {
        Diagnostic d;
        d.severity = Severity::Warning;
        d.code = "relay.metadata";
        d.message = message;
        d.where.file = path;
        diagnostics.push_back(std::move(d));
    };
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array()) {
        warn("the #[metadata] section is not valid TVM metadata JSON; constants keep their annotated types");
        return;
    }
    const json &nodes = doc["nodes"];
    const json *root = refNode(nodes, doc.value("root", json(0)));
    if (!root || !root->contains("keys") || !root->contains("data")) {
        warn("the #[metadata] section has no root map");
        return;
    }
    // type key → the metadata nodes of meta[key][0], meta[key][1], ...
    std::map<std::string, std::vector<const json *>> tables;
    const json &keys = (*root)["keys"];
    const json &data = (*root)["data"];
    for (std::size_t i = 0; i < keys.size() && i < data.size(); ++i) {
        const json *array = refNode(nodes, data[i]);
        if (!array || !array->contains("data") || !keys[i].is_string())
            continue;
        auto &table = tables[keys[i].get<std::string>()];
        for (const json &ref : (*array)["data"])
            table.push_back(refNode(nodes, ref));
    }
    std::string key;
    std::size_t index = 0;
    for (std::size_t i = 0; i < graph.nodeCount(); ++i) {
        Node &n = graph.node(NodeId(i));
        const std::string &ref = n.kind == NodeKind::Constant ? n.metaRef : n.attrsRef;
        if (ref.empty() || !splitRef(ref, key, index))
            continue;
        auto it = tables.find(key);
        if (it == tables.end() || index >= it->second.size() || !it->second[index]) {
            warn(ref + " is not in the #[metadata] section");
            continue;
        }
        const json &entry = *it->second[index];
        const json &attrs = entry.value("attrs", json::object());
        if (n.kind == NodeKind::Constant) {
            if (!n.outputType().isUnknown() || !attrs.contains("_checked_type_"))
                continue;
            if (const json *t = refNode(nodes, attrs["_checked_type_"])) {
                n.outputTypes[0] = tensorTypeOf(nodes, *t);
                n.typeAnnotated = !n.outputTypes[0].isUnknown();
            }
        } else if (n.attrs.isEmpty()) {
            for (const auto &[k, v] : attrs.items()) {
                if (v.is_string())
                    n.attrs.set(k, attrValueOf(nodes, v.get<std::string>()));
            }
        }
    }
}

} // namespace cleave::relay
