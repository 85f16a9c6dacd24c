// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"
#include "core/graph/Ids.h"
#include "core/support/Saturating.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cleave {

class FunctionView;
class LatencyTable;
struct FusedBlock;

/// The compute rate a node runs at when no latency table covers it: 1000 GFLOP/s (1 TFLOP/s),
/// a mid-range accelerator. `--flops-rate` overrides it.
inline constexpr double defaultFlopsRateGflops = 1000.0;
/// Default link between stages: 10 GB/s (10^10 bytes per second, decimal) ...
inline constexpr double defaultBandwidthBytesPerSecond = 10e9;
/// ... plus 20 µs per transfer.
inline constexpr double defaultLinkLatencyUs = 20.0;

/// One device a pipeline stage runs on (stage k runs on device k).
struct DeviceSpec
{
    std::string name;
    std::string target = "llvm";
    double gflops = defaultFlopsRateGflops; ///< Rate for nodes the latency table lacks.
    std::optional<std::int64_t> memoryBytes; ///< Memory limit of the stage, if any.
    const LatencyTable *latency = nullptr; ///< Measured latencies (not owned), or null.
    /// Fixed time of every run of a stage on this device besides its nodes (launching the
    /// stage's session), in microseconds; 0: the latency table's calibration run_overhead_us,
    /// when it has one.
    double stageOverheadUs = 0;
};

/// The link between any two stages: a transfer of B bytes costs B / bandwidth + latency.
struct LinkSpec
{
    double bytesPerSecond = defaultBandwidthBytesPerSecond;
    double latencyUs = defaultLinkLatencyUs;

    /// Microseconds to move `bytes` over the link once.
    [[nodiscard]] double transferUs(std::int64_t bytes) const
    {
        return static_cast<double>(bytes) / bytesPerSecond * 1e6 + latencyUs;
    }
};

/// The longest time a unit can take, in microseconds (about 30 years): larger or infinite
/// times (overflowing FLOPs, absurd latencies) are saturated to it.
inline constexpr double maxUnitTimeUs = 1e15;

/// What the planner places: one assignable node (ops level) or one fused block (blocks level).
struct CostUnit
{
    std::vector<NodeId> nodes; ///< Program order.
    std::int64_t flops = 0;
    std::int64_t paramBytes = 0; ///< Constants the unit reads (counted per reader).
    std::int64_t activationBytes = 0; ///< Bytes of the tensors it produces for other units.
    std::size_t ops = 0; ///< Operator nodes among `nodes`.
};

/// A tensor produced by one unit and read by others (or returned by the function). Graph
/// inputs and constants are never CostTensors: reading them is not a transfer.
struct CostTensor
{
    TensorRef tensor;
    std::int32_t producer = -1; ///< Unit index.
    std::int64_t bytes = 0; ///< Transfer size (a tuple moves all its fields).
    std::int64_t memoryBytes = 0; ///< Buffer size (tuples and projections alias: 0).
    std::vector<std::int32_t> consumers; ///< Unit indices, ascending, unique.
    bool globalOutput = false; ///< Live until the end of its stage.
};

/// The cost of one stage: compute + transfer-in is its time; parameters + peak activation
/// bytes its memory. Each boundary tensor is counted once per consuming stage.
struct StageCost
{
    double computeUs = 0;
    double overheadUs = 0; ///< The device's stageOverheadUs, for a stage with units.
    double transferInUs = 0;
    double transferOutUs = 0;
    std::int64_t bytesIn = 0;
    std::int64_t bytesOut = 0;
    std::int64_t paramBytes = 0;
    std::int64_t peakActivationBytes = 0;
    std::size_t units = 0;
    std::size_t ops = 0;

    [[nodiscard]] double timeUs() const { return computeUs + overheadUs + transferInUs; }
    /// Saturates at saturatedCount, as every byte count of the cost model does.
    [[nodiscard]] std::int64_t memoryBytes() const
    {
        return satAdd(paramBytes, peakActivationBytes);
    }
};

/// The planner's view of one function: units in a topological order (index = program
/// position), the tensors between them, and the time of every unit on every device.
///
/// Memory model: a stage runs its units in program order; a tensor it receives is held for
/// the whole stage; a tensor it produces is held from its producer until its last reader in
/// program order (tensors read by later stages or returned are held to the end of the stage).
/// The peak of the held bytes plus the stage's parameter bytes is its memory.
class CostGraph
{
public:
    /// Ops level: one unit per assignable node of `view`, in program order.
    static CostGraph build(const FunctionView &view, const std::vector<DeviceSpec> &devices,
                           const LinkSpec &link);
    /// Blocks level: one unit per fused block (never split), plus one per assignable node in
    /// no block; units in a topological order of the block graph.
    static CostGraph buildBlocks(const FunctionView &view, const std::vector<FusedBlock> &blocks,
                                 const std::vector<DeviceSpec> &devices, const LinkSpec &link);
    /// A graph given directly (tests, benchmarks): `times[d][u]` per device and unit; units
    /// must be listed in a topological order.
    static CostGraph fromParts(std::vector<CostUnit> units, std::vector<CostTensor> tensors,
                               std::vector<std::vector<double>> times, const LinkSpec &link);

    [[nodiscard]] std::size_t unitCount() const { return m_units.size(); }
    [[nodiscard]] std::size_t deviceCount() const { return m_times.size(); }
    [[nodiscard]] const std::vector<CostUnit> &units() const { return m_units; }
    [[nodiscard]] const std::vector<CostTensor> &tensors() const { return m_tensors; }
    /// Tensors a unit reads from other units (unique).
    [[nodiscard]] std::span<const std::int32_t> inputsOf(std::size_t unit) const;
    /// Tensors a unit produces for other units.
    [[nodiscard]] std::span<const std::int32_t> outputsOf(std::size_t unit) const;
    /// Time of a unit on device `d`, in microseconds.
    [[nodiscard]] double timeUs(std::size_t device, std::size_t unit) const
    {
        return m_times[device][unit];
    }
    [[nodiscard]] const LinkSpec &link() const { return m_link; }
    /// The fixed time of a stage on device `d` (DeviceSpec::stageOverheadUs).
    [[nodiscard]] double stageOverheadUs(std::size_t device) const
    {
        return device < m_overheads.size() ? m_overheads[device] : 0.0;
    }
    /// The unit holding a node, or -1 (inputs, constants, nodes of other functions).
    [[nodiscard]] std::int32_t unitOf(NodeId node) const;
    /// Nodes covered by latency tables' fallbacks: nodes a device's table lacked (timed by
    /// FLOPs / rate instead), per device.
    [[nodiscard]] const std::vector<std::size_t> &latencyFallbacks() const { return m_fallbacks; }

    /// Costs of every stage of an assignment (`stageOf[u]` in [0, stageCount)); stage k is
    /// timed on device min(k, devices - 1).
    [[nodiscard]] std::vector<StageCost> evaluate(const std::vector<std::int32_t> &stageOf,
                                                  std::size_t stageCount) const;

private:
    /// The units of `groups` (convex, covering the assignable nodes), with the node → unit map,
    /// the latency fallbacks and the devices' fixed stage times set.
    static CostGraph buildFromGroups(const FunctionView &view,
                                     std::vector<std::vector<NodeId>> groups,
                                     const std::vector<DeviceSpec> &devices, const LinkSpec &link);
    void index();
    void setOverheads(const std::vector<DeviceSpec> &devices);

    std::vector<CostUnit> m_units;
    std::vector<CostTensor> m_tensors;
    std::vector<std::vector<double>> m_times;
    std::vector<std::uint32_t> m_inOffsets, m_outOffsets;
    std::vector<std::int32_t> m_in, m_out;
    std::vector<std::int32_t> m_unitOfNode;
    std::vector<std::size_t> m_fallbacks;
    std::vector<double> m_overheads; ///< Per device.
    LinkSpec m_link;
};

/// Bottleneck (max stage time) and total transfer bytes of stage costs.
double bottleneckUs(const std::vector<StageCost> &stages);
double totalTimeUs(const std::vector<StageCost> &stages);
std::int64_t totalTransferBytes(const std::vector<StageCost> &stages);

} // namespace cleave
