// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/Graph.h"

#include "core/graph/NodeText.h"
#include "core/support/Decimal.h"
#include "core/support/MemoryPages.h"

#include <queue>

#include <algorithm>
#include <array>
#include <functional>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace cleave {

const char *nodeKindName(NodeKind kind)
{
    switch (kind) {
    case NodeKind::Input:
        return "input";
    case NodeKind::Constant:
        return "constant";
    case NodeKind::OpCall:
        return "op";
    case NodeKind::FunctionCall:
        return "call";
    case NodeKind::ClosureCall:
        return "closure call";
    case NodeKind::ConstructorCall:
        return "constructor";
    case NodeKind::Tuple:
        return "tuple";
    case NodeKind::TupleGetItem:
        return "tuple item";
    case NodeKind::FunctionValue:
        return "function";
    case NodeKind::If:
        return "if";
    case NodeKind::Match:
        return "match";
    }
    return "node";
}

const Type &Node::outputType(std::size_t i) const
{
    static const Type unknownType;
    const Type *type = m_outputTypes.get(i);
    return type != nullptr ? *type : unknownType;
}

const NodeDetail &Node::noDetail()
{
    static const NodeDetail empty;
    return empty;
}

NodeDetail &Node::editDetail()
{
    // Copy on write: a copied node shares its detail until one of the copies changes it.
    return m_detail.unshared();
}

// Setters leave a node without a detail when the value is empty and there is none yet: importers
// set every field of every node, and most of those values are empty.
void Node::setAttrsRef(std::string ref)
{
    if (m_detail.hasValue() || !ref.empty())
        editDetail().attrsRef = std::move(ref);
}

void Node::setValue(AttrValue value)
{
    if (m_detail.hasValue() || !value.isNull())
        editDetail().value = std::move(value);
}

namespace {

// The meta reference spellings a Constant holds inline, by form (form k is entry k - 1): the
// prefix before the index, which is followed by `]`.
constexpr std::array<std::string_view, 3> inlineMetaPrefixes {
    "meta[relay.Constant][", "metadata[\"relax.expr.Constant\"][",
    "metadata[\"ir.GenericConst\"][", // TVM 0.27's printing
};

// The form and index of `ref` when it is `prefix<digits>]` with a canonical decimal index
// (no sign, no leading zero) that fits 32 bits; form 0 otherwise.
std::pair<std::uint8_t, std::uint32_t> inlineMetaRef(std::string_view ref)
{
    for (std::size_t k = 0; k < inlineMetaPrefixes.size(); ++k) {
        const std::string_view prefix = inlineMetaPrefixes[k];
        if (ref.size() < prefix.size() + 2 || !ref.starts_with(prefix) || ref.back() != ']')
            continue;
        const std::optional<std::uint32_t> value
            = canonicalDecimal(ref.substr(prefix.size(), ref.size() - prefix.size() - 1));
        if (!value)
            return { 0, 0 };
        return { static_cast<std::uint8_t>(k + 1), *value };
    }
    return { 0, 0 };
}

} // namespace

std::string Node::metaRef() const
{
    if (m_metaForm == 0)
        return detail().metaRef;
    std::string ref(inlineMetaPrefixes[m_metaForm - 1]);
    ref += std::to_string(index);
    ref += ']';
    return ref;
}

void Node::setMetaRef(std::string ref)
{
    const auto [form, i] = kind == NodeKind::Constant ? inlineMetaRef(ref)
                                                      : std::pair<std::uint8_t, std::uint32_t> {};
    m_metaForm = form;
    if (form != 0) {
        index = i;
        ref.clear();
    }
    if (m_detail.hasValue() || !ref.empty())
        editDetail().metaRef = std::move(ref);
}

void Node::setSpan(std::string span)
{
    if (m_detail.hasValue() || !span.empty())
        editDetail().span = std::move(span);
}

void Node::setScopes(std::vector<FunctionId> scopes)
{
    if (m_detail.hasValue() || !scopes.empty())
        editDetail().scopes = std::move(scopes);
}

void Node::setPatterns(std::vector<Pattern> patterns)
{
    if (m_detail.hasValue() || !patterns.empty())
        editDetail().patterns = std::move(patterns);
}

void Node::setOutputNames(std::vector<std::string> names)
{
    if (m_detail.hasValue() || !names.empty())
        editDetail().outputNames = std::move(names);
}

void Node::setPartialMatch(bool partial)
{
    if (m_detail.hasValue() || partial)
        editDetail().partialMatch = partial;
}

bool Node::isOperator() const
{
    switch (kind) {
    case NodeKind::OpCall:
    case NodeKind::FunctionCall:
    case NodeKind::ClosureCall:
    case NodeKind::ConstructorCall:
    case NodeKind::If:
    case NodeKind::Match:
        return true;
    default:
        return false;
    }
}

bool Function::isPrimitive() const
{
    const AttrValue *v = attrs.find("Primitive");
    return v && v->toInt().value_or(0) != 0;
}

std::string Function::composite() const
{
    return attrs.stringOr("Composite", {});
}

std::string Function::compiler() const
{
    const std::string compiler = attrs.stringOr("Compiler", {});
    return compiler.empty() ? attrs.stringOr("Codegen", {}) : compiler;
}

FunctionId Graph::addFunction(Function f)
{
    m_functions.push_back(std::move(f));
    return FunctionId(m_functions.size() - 1);
}

NodeId Graph::addNode(Node &&n)
{
    const NodeId id(m_nodes.size());
    if (n.outputTypes().empty()) {
        // Interned once: most importers add a node first and type it afterwards.
        static const TypeList unknownList { Type::unknown() };
        n.setOutputTypes(unknownList);
    }
    m_functions[n.function.index()].nodes.push_back(id);
    m_nodes.push_back(std::move(n));
    return id;
}

NodeId Graph::addParam(FunctionId f, std::string name, const Type &type)
{
    Node n;
    n.kind = NodeKind::Input;
    n.function = f;
    n.name = std::move(name);
    n.setOutputTypes({ type });
    n.typeAnnotated = true;
    const NodeId id = addNode(std::move(n));
    m_functions[f.index()].params.push_back(id);
    return id;
}

void Graph::finalize()
{
    // Importers reserve from an estimate; what it left unused goes back to the system page by
    // page. Moving every node into a fitting buffer instead would hold both at once: for rnnt
    // twice its nodes at the peak of the import, for a 100 MB module some 150 MB more.
    releasePages(m_nodes.data() + m_nodes.size(),
                 (m_nodes.capacity() - m_nodes.size()) * sizeof(Node));
    // Keys first: sorting them needs scratch memory that is given back before the consumer index
    // is built, so the two do not add up at the peak of a large import.
    m_main = chooseMainFunction(true);
    buildKeys();

    const std::size_t n = m_nodes.size();
    // Consumer index in CSR form: one pass to count, one to fill, so uses() is O(1).
    m_useOffsets.assign(n + 1, 0);
    for (const Node &node : m_nodes) {
        for (const TensorRef &in : node.inputs) {
            if (in.node.isValid() && in.node.index() < n)
                ++m_useOffsets[in.node.index() + 1];
        }
    }
    for (std::size_t i = 0; i < n; ++i)
        m_useOffsets[i + 1] += m_useOffsets[i];
    m_uses.assign(m_useOffsets[n], Use {});
    // Filled backwards, with the end of node p's run (offsets[p + 1]) as its cursor: no scratch
    // array, and each run still ends up in ascending consumer and input order. Afterwards
    // offsets[p + 1] holds the start of p's run, so the array moves down one place.
    for (std::size_t c = n; c-- > 0;) {
        const auto &inputs = m_nodes[c].inputs;
        for (std::size_t k = inputs.size(); k-- > 0;) {
            const NodeId p = inputs[k].node;
            if (p.isValid() && p.index() < n)
                m_uses[--m_useOffsets[p.index() + 1]]
                    = Use { NodeId(c), static_cast<std::uint32_t>(k) };
        }
    }
    std::copy(m_useOffsets.begin() + 1, m_useOffsets.end(), m_useOffsets.begin());
    m_useOffsets[n] = static_cast<std::uint32_t>(m_uses.size());
}

void Graph::buildKeys()
{
    // Stable keys: the source name, qualified outside the main function. Only keys that differ
    // from the name are stored.
    const std::size_t n = m_nodes.size();
    // Keys stay what they were before mainFunction() preferred the largest public function, so
    // plan files and projects of modules without `main` keep naming the same nodes.
    const FunctionId mainFn = chooseMainFunction(false);
    m_keySlot.clear(); // made on the first key that differs from its node's name
    m_otherKeys.clear();
    for (std::size_t i = 0; i < n; ++i) {
        const Node &node = m_nodes[i];
        const FunctionId top = topLevelFunction(node.function);
        const bool qualified = top.isValid() && top != mainFn;
        if (!node.name.empty() && !qualified)
            continue;
        std::string key = node.name.empty() ? "$" + std::to_string(i) : node.name;
        if (qualified)
            key.insert(0, "@" + m_functions[top.index()].name + ":");
        if (m_keySlot.empty())
            m_keySlot.assign(n, noSlot);
        m_keySlot[i] = static_cast<std::uint32_t>(m_otherKeys.size());
        m_otherKeys.push_back(std::move(key));
    }
    if (indexKeys())
        return;

    // Ambiguous keys (rare): in node order, a key already taken gets the first free `#k`.
    std::unordered_set<std::string> taken;
    taken.reserve(n);
    std::vector<std::uint32_t> slots(n, noSlot);
    std::vector<std::string> others;
    for (std::size_t i = 0; i < n; ++i) {
        std::string key = text::uniqueKey(this->key(NodeId(i)), taken);
        if (key != m_nodes[i].name) {
            slots[i] = static_cast<std::uint32_t>(others.size());
            others.push_back(std::move(key));
        }
    }
    m_keySlot = std::move(slots);
    m_otherKeys = std::move(others);
    indexKeys();
}

bool Graph::indexKeys()
{
    m_keyIndex.reset(m_nodes.size());
    const auto keyOf = [this](std::uint32_t id) -> const std::string & { return key(NodeId(id)); };
    bool distinct = true;
    // In batches: hash, prefetch the slots, insert (the table is larger than the caches).
    constexpr std::size_t batch = 16;
    std::array<std::uint64_t, batch> hashes {};
    for (std::size_t first = 0; first < m_nodes.size(); first += batch) {
        const std::size_t count = std::min(batch, m_nodes.size() - first);
        for (std::size_t j = 0; j < count; ++j) {
            hashes[j] = HashedIdIndex::hashOf(key(NodeId(first + j)));
            m_keyIndex.prefetch(hashes[j]);
        }
        for (std::size_t j = 0; j < count; ++j) {
            const auto id = static_cast<std::uint32_t>(first + j);
            if (m_keyIndex.insertHashed(hashes[j], key(NodeId(id)), id, keyOf)
                != HashedIdIndex::none)
                distinct = false;
        }
    }
    return distinct;
}

const std::string &Graph::key(NodeId id) const
{
    if (m_keySlot.empty())
        return m_nodes[id.index()].name;
    const std::uint32_t slot = m_keySlot[id.index()];
    return slot == noSlot ? m_nodes[id.index()].name : m_otherKeys[slot];
}

namespace {

/// Operator calls directly in a function's body (not in the functions it calls).
std::size_t operatorCount(const Graph &graph, const Function &f)
{
    return static_cast<std::size_t>(std::count_if(
        f.nodes.begin(), f.nodes.end(), [&](NodeId n) { return graph.node(n).isOperator(); }));
}

/// A global function with a dataflow body that callers outside the module can call: not a
/// TIR PrimFunc, not `@R.function(private=True)`, not named `_like_this`.
bool isPublicEntry(const Function &f)
{
    if (f.kind != Function::Kind::Global || !f.sourceText.empty() || f.name.starts_with('_'))
        return false;
    const AttrValue *priv = f.attrs.find("@private");
    return !priv || priv->toInt().value_or(0) == 0;
}

} // namespace

FunctionId Graph::mainFunction() const
{
    if (m_main.isValid() && m_main.index() < m_functions.size())
        return m_main;
    return chooseMainFunction(true);
}

FunctionId Graph::chooseMainFunction(bool largestPublic) const
{
    FunctionId firstGlobal;
    FunctionId largest;
    std::size_t largestOps = 0;
    for (std::size_t i = 0; i < m_functions.size(); ++i) {
        const Function &f = m_functions[i];
        if (f.kind != Function::Kind::Global)
            continue;
        if (f.name == "main")
            return FunctionId(i);
        if (!firstGlobal.isValid() && f.sourceText.empty())
            firstGlobal = FunctionId(i);
        if (largestPublic && isPublicEntry(f)) {
            const std::size_t ops = operatorCount(*this, f);
            if (!largest.isValid() || ops > largestOps) {
                largest = FunctionId(i);
                largestOps = ops;
            }
        }
    }
    if (largest.isValid())
        return largest;
    if (firstGlobal.isValid())
        return firstGlobal;
    return m_functions.empty() ? FunctionId() : FunctionId(std::size_t(0));
}

std::string Graph::mainFunctionReason() const
{
    const FunctionId chosen = mainFunction();
    if (!chosen.isValid())
        return {};
    const Function &f = function(chosen);
    if (f.name == "main")
        return "main is the module's entry function";
    std::size_t publicCount = 0;
    std::string others;
    for (const Function &g : m_functions) {
        if (!isPublicEntry(g))
            continue;
        ++publicCount;
        if (g.name != f.name)
            others += (others.empty() ? "" : ", ") + g.name + " "
                + std::to_string(operatorCount(*this, g));
    }
    const std::string ops = std::to_string(operatorCount(*this, f)) + " ops";
    if (publicCount <= 1)
        return f.name + " (" + ops + ") is the module's only public function; it has no main";
    return "the module has no main: " + f.name + " is its largest public function (" + ops + "; "
        + others + ")";
}

FunctionId Graph::findFunction(std::string_view name) const
{
    for (std::size_t i = 0; i < m_functions.size(); ++i) {
        if (m_functions[i].kind == Function::Kind::Global && m_functions[i].name == name)
            return FunctionId(i);
    }
    return {};
}

FunctionId Graph::topLevelFunction(FunctionId f) const
{
    while (f.isValid() && m_functions[f.index()].parent.isValid())
        f = m_functions[f.index()].parent;
    return f;
}

std::span<const Use> Graph::uses(NodeId node) const
{
    if (!node.isValid() || node.index() + 1 >= m_useOffsets.size())
        return {};
    const std::uint32_t b = m_useOffsets[node.index()];
    const std::uint32_t e = m_useOffsets[node.index() + 1];
    return { m_uses.data() + b, e - b };
}

std::vector<Use> Graph::consumers(TensorRef tensor) const
{
    std::vector<Use> out;
    for (const Use &u : uses(tensor.node)) {
        if (m_nodes[u.consumer.index()].inputs[u.input].output == tensor.output)
            out.push_back(u);
    }
    return out;
}

const Type &Graph::tensorType(TensorRef tensor) const
{
    return m_nodes[tensor.node.index()].outputType(tensor.output);
}

NodeId Graph::findByKey(std::string_view key) const
{
    const std::uint32_t id
        = m_keyIndex.find(key, [this](std::uint32_t other) -> const std::string & {
              return this->key(NodeId(other));
          });
    return id == HashedIdIndex::none ? NodeId() : NodeId(id);
}

std::vector<NodeId> Graph::topologicalOrder(FunctionId f) const
{
    // `nodes` is in ascending id order (nodes are appended as they are created), so a node's
    // position among the function's members is a binary search away: no per-call hash map.
    const auto &members = m_functions[f.index()].nodes;
    auto position = [&](NodeId n) -> std::int64_t {
        if (!n.isValid() || n.index() >= m_nodes.size() || m_nodes[n.index()].function != f)
            return -1;
        auto it = std::lower_bound(members.begin(), members.end(), n);
        return it != members.end() && *it == n ? it - members.begin() : -1;
    };
    std::vector<std::uint32_t> pending(members.size(), 0);
    for (std::size_t i = 0; i < members.size(); ++i) {
        for (const TensorRef &in : m_nodes[members[i].index()].inputs) {
            if (position(in.node) >= 0)
                ++pending[i];
        }
    }
    // Kahn's algorithm; the min-heap keeps creation order among ready nodes.
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (pending[i] == 0)
            ready.push(static_cast<std::uint32_t>(i));
    }
    std::vector<NodeId> order;
    order.reserve(members.size());
    while (!ready.empty()) {
        const std::uint32_t i = ready.top();
        ready.pop();
        order.push_back(members[i]);
        for (const Use &u : uses(members[i])) {
            const std::int64_t p = position(u.consumer);
            if (p >= 0 && --pending[p] == 0)
                ready.push(static_cast<std::uint32_t>(p));
        }
    }
    return order;
}

std::vector<TensorRef> Graph::outputs(FunctionId f) const
{
    const NodeId r = m_functions[f.index()].result;
    if (!r.isValid())
        return {};
    const Node &node = m_nodes[r.index()];
    if (node.kind == NodeKind::Tuple)
        return node.inputs.toVector();
    std::vector<TensorRef> out;
    for (std::size_t i = 0; i < std::max<std::size_t>(1, node.outputCount()); ++i)
        out.push_back(TensorRef { r, static_cast<std::uint32_t>(i) });
    return out;
}

} // namespace cleave
