// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/io/relax/RelaxMetadataTypes.h"

#include "core/support/NodeGraphIndex.h"

#include <nlohmann/json.hpp>

namespace cleave::relax {

namespace {

/// One document's nodes, read in either graph format: a node is `{"type", "data"}` (tvm-ffi) or
/// `{"type_key", "attrs" | "data" | "keys"}` (legacy).
class NodeGraph
{
public:
    explicit NodeGraph(const nlohmann::json &nodes)
        : m_nodes(nodes)
    {
    }

    /// The node at `ref` (an index, as a number or a decimal string), or nullptr.
    [[nodiscard]] const nlohmann::json *node(const nlohmann::json &ref) const
    {
        const auto i = nodeGraphIndex(ref);
        if (!i || *i >= m_nodes.size() || !m_nodes[*i].is_object())
            return nullptr;
        return &m_nodes[*i];
    }

    [[nodiscard]] static std::string typeOf(const nlohmann::json &node)
    {
        const auto it = node.find("type");
        if (it != node.end() && it->is_string())
            return it->get<std::string>();
        const auto key = node.find("type_key");
        return key != node.end() && key->is_string() ? key->get<std::string>() : std::string();
    }

    /// A structured node's named field (`data.<name>` or `attrs.<name>`), or nullptr.
    [[nodiscard]] static const nlohmann::json *field(const nlohmann::json &node, const char *name)
    {
        for (const char *holder : { "data", "attrs" }) {
            const auto h = node.find(holder);
            if (h != node.end() && h->is_object()) {
                const auto f = h->find(name);
                if (f != h->end())
                    return &*f;
            }
        }
        return nullptr;
    }

    /// The node `node.<name>` refers to, or nullptr.
    [[nodiscard]] const nlohmann::json *follow(const nlohmann::json &node, const char *name) const
    {
        const nlohmann::json *ref = field(node, name);
        return ref ? this->node(*ref) : nullptr;
    }

    /// The items of an array node (`ffi.Array` / `Array`), or nullptr.
    [[nodiscard]] static const nlohmann::json *items(const nlohmann::json *node)
    {
        if (!node)
            return nullptr;
        const auto d = node->find("data");
        return d != node->end() && d->is_array() ? &*d : nullptr;
    }

    /// A dim: an `IntImm` whose value is, in the tvm-ffi graph, a reference to an `int` node
    /// (`{"type": "int", "data": 8}`) and, in the legacy graph, a decimal string.
    [[nodiscard]] Dim dim(const nlohmann::json &ref) const
    {
        const nlohmann::json *imm = node(ref);
        if (!imm || typeOf(*imm).find("IntImm") == std::string::npos)
            return Dim::unknown();
        const nlohmann::json *value = field(*imm, "value");
        if (value && value->is_string()) {
            if (const auto v = nodeGraphIndex(*value))
                return Dim::known(static_cast<std::int64_t>(*v));
            return Dim::unknown();
        }
        const nlohmann::json *number = value ? node(*value) : nullptr;
        if (!number || typeOf(*number) != "int")
            return Dim::unknown();
        const auto data = number->find("data");
        if (data == number->end() || !data->is_number_integer() || data->get<long long>() < 0)
            return Dim::unknown();
        return Dim::known(data->get<std::int64_t>());
    }

    /// The dtype of a tensor type: a string (legacy), or a reference to an `ir.PrimType`.
    [[nodiscard]] std::string dtype(const nlohmann::json &tensorType) const
    {
        const nlohmann::json *d = field(tensorType, "dtype");
        if (!d)
            return {};
        if (d->is_string() && !nodeGraphIndex(*d))
            return d->get<std::string>();
        const nlohmann::json *prim = node(*d);
        const nlohmann::json *name = prim ? field(*prim, "dtype") : nullptr;
        return name && name->is_string() ? name->get<std::string>() : std::string();
    }

    /// The type of one constant node, or an unknown type.
    [[nodiscard]] Type constantType(const nlohmann::json &constant) const
    {
        const nlohmann::json *t = follow(constant, "ty");
        if (!t)
            t = follow(constant, "struct_info_");
        if (!t)
            return {};
        const std::string kind = typeOf(*t);
        if (kind != "relax.TensorType" && kind != "relax.TensorStructInfo")
            return {};
        const std::string dt = dtype(*t);
        if (dt.empty())
            return {};
        const nlohmann::json *shape = follow(*t, "shape");
        const nlohmann::json *values = shape ? items(follow(*shape, "values")) : nullptr;
        std::vector<Dim> dims;
        if (values) {
            for (const nlohmann::json &ref : *values)
                dims.push_back(dim(ref));
            return Type::tensor(std::move(dims), dt);
        }
        const nlohmann::json *ndim = field(*t, "ndim");
        const auto rank = ndim ? nodeGraphIndex(*ndim) : std::nullopt;
        if (!rank || *rank == 0 || *rank > 64)
            return {};
        return Type::tensor(std::vector<Dim>(*rank, Dim::unknown()), dt);
    }

    /// The type of every constant of the array node at `ref`.
    [[nodiscard]] std::vector<Type> table(const nlohmann::json &ref) const
    {
        std::vector<Type> types;
        if (const nlohmann::json *list = items(node(ref))) {
            for (const nlohmann::json &item : *list) {
                const nlohmann::json *constant = node(item);
                types.push_back(constant ? constantType(*constant) : Type {});
            }
        }
        return types;
    }

private:
    const nlohmann::json &m_nodes;
};

} // namespace

std::map<std::string, std::vector<Type>, std::less<>>
metadataConstantTypes(const nlohmann::json &doc)
{
    std::map<std::string, std::vector<Type>, std::less<>> tables;
    if (!doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array())
        return tables;
    const NodeGraph graph(doc["nodes"]);
    if (doc.contains("root_index")) {
        // The root ffi.Map holds key and value node indices in turn; a key is an ffi.String.
        const nlohmann::json *root = graph.node(doc["root_index"]);
        const nlohmann::json *pairs = NodeGraph::items(root);
        for (std::size_t i = 0; pairs && i + 1 < pairs->size(); i += 2) {
            const nlohmann::json *key = graph.node((*pairs)[i]);
            if (!key)
                continue;
            const auto name = key->find("data");
            if (name != key->end() && name->is_string())
                tables[name->get<std::string>()] = graph.table((*pairs)[i + 1]);
        }
        return tables;
    }
    const nlohmann::json *root = graph.node(doc.value("root", nlohmann::json(0)));
    if (!root || !root->contains("keys") || !(*root)["keys"].is_array())
        return tables;
    const nlohmann::json &keys = (*root)["keys"];
    const nlohmann::json *data = NodeGraph::items(root);
    for (std::size_t i = 0; data && i < keys.size() && i < data->size(); ++i) {
        if (keys[i].is_string())
            tables[keys[i].get<std::string>()] = graph.table((*data)[i]);
    }
    return tables;
}

} // namespace cleave::relax
