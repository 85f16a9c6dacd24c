// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relay/RelayMetadata.h"

#include "core/io/TensorPayload.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <map>
#include <optional>

namespace cleave::relay {

namespace {

using nlohmann::json;

// Every access checks the type and presence of what it reads: the section comes from the
// file, and nlohmann's const operator[] on a missing key is undefined behaviour.

/// The member `key` of `obj`, or nullptr when `obj` is no object or lacks it.
const json *member(const json &obj, const char *key)
{
    if (!obj.is_object())
        return nullptr;
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

/// The string member `key` of `obj`, or `fallback`.
std::string stringMember(const json &obj, const char *key, std::string fallback = {})
{
    const json *v = member(obj, key);
    return v && v->is_string() ? v->get<std::string>() : std::move(fallback);
}

/// The elements of the array member `key` of `obj` (empty when it is no array).
const std::vector<json> &arrayMember(const json &obj, const char *key)
{
    static const std::vector<json> none;
    const json *v = member(obj, key);
    return v && v->is_array() ? v->get_ref<const json::array_t &>() : none;
}

std::optional<std::int64_t> integerOf(const std::string &s)
{
    std::int64_t v = 0;
    const char *end = s.data() + s.size();
    if (s.empty() || std::from_chars(s.data(), end, v).ptr != end)
        return std::nullopt;
    return v;
}

// Node references inside TVM's JSON are decimal strings.
const json *refNode(const json &nodes, const json &ref)
{
    std::size_t idx = 0;
    if (ref.is_string()) {
        const auto &s = ref.get_ref<const std::string &>();
        if (std::from_chars(s.data(), s.data() + s.size(), idx).ec != std::errc())
            return nullptr;
    } else if (ref.is_number_unsigned()) {
        idx = ref.get<std::size_t>();
    } else {
        return nullptr;
    }
    return nodes.is_array() && idx < nodes.size() ? &nodes[idx] : nullptr;
}

/// The value of an IntImm node (`{"type_key": "IntImm", "attrs": {"value": "3"}}`).
std::optional<std::int64_t> intImmValue(const json *node)
{
    if (!node || stringMember(*node, "type_key") != "IntImm")
        return std::nullopt;
    const json *attrs = member(*node, "attrs");
    return attrs ? integerOf(stringMember(*attrs, "value")) : std::nullopt;
}

Type tensorTypeOf(const json &nodes, const json &typeNode)
{
    if (stringMember(typeNode, "type_key") != "relay.TensorType")
        return {};
    const json *attrs = member(typeNode, "attrs");
    const json *shapeRef = attrs ? member(*attrs, "shape") : nullptr;
    const json *shape = shapeRef ? refNode(nodes, *shapeRef) : nullptr;
    if (!shape || !member(*shape, "data"))
        return {};
    std::vector<Dim> dims;
    for (const json &d : arrayMember(*shape, "data")) {
        const auto value = intImmValue(refNode(nodes, d));
        dims.push_back(value && *value >= 0 ? Dim::known(*value) : Dim::unknown());
    }
    return Type::tensor(std::move(dims), stringMember(*attrs, "dtype", "float32"));
}

// An attrs field is either a plain value ("1", "NCHW") or, for object fields such as
// `strides`, a decimal reference to another metadata node. References to arrays and integer
// immediates are followed; any other digit string is a plain integer (bools, enums, counts).
AttrValue attrValueOf(const json &nodes, const std::string &s)
{
    const std::optional<std::int64_t> v = integerOf(s);
    if (!v)
        return AttrValue::string(s);
    const json *target = *v > 0 ? refNode(nodes, json(s)) : nullptr;
    const std::string kind = target ? stringMember(*target, "type_key") : std::string();
    auto dtypeOf = [](const json &node) {
        const json *attrs = member(node, "attrs");
        return attrs ? stringMember(*attrs, "dtype", "int32") : std::string("int32");
    };
    if (kind == "IntImm")
        return AttrValue::integer(intImmValue(target).value_or(0), dtypeOf(*target));
    if (kind == "Array" && member(*target, "data")) {
        std::vector<AttrValue> items;
        for (const json &ref : arrayMember(*target, "data")) {
            const json *item = refNode(nodes, ref);
            const auto value = intImmValue(item);
            if (!value)
                return AttrValue::integer(*v);
            items.push_back(AttrValue::integer(*value, dtypeOf(*item)));
        }
        return AttrValue::listOf(std::move(items));
    }
    return AttrValue::integer(*v);
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

void applyMetadata(Graph &graph, const SourceLocation &where, std::vector<Diagnostic> &diagnostics)
{
    const json doc = json::parse(graph.metadata(), nullptr, false);
    auto warn = [&](const std::string &message) {
        Diagnostic d;
        d.severity = Severity::Warning;
        d.code = "relay.metadata";
        d.message = message;
        d.where = where;
        diagnostics.push_back(std::move(d));
    };
    const json *nodesMember = member(doc, "nodes");
    if (!nodesMember || !nodesMember->is_array()) {
        warn("the #[metadata] section is not valid TVM metadata JSON; constants keep their "
             "annotated types");
        return;
    }
    const json &nodes = *nodesMember;
    const json *rootRef = member(doc, "root");
    const json *root = refNode(nodes, rootRef ? *rootRef : json(0));
    if (!root || !member(*root, "keys") || !member(*root, "data")) {
        warn("the #[metadata] section has no root map");
        return;
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (stringMember(nodes[i], "type_key") == "IntImm" && !intImmValue(&nodes[i])) {
            warn("metadata node " + std::to_string(i)
                 + " (IntImm) has no integer \"attrs\": {\"value\": ...}; references to it are "
                   "kept as plain numbers");
            break; // one such warning says enough
        }
    }
    const std::vector<json> &payloads = arrayMember(doc, "b64ndarrays");
    for (std::size_t i = 0; i < payloads.size(); ++i) {
        const std::string problem = payloads[i].is_string()
            ? tensorPayloadProblem(payloads[i].get_ref<const std::string &>())
            : "the payload is not a string";
        if (!problem.empty()) {
            warn("tensor payload " + std::to_string(i) + " of the #[metadata] section: " + problem
                 + "; TVM refuses or misreads this module's constants, and an export's that keeps "
                   "them");
            break; // one such warning says enough
        }
    }
    // type key → the metadata nodes of meta[key][0], meta[key][1], ...
    std::map<std::string, std::vector<const json *>> tables;
    const std::vector<json> &keys = arrayMember(*root, "keys");
    const std::vector<json> &data = arrayMember(*root, "data");
    for (std::size_t i = 0; i < keys.size() && i < data.size(); ++i) {
        const json *array = refNode(nodes, data[i]);
        if (!array || !member(*array, "data") || !keys[i].is_string())
            continue;
        auto &table = tables[keys[i].get<std::string>()];
        for (const json &ref : arrayMember(*array, "data"))
            table.push_back(refNode(nodes, ref));
    }
    std::string key;
    std::size_t index = 0;
    for (std::size_t i = 0; i < graph.nodeCount(); ++i) {
        Node &n = graph.node(NodeId(i));
        const std::string &ref = n.kind == NodeKind::Constant ? n.metaRef() : n.attrsRef();
        if (ref.empty() || !splitRef(ref, key, index))
            continue;
        auto it = tables.find(key);
        if (it == tables.end() || index >= it->second.size() || !it->second[index]) {
            warn(ref + " is not in the #[metadata] section");
            continue;
        }
        const json *attrs = member(*it->second[index], "attrs");
        if (!attrs || !attrs->is_object())
            continue;
        if (n.kind == NodeKind::Constant) {
            const json *checked = member(*attrs, "_checked_type_");
            if (!n.outputType().isUnknown() || !checked)
                continue;
            if (const json *t = refNode(nodes, *checked)) {
                n.setOutputType(0, tensorTypeOf(nodes, *t));
                n.typeAnnotated = !n.outputTypes()[0].isUnknown();
            }
        } else if (n.attrs.isEmpty()) {
            for (const auto &[k, v] : attrs->items()) {
                if (v.is_string())
                    n.attrs.set(k, attrValueOf(nodes, v.get<std::string>()));
            }
        }
    }
}

} // namespace cleave::relay
