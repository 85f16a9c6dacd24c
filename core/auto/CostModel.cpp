// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/auto/CostModel.h"

#include "core/analysis/Cost.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/analysis/LatencyTable.h"
#include "core/graph/FunctionView.h"
#include "core/partition/WeightFollowers.h"

#include <queue>

#include <algorithm>
#include <cmath>
#include <map>

namespace cleave {

namespace {

/// Adds to each unit's paramBytes the weights passed as graph inputs that it is the first
/// (in program order) to read, so that the memory limits and the stage memory see the weights
/// that arrive as inputs; a weight read by several stages is charged to the first of them.
void chargeWeightInputs(const FunctionView &view, std::vector<CostUnit> &units)
{
    const Graph &g = view.graph();
    const WeightFollowers followers(view);
    std::vector<std::uint8_t> charged(g.nodeCount(), 0);
    for (CostUnit &unit : units) {
        for (NodeId node : unit.nodes) {
            for (const FlowEdge *e : view.inEdges(node)) {
                const NodeId w = e->tensor.node;
                if (!followers.isWeight(w) || charged[w.index()] != 0)
                    continue;
                charged[w.index()] = 1;
                unit.paramBytes
                    = satAdd(unit.paramBytes, g.tensorType(e->tensor).byteSize().value_or(0));
            }
        }
    }
}

/// The tensors leaving their unit, with their consumers; adds their bytes to the producing
/// units' activation bytes.
std::vector<CostTensor> unitTensors(const FunctionView &view, std::vector<CostUnit> &units,
                                    const std::vector<std::int32_t> &unitOfNode)
{
    const Graph &g = view.graph();
    std::vector<CostTensor> tensors;
    std::map<TensorRef, std::int32_t> tensorIndex;
    auto tensorOf = [&](TensorRef t, std::int32_t producer) {
        auto [it, inserted] = tensorIndex.emplace(t, static_cast<std::int32_t>(tensors.size()));
        if (inserted) {
            CostTensor ct;
            ct.tensor = t;
            ct.producer = producer;
            ct.bytes = g.tensorType(t).byteSize().value_or(0);
            const NodeKind kind = g.node(t.node).kind;
            ct.memoryBytes
                = kind == NodeKind::Tuple || kind == NodeKind::TupleGetItem ? 0 : ct.bytes;
            tensors.push_back(std::move(ct));
        }
        return it->second;
    };
    for (std::size_t u = 0; u < units.size(); ++u) {
        for (NodeId node : units[u].nodes) {
            for (const FlowEdge &e : view.outEdges(node)) {
                const std::int32_t to = unitOfNode[e.consumer.index()];
                if (to < 0 || to == static_cast<std::int32_t>(u))
                    continue;
                tensors[static_cast<std::size_t>(tensorOf(e.tensor, static_cast<std::int32_t>(u)))]
                    .consumers.push_back(to);
            }
        }
    }
    for (const TensorRef &t : g.outputs(view.function())) {
        if (!t.isValid() || unitOfNode[t.node.index()] < 0)
            continue;
        tensors[static_cast<std::size_t>(tensorOf(t, unitOfNode[t.node.index()]))].globalOutput
            = true;
    }
    for (CostTensor &t : tensors) {
        std::sort(t.consumers.begin(), t.consumers.end());
        t.consumers.erase(std::unique(t.consumers.begin(), t.consumers.end()), t.consumers.end());
        std::int64_t &activation = units[static_cast<std::size_t>(t.producer)].activationBytes;
        activation = satAdd(activation, t.memoryBytes);
    }
    return tensors;
}

/// Builds units from groups of nodes (each group convex, groups cover the assignable nodes).
CostGraph fromGroups(const FunctionView &view, std::vector<std::vector<NodeId>> groups,
                     const std::vector<DeviceSpec> &devices, const LinkSpec &link,
                     std::vector<std::int32_t> &unitOfNode, std::vector<std::size_t> &fallbacks)
{
    const Graph &g = view.graph();
    // Order the groups topologically (Kahn, ties by the first node's program position).
    const std::size_t n = groups.size();
    std::vector<std::int32_t> groupOf(g.nodeCount(), -1);
    for (std::size_t k = 0; k < n; ++k) {
        std::sort(groups[k].begin(), groups[k].end(),
                  [&](NodeId a, NodeId b) { return view.position(a) < view.position(b); });
        for (NodeId node : groups[k])
            groupOf[node.index()] = static_cast<std::int32_t>(k);
    }
    std::vector<std::vector<std::int32_t>> succ(n);
    std::vector<std::int32_t> indegree(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
        for (NodeId node : groups[k]) {
            for (const FlowEdge &e : view.outEdges(node)) {
                const std::int32_t to = groupOf[e.consumer.index()];
                if (to >= 0 && to != static_cast<std::int32_t>(k)) {
                    succ[k].push_back(to);
                    ++indegree[static_cast<std::size_t>(to)];
                }
            }
        }
    }
    using Item = std::pair<std::int32_t, std::int32_t>; // (first position, group)
    std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
    for (std::size_t k = 0; k < n; ++k) {
        if (indegree[k] == 0)
            ready.push({ view.position(groups[k].front()), static_cast<std::int32_t>(k) });
    }
    std::vector<std::int32_t> order;
    order.reserve(n);
    while (!ready.empty()) {
        const std::int32_t k = ready.top().second;
        ready.pop();
        order.push_back(k);
        for (std::int32_t s : succ[static_cast<std::size_t>(k)]) {
            if (--indegree[static_cast<std::size_t>(s)] == 0)
                ready.push({ view.position(groups[static_cast<std::size_t>(s)].front()), s });
        }
    }

    std::vector<CostUnit> units(order.size());
    unitOfNode.assign(g.nodeCount(), -1);
    for (std::size_t u = 0; u < order.size(); ++u) {
        units[u].nodes = std::move(groups[static_cast<std::size_t>(order[u])]);
        for (NodeId node : units[u].nodes)
            unitOfNode[node.index()] = static_cast<std::int32_t>(u);
    }
    std::vector<std::vector<double>> times(std::max<std::size_t>(devices.size(), 1),
                                           std::vector<double>(units.size(), 0.0));
    fallbacks.assign(times.size(), 0);
    for (std::size_t u = 0; u < units.size(); ++u) {
        CostUnit &unit = units[u];
        for (NodeId node : unit.nodes) {
            const NodeCost c = nodeCost(g, node);
            unit.flops = satAdd(unit.flops, c.flops);
            unit.paramBytes = satAdd(unit.paramBytes, c.paramBytes);
            if (g.node(node).isOperator())
                ++unit.ops;
            for (std::size_t d = 0; d < times.size(); ++d) {
                const DeviceSpec device = d < devices.size() ? devices[d] : DeviceSpec {};
                std::optional<double> us;
                if (device.latency)
                    us = device.latency->latency(g, node);
                if (!us) {
                    if (device.latency && g.node(node).isOperator())
                        ++fallbacks[d];
                    us = static_cast<double>(c.flops) / (device.gflops * 1e3);
                }
                times[d][u] += *us;
            }
        }
    }

    chargeWeightInputs(view, units);

    std::vector<CostTensor> tensors = unitTensors(view, units, unitOfNode);
    return CostGraph::fromParts(std::move(units), std::move(tensors), std::move(times), link);
}

} // namespace

CostGraph CostGraph::buildFromGroups(const FunctionView &view,
                                     std::vector<std::vector<NodeId>> groups,
                                     const std::vector<DeviceSpec> &devices, const LinkSpec &link)
{
    std::vector<std::int32_t> unitOfNode;
    std::vector<std::size_t> fallbacks;
    CostGraph out = fromGroups(view, std::move(groups), devices, link, unitOfNode, fallbacks);
    out.m_unitOfNode = std::move(unitOfNode);
    out.m_fallbacks = std::move(fallbacks);
    out.setOverheads(devices);
    return out;
}

CostGraph CostGraph::build(const FunctionView &view, const std::vector<DeviceSpec> &devices,
                           const LinkSpec &link)
{
    std::vector<std::vector<NodeId>> groups;
    groups.reserve(view.assignableNodes().size());
    for (NodeId n : view.assignableNodes())
        groups.push_back({ n });
    return buildFromGroups(view, std::move(groups), devices, link);
}

CostGraph CostGraph::buildBlocks(const FunctionView &view, const std::vector<FusedBlock> &blocks,
                                 const std::vector<DeviceSpec> &devices, const LinkSpec &link)
{
    std::vector<std::vector<NodeId>> groups;
    std::vector<std::uint8_t> covered(view.graph().nodeCount(), 0);
    for (const FusedBlock &b : blocks) {
        std::vector<NodeId> members;
        for (NodeId n : b.nodes) {
            if (view.isAssignable(n) && !covered[n.index()]) {
                covered[n.index()] = 1;
                members.push_back(n);
            }
        }
        if (!members.empty())
            groups.push_back(std::move(members));
    }
    for (NodeId n : view.assignableNodes()) {
        if (!covered[n.index()])
            groups.push_back({ n });
    }
    return buildFromGroups(view, std::move(groups), devices, link);
}

void CostGraph::setOverheads(const std::vector<DeviceSpec> &devices)
{
    m_overheads.clear();
    for (const DeviceSpec &d : devices) {
        // Unset: what the device's measured table says a stage run costs (its calibration).
        const double us = d.stageOverheadUs > 0 || !d.latency || !d.latency->calibration()
            ? d.stageOverheadUs
            : d.latency->calibration()->runOverheadUs;
        m_overheads.push_back(std::isfinite(us) && us > 0 ? std::min(us, maxUnitTimeUs) : 0.0);
    }
}

CostGraph CostGraph::fromParts(std::vector<CostUnit> units, std::vector<CostTensor> tensors,
                               std::vector<std::vector<double>> times, const LinkSpec &link)
{
    CostGraph g;
    g.m_units = std::move(units);
    g.m_tensors = std::move(tensors);
    g.m_times = std::move(times);
    if (g.m_times.empty())
        g.m_times.assign(1, std::vector<double>(g.m_units.size(), 0.0));
    // Saturate as the rest of the engine does: a unit of absurd FLOPs (a tensor of 2^62
    // elements) or latency stays a large finite time, so sums and comparisons keep working.
    for (std::vector<double> &device : g.m_times) {
        for (double &us : device)
            us = std::isnan(us) || us < 0 ? 0.0 : std::min(us, maxUnitTimeUs);
    }
    g.m_link = link;
    g.m_fallbacks.assign(g.m_times.size(), 0);
    g.index();
    return g;
}

void CostGraph::index()
{
    const std::size_t n = m_units.size();
    std::vector<std::vector<std::int32_t>> in(n);
    std::vector<std::vector<std::int32_t>> out(n);
    for (std::size_t t = 0; t < m_tensors.size(); ++t) {
        const CostTensor &ct = m_tensors[t];
        out[static_cast<std::size_t>(ct.producer)].push_back(static_cast<std::int32_t>(t));
        for (std::int32_t c : ct.consumers)
            in[static_cast<std::size_t>(c)].push_back(static_cast<std::int32_t>(t));
    }
    m_inOffsets.assign(n + 1, 0);
    m_outOffsets.assign(n + 1, 0);
    m_in.clear();
    m_out.clear();
    for (std::size_t u = 0; u < n; ++u) {
        m_in.insert(m_in.end(), in[u].begin(), in[u].end());
        m_out.insert(m_out.end(), out[u].begin(), out[u].end());
        m_inOffsets[u + 1] = static_cast<std::uint32_t>(m_in.size());
        m_outOffsets[u + 1] = static_cast<std::uint32_t>(m_out.size());
    }
}

std::span<const std::int32_t> CostGraph::inputsOf(std::size_t unit) const
{
    return std::span(m_in).subspan(m_inOffsets[unit], m_inOffsets[unit + 1] - m_inOffsets[unit]);
}

std::span<const std::int32_t> CostGraph::outputsOf(std::size_t unit) const
{
    return std::span(m_out).subspan(m_outOffsets[unit],
                                    m_outOffsets[unit + 1] - m_outOffsets[unit]);
}

std::int32_t CostGraph::unitOf(NodeId node) const
{
    return node.index() < m_unitOfNode.size() ? m_unitOfNode[node.index()] : -1;
}

std::vector<StageCost> CostGraph::evaluate(const std::vector<std::int32_t> &stageOf,
                                           std::size_t stageCount) const
{
    std::vector<StageCost> stages(stageCount);
    std::vector<std::int64_t> held(stageCount, 0);
    std::vector<std::int32_t> seen; // stages a tensor was already counted for
    // Last reader of each tensor in program order; returned tensors are never freed.
    std::vector<std::vector<std::int32_t>> dying(m_units.size());
    for (std::size_t t = 0; t < m_tensors.size(); ++t) {
        const CostTensor &ct = m_tensors[t];
        if (!ct.globalOutput && !ct.consumers.empty())
            dying[static_cast<std::size_t>(ct.consumers.back())].push_back(
                static_cast<std::int32_t>(t));
    }
    for (std::size_t u = 0; u < m_units.size(); ++u) {
        const std::int32_t s = stageOf[u];
        if (s < 0 || static_cast<std::size_t>(s) >= stageCount)
            continue;
        StageCost &sc = stages[static_cast<std::size_t>(s)];
        const std::size_t device
            = std::min<std::size_t>(static_cast<std::size_t>(s), m_times.size() - 1);
        sc.computeUs += m_times[device][u];
        sc.paramBytes = satAdd(sc.paramBytes, m_units[u].paramBytes);
        sc.ops += m_units[u].ops;
        ++sc.units;
        for (std::int32_t t : outputsOf(u)) {
            const CostTensor &ct = m_tensors[static_cast<std::size_t>(t)];
            held[static_cast<std::size_t>(s)]
                = satAdd(held[static_cast<std::size_t>(s)], ct.memoryBytes);
            seen.clear();
            for (std::int32_t c : ct.consumers) {
                const std::int32_t cs = stageOf[static_cast<std::size_t>(c)];
                if (cs == s || cs < 0 || std::find(seen.begin(), seen.end(), cs) != seen.end())
                    continue;
                seen.push_back(cs);
                const double us = m_link.transferUs(ct.bytes);
                sc.transferOutUs += us;
                sc.bytesOut = satAdd(sc.bytesOut, ct.bytes);
                StageCost &to = stages[static_cast<std::size_t>(cs)];
                to.transferInUs += us;
                to.bytesIn = satAdd(to.bytesIn, ct.bytes);
            }
        }
        sc.peakActivationBytes
            = std::max(sc.peakActivationBytes, held[static_cast<std::size_t>(s)]);
        for (std::int32_t t : dying[u]) {
            const CostTensor &ct = m_tensors[static_cast<std::size_t>(t)];
            if (stageOf[static_cast<std::size_t>(ct.producer)] == s)
                held[static_cast<std::size_t>(s)]
                    = satRelease(held[static_cast<std::size_t>(s)], ct.memoryBytes);
        }
    }
    // Received tensors are held for the whole stage; a stage that runs pays its fixed time.
    for (std::size_t s = 0; s < stages.size(); ++s) {
        StageCost &sc = stages[s];
        sc.peakActivationBytes = satAdd(sc.peakActivationBytes, sc.bytesIn);
        if (sc.units > 0)
            sc.overheadUs = stageOverheadUs(std::min<std::size_t>(s, m_times.size() - 1));
    }
    return stages;
}

double bottleneckUs(const std::vector<StageCost> &stages)
{
    double worst = 0;
    for (const StageCost &s : stages)
        worst = std::max(worst, s.timeUs());
    return worst;
}

double totalTimeUs(const std::vector<StageCost> &stages)
{
    double sum = 0;
    for (const StageCost &s : stages)
        sum += s.timeUs();
    return sum;
}

std::int64_t totalTransferBytes(const std::vector<StageCost> &stages)
{
    std::int64_t sum = 0;
    for (const StageCost &s : stages)
        sum = satAdd(sum, s.bytesIn);
    return sum;
}

} // namespace cleave
