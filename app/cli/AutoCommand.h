// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli auto`: balanced pipeline stages or target-driven BYOC regions, proposed as an
// ordinary plan (issue 15). The command table row in main.cpp forwards here.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cleave::cli {

/// The parsed arguments of `auto` (positionals, flags, options with their values in order).
struct AutoArguments
{
    std::vector<std::string> positionals;
    std::vector<std::string> flags;
    std::vector<std::pair<std::string, std::string>> options;
};

/// Runs `auto`; returns the exit status (0 ok, 1 the plan does not validate or export,
/// 2 bad input or an infeasible request).
int runAuto(const AutoArguments &args);

inline constexpr std::string_view autoSynopsis
    = "MODEL (--stages K | --devices FILE | --targets T=OPS.json,...,FALLBACK) "
      "[--objective throughput|latency] [--memory-limit BYTES] [--latency FILE] "
      "[--flops-rate GFLOPS] [--bandwidth GBPS] [--link-latency US] [--level ops|blocks] "
      "[--min-region OPS] [--save-plan FILE] [--out DIR] [--json]";

inline constexpr std::string_view autoSummary
    = "Propose a plan: K balanced pipeline stages (optimal for the cost model), or BYOC "
      "regions from op-support lists; print it with the baselines and optionally save or "
      "export it.";

inline constexpr std::string_view autoDetails
    = "  --stages K            split into K pipeline stages (convex, in topological order)\n"
      "  --devices FILE        one stage per device: {\"devices\": [{\"name\", \"target\",\n"
      "                        \"gflops\", \"memory\": \"16GiB\", \"latency\": FILE}, ...],\n"
      "                        \"links\": {\"bandwidth\": \"12GB/s\", \"latency\": \"20us\"}}\n"
      "  --objective O         throughput (default: the slowest stage, ties: fewer bytes\n"
      "                        moved) or latency (the sum of the stages)\n"
      "  --memory-limit BYTES  per stage: parameters + peak activations (16GiB, 512MB, ...)\n"
      "  --latency FILE        measured latencies ({\"ops\": {op: us}, \"nodes\": {key: us}})\n"
      "  --flops-rate GFLOPS   time of nodes without a latency: FLOPs / rate (default 1000)\n"
      "  --bandwidth GBPS      link bandwidth in GB/s, 10^9 bytes per second (default 10)\n"
      "  --link-latency US     per-transfer latency in microseconds (default 20)\n"
      "  --level ops|blocks    unit of placement: single ops (default) or fused blocks,\n"
      "                        never split (formed with --fold-batch-norm and the other\n"
      "                        fusion flags of `partition`)\n"
      "  --targets LIST        regions mode: T=OPS.json entries in priority order, then the\n"
      "                        fallback target (e.g. dnnl=dnnl_ops.json,llvm)\n"
      "  --min-region OPS      regions with fewer ops stay on the fallback (default 1)\n"
      "  --latency-per-target T=FILE\n"
      "                        measured latencies of a target (repeatable): a region whose\n"
      "                        transfers cost more than it gains stays on the fallback\n"
      "  --save-plan FILE      write the plan file (the editor, validate and partition take\n"
      "                        it as it is)\n"
      "  --out DIR             export the plan as `partition --out` does\n"
      "  --json                print the `partition --json` report plus objective, mode\n"
      "                        (exact | orders | regions), bottleneck_us, lower_bound_us,\n"
      "                        stage_times_us and baselines [{name, bottleneck_us}]\n";

/// Flags and value options `auto` accepts (besides --help).
std::vector<std::string_view> autoFlags();
std::vector<std::string_view> autoOptions();

} // namespace cleave::cli
