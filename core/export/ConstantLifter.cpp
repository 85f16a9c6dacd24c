// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ConstantLifter.h"

#include <algorithm>
#include <deque>
#include <unordered_set>

namespace cleave {

ConstantLifter::ConstantLifter(const Graph &source, FunctionId sourceMain, ConstantLifting mode,
                               PartitionModule &module)
    : m_src(source)
    , m_sourceMain(sourceMain)
    , m_mode(mode)
    , m_module(module)
{
    if (m_mode == ConstantLifting::Everywhere)
        findBlockedFunctions();
}

bool ConstantLifter::isClosed(const Function &f) const
{
    return f.kind == Function::Kind::Global || f.isPrimitive() || !f.composite().empty()
        || !f.compiler().empty();
}

std::string ConstantLifter::describe(const Graph &g, FunctionId f) const
{
    const Function &fn = g.function(f);
    if (fn.kind == Function::Kind::Global)
        return "@" + fn.name;
    const FunctionId top = g.topLevelFunction(f);
    return "fn " + fn.name + (top.isValid() ? " in @" + g.function(top).name : std::string());
}

// A closed function used as a value (passed, returned, called through a variable) keeps its
// signature, so it cannot take a constant as an extra parameter; neither can the closed
// functions it calls (their callers would have to pass it on), nor the scopes and closures
// inside it. Propagated breadth-first from those functions over the source.
void ConstantLifter::findBlockedFunctions()
{
    std::unordered_map<std::uint32_t, std::vector<FunctionId>> inner; // callees and children
    std::deque<FunctionId> queue;
    for (const Node &n : m_src.nodes()) {
        if (!n.callee.isValid() || n.callee == m_sourceMain)
            continue;
        const Function &callee = m_src.function(n.callee);
        if (n.kind == NodeKind::FunctionValue && isClosed(callee)
            && !m_blocked.contains(n.callee.value)) {
            m_blocked.emplace(n.callee.value,
                              describe(m_src, n.callee)
                                  + " is used as a function value (not only called), so it "
                                    "cannot take the constant as an extra parameter");
            queue.push_back(n.callee);
        }
        if (n.kind == NodeKind::FunctionCall && isClosed(callee))
            inner[n.function.value].push_back(n.callee);
    }
    for (std::size_t i = 0; i < m_src.functionCount(); ++i) {
        const Function &f = m_src.function(FunctionId(i));
        if (f.parent.isValid() && !isClosed(f))
            inner[f.parent.value].emplace_back(i);
    }
    while (!queue.empty()) {
        const FunctionId f = queue.front();
        queue.pop_front();
        const std::string reason = m_blocked.at(f.value);
        for (FunctionId g : inner[f.value]) {
            if (g != m_sourceMain && m_blocked.emplace(g.value, reason).second)
                queue.push_back(g);
        }
    }
}

NodeId ConstantLifter::lift(NodeId constant, FunctionId into, std::string &reason)
{
    reason.clear();
    if (m_mode == ConstantLifting::None || (m_mode == ConstantLifting::MainOnly && into != m_main))
        return {};
    const Node &c = m_src.node(constant);
    if (auto it = m_blocked.find(c.function.value); it != m_blocked.end()) {
        reason = it->second;
        return {};
    }
    auto [it, added] = m_liftedByRef.try_emplace(c.metaRef(), m_lifted.size());
    if (added) {
        Lifted l;
        l.sourceRef = c.metaRef();
        l.type = c.outputType();
        l.entry = m_module.constants.size();
        m_lifted.push_back(std::move(l));
        m_module.constants.push_back(
            ModuleConstant { constant, c.metaRef(), {}, {}, c.outputType(), {}, {} });
    }
    return carrier(into, it->second);
}

NodeId ConstantLifter::addParam(FunctionId f, std::size_t lifted)
{
    const NodeId id = m_module.graph.addParam(f, {}, m_lifted[lifted].type); // named by finish()
    if (f == m_main) {
        m_lifted[lifted].mainParam = id;
        m_module.parameters.emplace_back(); // named by finish()
        m_module.parameterTypes.push_back(m_lifted[lifted].type);
    } else {
        m_lifted[lifted].carriers.push_back(id);
        m_lifted[lifted].functions.push_back(describe(m_module.graph, f));
        m_extraParams[f.value].push_back(lifted);
    }
    return id;
}

NodeId ConstantLifter::carrier(FunctionId f, std::size_t lifted)
{
    const auto key = std::make_pair(f.value, lifted);
    if (auto it = m_carriers.find(key); it != m_carriers.end())
        return it->second;
    const Function &fn = m_module.graph.function(f);
    if (f != m_main && !isClosed(fn) && fn.parent.isValid()) {
        // A scope or a plain closure reads the enclosing function's value.
        const NodeId outer = carrier(fn.parent, lifted);
        m_carriers.emplace(key, outer);
        return outer;
    }
    const NodeId param = addParam(f, lifted);
    m_carriers.emplace(key, param);
    if (f != m_main) {
        // Calls made so far pass it on (their own functions may need it as a parameter too).
        const std::vector<NodeId> calls = m_callSites[f.value];
        for (NodeId call : calls) {
            const NodeId arg = carrier(m_module.graph.node(call).function, lifted);
            m_module.graph.node(call).inputs.push_back(TensorRef { arg, 0 });
        }
    }
    return param;
}

void ConstantLifter::appendArguments(Node &call)
{
    if (!call.callee.isValid() || call.callee == m_main)
        return;
    auto it = m_extraParams.find(call.callee.value);
    if (it == m_extraParams.end())
        return;
    const std::vector<std::size_t> extra = it->second;
    for (std::size_t lifted : extra)
        call.inputs.push_back(TensorRef { carrier(call.function, lifted), 0 });
}

void ConstantLifter::addCallSite(NodeId call)
{
    const Node &n = m_module.graph.node(call);
    if (n.kind == NodeKind::FunctionCall && n.callee.isValid() && n.callee != m_main)
        m_callSites[n.callee.value].push_back(call);
}

// Lifted entries of the constant list in @main's parameter order (other entries stay put).
void ConstantLifter::reorderEntries()
{
    std::vector<std::size_t> slots;
    std::vector<ModuleConstant> entries;
    for (const Lifted &l : m_lifted) {
        slots.push_back(l.entry);
        entries.push_back(m_module.constants[l.entry]);
    }
    std::sort(slots.begin(), slots.end());
    for (std::size_t i = 0; i < slots.size(); ++i)
        m_module.constants[slots[i]] = std::move(entries[i]);
}

void ConstantLifter::finish()
{
    if (m_lifted.empty())
        return;
    Graph &g = m_module.graph;
    // A constant reached only through calls that were never copied still becomes a parameter.
    for (std::size_t i = 0; i < m_lifted.size(); ++i) {
        if (!m_lifted[i].mainParam.isValid())
            carrier(m_main, i);
    }
    const std::vector<NodeId> &params = g.function(m_main).params;
    auto position = [&](const Lifted &l) {
        return std::find(params.begin(), params.end(), l.mainParam) - params.begin();
    };
    std::stable_sort(m_lifted.begin(), m_lifted.end(),
                     [&](const Lifted &a, const Lifted &b) { return position(a) < position(b); });
    std::unordered_set<std::uint32_t> ours;
    for (const Lifted &l : m_lifted) {
        ours.insert(l.mainParam.value);
        for (NodeId c : l.carriers)
            ours.insert(c.value);
    }
    std::unordered_set<std::string> taken;
    for (std::size_t i = 0; i < g.nodeCount(); ++i) {
        const Node &n = g.node(NodeId(i));
        if (n.kind == NodeKind::Input && !ours.contains(static_cast<std::uint32_t>(i)))
            taken.insert(n.name.substr(n.name.starts_with('%') ? 1 : 0));
    }
    for (std::size_t i = 0; i < m_lifted.size(); ++i) {
        Lifted &l = m_lifted[i];
        std::string name = "const_" + std::to_string(i);
        while (taken.contains(name))
            name += "_";
        taken.insert(name);
        g.node(l.mainParam).name = "%" + name;
        for (NodeId c : l.carriers)
            g.node(c).name = "%" + name;
        m_module.parameters[static_cast<std::size_t>(position(l))] = name;
        ModuleConstant &entry = m_module.constants[l.entry];
        entry.parameter = name;
        entry.threadedThrough = l.functions;
    }
    reorderEntries();
}

} // namespace cleave
