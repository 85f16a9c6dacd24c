// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/KernelMapping.h"

#include "core/analysis/OpPattern.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace cleave {

namespace {

std::string normalized(std::string_view op)
{
    std::string out(op);
    std::replace(out.begin(), out.end(), '.', '_');
    return out;
}

std::string withoutPercent(std::string_view name)
{
    return std::string(name.starts_with('%') ? name.substr(1) : name);
}

bool allDigits(std::string_view s, bool hex = false)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [hex](char c) {
        return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                   : std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
}

std::vector<std::string> splitTokens(std::string_view s)
{
    std::vector<std::string> tokens;
    std::size_t start = 0;
    while (start <= s.size()) {
        const std::size_t end = std::min(s.find('_', start), s.size());
        tokens.emplace_back(s.substr(start, end - start));
        start = end + 1;
    }
    return tokens;
}

/// Ops the graph executor never runs: they vanish before codegen, so they belong to no kernel.
bool isElidedOp(std::string_view op)
{
    return op == "nn.dropout" || op == "annotation.stop_fusion" || op == "stop_fusion";
}

/// What `__nop` (a reshape-only function sharing its input's storage) may stand for.
bool isReshapeLike(std::string_view op)
{
    return op == "reshape" || op == "squeeze" || op == "expand_dims" || op == "nn.batch_flatten"
        || op == "reverse_reshape" || op == "contrib_reverse_reshape";
}

/// The matcher's state: which Relay nodes are claimed, and which Relay value each kernel-graph
/// tensor stands for.
class Matcher
{
public:
    Matcher(const Graph &kernels, const Graph &relay)
        : m_k(kernels)
        , m_r(relay)
        , m_claimed(relay.nodeCount(), 0)
        , m_position(relay.nodeCount(), -1)
    {
        const FunctionId main = relay.mainFunction();
        m_order = relay.topologicalOrder(main);
        for (std::size_t i = 0; i < m_order.size(); ++i)
            m_position[m_order[i].index()] = static_cast<std::int32_t>(i);
        for (const std::string &op : OpPatternTable::builtin().opNames())
            m_vocabulary.push_back(op);
        for (NodeId n : m_order) {
            const Node &node = relay.node(n);
            if (node.kind == NodeKind::OpCall)
                m_vocabulary.push_back(node.op);
            if (node.kind == NodeKind::Input)
                m_inputs[withoutPercent(node.name)] = n;
            if ((node.kind == NodeKind::OpCall || node.kind == NodeKind::FunctionCall)
                && std::all_of(node.inputs.begin(), node.inputs.end(), [&](TensorRef t) {
                       return relay.node(t.node).kind == NodeKind::Constant;
                   }))
                m_sourceOps.push_back(n);
        }
        std::sort(m_vocabulary.begin(), m_vocabulary.end());
        m_vocabulary.erase(std::unique(m_vocabulary.begin(), m_vocabulary.end()),
                           m_vocabulary.end());
    }

    KernelMapping run()
    {
        KernelMapping mapping;
        const FunctionId kmain = m_k.mainFunction();
        std::uint32_t entry = 0;
        std::vector<std::uint32_t> firstEntry(m_k.nodeCount(), 0);
        for (std::size_t i = 0; i < m_k.nodeCount(); ++i) {
            const Node &node = m_k.node(NodeId(i));
            firstEntry[i] = entry;
            if (node.function == kmain
                && (node.kind == NodeKind::Input || node.kind == NodeKind::Constant
                    || node.kind == NodeKind::OpCall))
                entry += static_cast<std::uint32_t>(std::max<std::size_t>(1, node.outputCount()));
        }
        for (std::size_t i = 0; i < m_k.nodeCount(); ++i) {
            const NodeId id(i);
            const Node &node = m_k.node(id);
            if (node.function != kmain)
                continue;
            if (node.kind == NodeKind::Input) {
                const auto it = m_inputs.find(withoutPercent(node.name));
                if (it != m_inputs.end())
                    m_values[{ id, 0 }] = { TensorRef { it->second, 0 }, -1 };
                continue;
            }
            if (node.kind != NodeKind::OpCall)
                continue;
            KernelMatch match;
            match.kernel = id;
            match.name = withoutPercent(node.name);
            match.funcName = node.op;
            match.firstEntry = firstEntry[i];
            match.endEntry = firstEntry[i]
                + static_cast<std::uint32_t>(std::max<std::size_t>(1, node.outputCount()));
            matchKernel(node, match);
            mapping.kernels.push_back(std::move(match));
        }
        for (NodeId n : m_order) {
            const Node &node = m_r.node(n);
            if (m_claimed[n.index()] == 2)
                mapping.elidedRelayNodes.push_back(n);
            else if ((node.kind == NodeKind::OpCall || node.kind == NodeKind::FunctionCall)
                     && m_claimed[n.index()] == 0)
                mapping.unmatchedRelayNodes.push_back(n);
        }
        return mapping;
    }

    const std::vector<std::string> &vocabulary() const { return m_vocabulary; }

private:
    struct Value
    {
        TensorRef tensor;
        int field = -1; ///< A field of a tuple-typed value, or -1.
    };
    struct TensorHash
    {
        std::size_t operator()(TensorRef t) const noexcept
        {
            return std::hash<std::uint64_t>()((std::uint64_t(t.node.value) << 8) ^ t.output);
        }
    };

    /// True when the Relay value `t` is available to the kernel being matched: a constant, one
    /// of its mapped inputs, a node it has claimed, or a projection / tuple / elided op over
    /// such values. `elided` collects the elided ops passed through.
    bool available(TensorRef t, std::vector<NodeId> &elided, int depth = 0) const
    {
        const Node &node = m_r.node(t.node);
        if (node.kind == NodeKind::Constant || m_avail.contains(t) || m_local.contains(t.node))
            return true;
        if (depth > 16)
            return false;
        const bool structural = node.kind == NodeKind::TupleGetItem || node.kind == NodeKind::Tuple
            || (node.kind == NodeKind::OpCall && isElidedOp(node.op)
                && m_claimed[t.node.index()] != 1);
        if (!structural || node.inputs.empty())
            return false;
        for (TensorRef in : node.inputs) {
            if (!available(in, elided, depth + 1))
                return false;
        }
        if (node.kind == NodeKind::OpCall)
            elided.push_back(t.node);
        return true;
    }

    /// Relay op nodes reachable from the available values through structural nodes.
    std::vector<NodeId> frontier() const
    {
        std::vector<NodeId> out;
        std::vector<NodeId> queue;
        std::unordered_set<std::uint32_t> seen;
        for (TensorRef t : m_avail)
            queue.push_back(t.node);
        for (NodeId n : m_local)
            queue.push_back(n);
        for (std::size_t head = 0; head < queue.size(); ++head) {
            for (const Use &u : m_r.uses(queue[head])) {
                if (m_position[u.consumer.index()] < 0 || !seen.insert(u.consumer.value).second)
                    continue;
                const Node &c = m_r.node(u.consumer);
                const bool structural = c.kind == NodeKind::Tuple
                    || c.kind == NodeKind::TupleGetItem
                    || (c.kind == NodeKind::OpCall && isElidedOp(c.op));
                if (structural)
                    queue.push_back(u.consumer);
                else if (m_claimed[u.consumer.index()] == 0)
                    out.push_back(u.consumer);
            }
        }
        for (NodeId n : m_sourceOps) {
            if (m_claimed[n.index()] == 0)
                out.push_back(n);
        }
        return out;
    }

    /// The op names a call of a primitive function literal runs, normalised.
    std::vector<std::string> bodyOps(const Node &call) const
    {
        std::vector<std::string> ops;
        if (!call.callee.isValid())
            return ops;
        for (NodeId n : m_r.topologicalOrder(call.callee)) {
            if (m_r.node(n).kind == NodeKind::OpCall)
                ops.push_back(normalized(m_r.node(n).op));
        }
        return ops;
    }

    /// Claims the best candidate for which `accepts` holds; false when there is none.
    template <typename Accepts>
    bool claimOne(Accepts accepts, std::vector<NodeId> &claimedNow)
    {
        NodeId best;
        std::vector<NodeId> bestElided;
        for (NodeId c : frontier()) {
            if (!accepts(m_r.node(c)))
                continue;
            if (best.isValid() && m_position[c.index()] >= m_position[best.index()])
                continue;
            std::vector<NodeId> elided;
            bool ok = true;
            for (TensorRef in : m_r.node(c).inputs)
                ok = ok && available(in, elided);
            if (ok) {
                best = c;
                bestElided = std::move(elided);
            }
        }
        if (!best.isValid())
            return false;
        m_claimed[best.index()] = 1;
        m_local.insert(best);
        claimedNow.push_back(best);
        for (NodeId e : bestElided) {
            if (m_claimed[e.index()] == 0) {
                m_claimed[e.index()] = 2;
                m_elidedNow.push_back(e);
            }
        }
        return true;
    }

    void matchKernel(const Node &kernel, KernelMatch &match)
    {
        m_avail.clear();
        m_local.clear();
        m_elidedNow.clear();
        std::vector<TensorRef> dataInputs;
        for (std::size_t i = 0; i < kernel.inputs.size(); ++i) {
            const TensorRef in = kernel.inputs[i];
            if (m_k.node(in.node).kind == NodeKind::Constant)
                continue; // params are matched by whatever constant the Relay op reads
            const auto it = m_values.find(in);
            if (it == m_values.end()) {
                match.problem = "input " + std::to_string(i) + " ("
                    + withoutPercent(m_k.node(in.node).name) + ") has no Relay counterpart";
                return;
            }
            const Value v = it->second;
            dataInputs.push_back(v.tensor);
            if (v.field < 0) {
                m_avail.insert(v.tensor);
            } else {
                for (const Use &u : m_r.uses(v.tensor.node)) {
                    const Node &c = m_r.node(u.consumer);
                    if (c.kind == NodeKind::TupleGetItem && c.index == std::uint32_t(v.field))
                        m_avail.insert({ u.consumer, 0 });
                }
            }
        }

        std::vector<NodeId> claimed;
        const std::string &f = match.funcName;
        bool ok = true;
        if (f == "__nop" || f == "__copy") {
            match.expectedOps = { f == "__nop" ? "reshape" : "device_copy" };
            ok = claimOne(
                [&](const Node &n) {
                    return n.kind == NodeKind::OpCall
                        && (f == "__nop" ? isReshapeLike(n.op) : n.op == "device_copy");
                },
                claimed);
            if (!ok)
                match.problem = "no unclaimed "
                    + std::string(f == "__nop" ? "reshape" : "device_copy")
                    + " reads the kernel's inputs";
        } else {
            match.expectedOps = decomposeFusedName(f, m_vocabulary, match.truncated);
            if (match.expectedOps.empty()) {
                // A BYOC (external) function: the call of the function with that symbol.
                ok = claimOne(
                    [&](const Node &n) {
                        if (n.kind == NodeKind::OpCall)
                            return n.op == f;
                        if (n.kind != NodeKind::FunctionCall || !n.callee.isValid())
                            return false;
                        const Function &fn = m_r.function(n.callee);
                        const AttrValue *symbol = fn.attrs.find("global_symbol");
                        return fn.name == f
                            || (symbol && symbol->kind == AttrValue::Kind::String
                                && symbol->text == f);
                    },
                    claimed);
                if (!ok)
                    match.problem
                        = "no call of an external function " + f + " reads the kernel's inputs";
            } else {
                ok = matchFused(match, claimed);
            }
        }
        if (ok && match.truncated) {
            ok = false;
            match.problem = "the name is cut at 80 characters; only its first "
                + std::to_string(match.expectedOps.size()) + " ops are known";
        }
        if (ok) {
            std::vector<NodeId> unused;
            for (TensorRef t : dataInputs) {
                bool read = false;
                for (const Use &u : m_r.uses(t.node)) {
                    read = read || m_local.contains(u.consumer)
                        || std::find(m_elidedNow.begin(), m_elidedNow.end(), u.consumer)
                            != m_elidedNow.end()
                        || m_r.node(u.consumer).kind == NodeKind::TupleGetItem
                        || m_r.node(u.consumer).kind == NodeKind::Tuple;
                }
                if (!read) {
                    ok = false;
                    match.problem
                        = "the matched ops do not read the kernel's input " + m_r.key(t.node);
                    break;
                }
            }
        }
        if (!ok) {
            for (NodeId n : claimed)
                m_claimed[n.index()] = 0;
            for (NodeId n : m_elidedNow)
                m_claimed[n.index()] = 0;
            return;
        }
        std::sort(claimed.begin(), claimed.end(), [&](NodeId a, NodeId b) {
            return m_position[a.index()] < m_position[b.index()];
        });
        match.relayNodes = claimed;
        match.matched = true;
        mapOutputs(kernel, match);
    }

    bool matchFused(KernelMatch &match, std::vector<NodeId> &claimed)
    {
        std::vector<std::string> wanted;
        for (const std::string &op : match.expectedOps)
            wanted.push_back(normalized(op));
        // A Relay module that is fused already: one call of a primitive literal with that body.
        if (claimOne(
                [&](const Node &n) {
                    return n.kind == NodeKind::FunctionCall && n.callee.isValid()
                        && m_r.function(n.callee).isPrimitive() && bodyOps(n) == wanted;
                },
                claimed))
            return true;
        for (const std::string &op : wanted) {
            if (!claimOne(
                    [&](const Node &n) {
                        return n.kind == NodeKind::OpCall && normalized(n.op) == op;
                    },
                    claimed)) {
                const auto i = static_cast<std::size_t>(&op - wanted.data());
                match.problem
                    = "no unclaimed " + match.expectedOps[i] + " reads the kernel's inputs";
                if (!claimed.empty())
                    match.problem += " (after " + std::to_string(claimed.size()) + " of "
                        + std::to_string(wanted.size()) + " ops matched)";
                return false;
            }
        }
        return true;
    }

    void mapOutputs(const Node &kernel, const KernelMatch &match)
    {
        const NodeId root = match.relayNodes.back();
        const std::size_t outputs = std::max<std::size_t>(1, kernel.outputCount());
        const NodeId kernelId = match.kernel;
        if (outputs == 1) {
            m_values[{ kernelId, 0 }] = { TensorRef { root, 0 }, -1 };
            return;
        }
        // Several outputs: a tuple over claimed nodes, or the fields of a tuple-typed root.
        for (const Use &u : m_r.uses(root)) {
            const Node &c = m_r.node(u.consumer);
            if (c.kind != NodeKind::Tuple || c.inputs.size() != outputs)
                continue;
            const bool own = std::all_of(c.inputs.begin(), c.inputs.end(),
                                         [&](TensorRef t) { return m_local.contains(t.node); });
            if (!own)
                continue;
            for (std::size_t i = 0; i < outputs; ++i)
                m_values[{ kernelId, std::uint32_t(i) }] = { c.inputs[i], -1 };
            return;
        }
        for (std::size_t i = 0; i < outputs; ++i)
            m_values[{ kernelId, std::uint32_t(i) }] = { TensorRef { root, 0 }, int(i) };
    }

    const Graph &m_k;
    const Graph &m_r;
    std::vector<std::uint8_t> m_claimed; // 0 free, 1 in a kernel, 2 elided
    std::vector<std::int32_t> m_position;
    std::vector<NodeId> m_order;
    std::vector<NodeId> m_sourceOps; // ops that read only constants
    std::vector<std::string> m_vocabulary;
    std::unordered_map<std::string, NodeId> m_inputs;
    std::map<TensorRef, Value> m_values; // kernel-graph tensor -> Relay value
    std::unordered_set<TensorRef, TensorHash> m_avail;
    std::unordered_set<NodeId> m_local;
    std::vector<NodeId> m_elidedNow;
};

} // namespace

std::vector<std::string> decomposeFusedName(const std::string &funcName,
                                            const std::vector<std::string> &vocabulary,
                                            bool &truncated)
{
    truncated = false;
    std::string_view name = funcName;
    if (name.starts_with("tvmgen_")) {
        const std::size_t fused = name.find("_fused_");
        if (fused == std::string_view::npos)
            return {};
        name.remove_prefix(fused + 1);
    }
    if (name.starts_with("fused_"))
        name.remove_prefix(6);
    else if (name.starts_with("fuse_"))
        name.remove_prefix(5);
    else
        return {};
    std::vector<std::string> tokens = splitTokens(name);
    if (tokens.size() >= 2 && tokens.back().empty() && allDigits(tokens[tokens.size() - 2], true)) {
        truncated = true; // `..._<hash>_`
        tokens.resize(tokens.size() - 2);
    } else if (tokens.size() >= 2 && allDigits(tokens.back())) {
        tokens.pop_back(); // the `_<k>` repeat suffix
    }

    std::unordered_map<std::string, std::string> known;
    for (const std::string &op : vocabulary)
        known.emplace(normalized(op), op);
    // Fewest pieces: best[i] is the cheapest segmentation of tokens[0, i).
    const std::size_t n = tokens.size();
    constexpr std::size_t unreachable = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> best(n + 1, unreachable);
    std::vector<std::size_t> from(n + 1, 0);
    best[0] = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (best[i] == unreachable)
            continue;
        std::string piece;
        for (std::size_t j = i; j < n && j < i + 8; ++j) {
            piece += (j > i ? "_" : "") + tokens[j];
            if (known.contains(piece) && best[i] + 1 < best[j + 1]) {
                best[j + 1] = best[i] + 1;
                from[j + 1] = i;
            }
        }
    }
    std::size_t end = n;
    if (truncated) {
        while (end > 0 && best[end] == unreachable)
            --end; // the last op may be cut in the middle
    }
    if (best[end] == unreachable) {
        // Not made of known ops: keep the tokens, so the mismatch names what was not found.
        std::string rest;
        for (std::size_t i = 0; i < n; ++i)
            rest += (i ? "_" : "") + tokens[i];
        return { rest };
    }
    std::vector<std::string> ops;
    for (std::size_t j = end; j > 0; j = from[j]) {
        std::string piece;
        for (std::size_t k = from[j]; k < j; ++k)
            piece += (k > from[j] ? "_" : "") + tokens[k];
        ops.push_back(known.at(piece));
    }
    std::reverse(ops.begin(), ops.end());
    return ops;
}

KernelMapping mapKernels(const Graph &kernels, const Graph &relay)
{
    Matcher matcher(kernels, relay);
    return matcher.run();
}

std::size_t KernelMapping::matchedCount() const
{
    return static_cast<std::size_t>(std::count_if(kernels.begin(), kernels.end(),
                                                  [](const KernelMatch &k) { return k.matched; }));
}

const KernelMatch *KernelMapping::kernelOf(NodeId relayNode) const
{
    for (const KernelMatch &k : kernels) {
        if (std::find(k.relayNodes.begin(), k.relayNodes.end(), relayNode) != k.relayNodes.end())
            return &k;
    }
    return nullptr;
}

nlohmann::json kernelMappingToJson(const Graph &kernels, const Graph &relay,
                                   const KernelMapping &mapping)
{
    (void)kernels;
    auto keys = [&](const std::vector<NodeId> &nodes) {
        nlohmann::json out = nlohmann::json::array();
        for (NodeId n : nodes)
            out.push_back(relay.key(n));
        return out;
    };
    nlohmann::json list = nlohmann::json::array();
    for (const KernelMatch &k : mapping.kernels) {
        nlohmann::json ops = nlohmann::json::array();
        for (NodeId n : k.relayNodes) {
            const Node &node = relay.node(n);
            ops.push_back(node.kind == NodeKind::OpCall ? node.op : relay.key(n));
        }
        nlohmann::json entry = { { "name", k.name },
                                 { "func_name", k.funcName },
                                 { "node_index", k.kernel.index() },
                                 { "entries", { k.firstEntry, k.endEntry } },
                                 { "expected_ops", k.expectedOps },
                                 { "ops", ops },
                                 { "relay_nodes", keys(k.relayNodes) },
                                 { "matched", k.matched } };
        if (!k.problem.empty())
            entry["problem"] = k.problem;
        list.push_back(std::move(entry));
    }
    return { { "kernels", list },
             { "matched", mapping.matchedCount() },
             { "total", mapping.kernels.size() },
             { "unmatched_relay_nodes", keys(mapping.unmatchedRelayNodes) },
             { "elided_relay_nodes", keys(mapping.elidedRelayNodes) },
             { "complete", mapping.isComplete() } };
}

std::string kernelMappingToText(const Graph &kernels, const Graph &relay,
                                const KernelMapping &mapping)
{
    (void)kernels;
    std::size_t width = 6;
    for (const KernelMatch &k : mapping.kernels)
        width = std::max(width, k.name.size());
    std::ostringstream out;
    out << "Kernels (" << mapping.matchedCount() << " of " << mapping.kernels.size()
        << " matched):\n";
    out << "  " << std::string("kernel").append(width - 6, ' ') << "  node  entries  relay nodes\n";
    for (const KernelMatch &k : mapping.kernels) {
        std::string entries
            = "[" + std::to_string(k.firstEntry) + "," + std::to_string(k.endEntry) + ")";
        out << "  " << k.name << std::string(width - k.name.size(), ' ') << "  ";
        std::string node = std::to_string(k.kernel.index());
        out << node << std::string(node.size() < 4 ? 4 - node.size() : 0, ' ') << "  " << entries
            << std::string(entries.size() < 7 ? 7 - entries.size() : 0, ' ') << "  ";
        if (k.matched) {
            for (std::size_t i = 0; i < k.relayNodes.size(); ++i) {
                const Node &n = relay.node(k.relayNodes[i]);
                out << (i ? ", " : "") << relay.key(k.relayNodes[i]);
                if (n.kind == NodeKind::OpCall)
                    out << " (" << n.op << ")";
            }
        } else {
            out << "UNMATCHED: " << k.problem;
        }
        out << '\n';
    }
    if (!mapping.unmatchedRelayNodes.empty()) {
        out << "\nRelay ops in no kernel (" << mapping.unmatchedRelayNodes.size() << "):";
        for (NodeId n : mapping.unmatchedRelayNodes) {
            const Node &node = relay.node(n);
            out << ' ' << relay.key(n);
            if (node.kind == NodeKind::OpCall)
                out << " (" << node.op << ")";
        }
        out << '\n';
    }
    if (!mapping.elidedRelayNodes.empty())
        out << "\nRelay ops the graph executor drops: " << mapping.elidedRelayNodes.size() << '\n';
    return out.str();
}

} // namespace cleave
