// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// libFuzzer harness: what `cleave-cli render MODEL --plan PLAN [--level blocks]` computes before
// it paints — the plan read against the model and checked, the Fused Blocks level (FuseOps,
// the collapsed block graph, the plan converted to it, its boundary), the drawn graph of the
// shown level and its layout (Graphviz in process, or Cleave's own ordering for graphs too deep
// or too wide for it). The painting itself is Qt's (ui/canvas), which the fuzz build leaves out.
//
// Input: one flag byte, the plan file, then optionally "\n%%\n" and a Relay model to draw
// (at most 16 KiB) instead of the small fixed one. Flag bits: 0 the Fused Blocks level, 1-2 the
// layout engine (automatic, "dot", "dot-order", "cleave-order"), 3 fold batch norms into the
// blocks.
#include "FuzzSupport.h"
#include "core/analysis/FusionAnalysis.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/FunctionView.h"
#include "core/layout/GraphLayouter.h"
#include "core/layout/LayoutGraph.h"
#include "core/partition/BlockGraph.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PlanConversion.h"
#include "core/partition/PlanFile.h"
#include "core/session/PlanPipeline.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace cleave;
    const std::optional<fuzz::FlaggedInput> in = fuzz::flaggedInput(data, size, 2);
    if (!in)
        return 0;
    const unsigned flags = in->flags;
    const std::string_view planText = in->part(0);
    const std::string_view modelText = in->part(1);
    // Graphviz's full layout takes seconds on some 1k-node graphs: models are kept small
    // enough (16 KiB of Relay, a few hundred nodes) that no input nears libFuzzer's timeout.
    if (modelText.size() > 16384)
        return 0;
    std::unique_ptr<Graph> fuzzedModel;
    if (!modelText.empty()) {
        fuzzedModel = importBytes(modelText, "/nonexistent-cleave-fuzz/model.relay").graph;
        if (!fuzzedModel)
            return 0;
    }
    const Graph &model = fuzzedModel ? *fuzzedModel : fuzz::smallModel();

    PlanLoadOptions options;
    options.force = true;
    const PlanLoadResult loaded = planFromJson(model, planText, "fuzz.plan.json", options);
    EngineSettings settings;
    settings.foldBatchNorm = (flags & 8U) != 0;
    const PlanPipeline pipeline(model, settings);
    if (loaded.plan)
        (void)pipeline.check(*loaded.plan);

    LayoutSettings layout;
    layout.fullDotLimit = 300; // above: dot orders, Cleave places and routes (bounded time)
    const char *engines[] = { "", "dot", "dot-order", "cleave-order" };
    layout.engine = engines[(flags >> 1) & 3U];
    const FunctionId function = loaded.plan ? loaded.plan->function() : model.mainFunction();
    if ((flags & 1U) == 0) {
        const FunctionView view(model, function);
        (void)computeLayout(buildLayoutGraph(view), layout);
        return 0;
    }
    const std::vector<FusedBlock> blocks = fuseOps(model, function, settings.fusionOptions());
    const BlockGraph collapsed = collapseBlocks(model, function, blocks);
    auto view
        = std::make_shared<const FunctionView>(collapsed.graph, collapsed.graph.mainFunction());
    if (loaded.plan) {
        const PlanConversion converted = relayPlanToBlocks(*loaded.plan, collapsed, view);
        if (converted.plan)
            (void)computeBoundary(*converted.plan);
    }
    (void)computeLayout(buildLayoutGraph(*view), layout);
    return 0;
}
