// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/analysis/OpPattern.h"
#include "core/graph/Graph.h"
#include "core/support/InternedString.h"

#include <cstddef>
#include <string>
#include <vector>

namespace cleave {

/// Knobs of fuseOps().
struct FusionOptions
{
    /// Treat `annotation.stop_fusion` as an elementwise identity instead of an opaque fusion
    /// barrier, so that blocks form as if the annotations were not there.
    bool transparentStopFusion = false;
    /// Model SimplifyInference + FoldScaleAxis, which run before FuseOps in `relay.build`:
    /// `nn.batch_norm` acts as the broadcast `add` of its folded shift (and is named `add`),
    /// and its `.0` projection is free. Conv → batch_norm → relu then fuses into
    /// `fused_nn_conv2d_add_nn_relu`, as in built ResNets.
    bool foldBatchNorm = false;
    /// Most nodes per block (TVM's `relay.FuseOps.max_depth`, default kMaxFusedOps = 256).
    std::size_t maxDepth = 256;
    /// Op patterns; null means OpPatternTable::builtin().
    const OpPatternTable *patterns = nullptr;
};

/// One fused kernel: a convex, single-output group of nodes of one function that TVM's FuseOps
/// would turn into one `Primitive=1` function (or a call of an existing Primitive / Composite /
/// external function, which is a block as it is).
struct FusedBlock
{
    /// The name TVM gives the fused function: `fused_` + the op names of the body in post-order
    /// with `.` → `_` (`fused_nn_conv2d_add_nn_relu`); `_1`, `_2` for structurally different
    /// blocks with the same name; longer than 80 characters → cut at 80 + `_<hash>_` (our hash,
    /// not TVM's). Existing functions: the body's fused name for a Primitive literal, the
    /// `Composite` value, or the global's name. A graph.json kernel keeps its `func_name`.
    /// Interned: thousands of blocks share a few dozen names.
    InternedString name;
    OpPatternKind pattern = OpPatternKind::Opaque; ///< The group's pattern (its anchor's).
    NodeId root; ///< The node whose value the block returns.
    std::vector<NodeId> nodes; ///< Members in post-order (producers first); no inputs/constants.
    TensorRefList inputs; ///< Tensors read from outside, in order of first use.
    TensorRefList outputs; ///< Tensors used outside the block or returned.
    FunctionId callee; ///< For a call of an existing function: that function.

    /// True when the block is a call of an existing Primitive / Composite / global function.
    [[nodiscard]] bool isExisting() const { return callee.isValid(); }
};

/// Groups the nodes of function `f` the way TVM's FuseOps does (src/relay/transforms/
/// fuse_ops.cc, src/relay/analysis/graph_partitioner.cc): a post-dominator tree over the
/// forward dataflow graph, then three union-find phases (0: complex ops take elementwise tails,
/// elementwise/broadcast ops fuse forward; 1: injective ops and tuples; 2: injective ops into
/// fused tuples). Every operator node of `f` ends up in exactly one block; tuples and
/// projections join the block that consumes them or stay outside any block. Blocks are listed
/// in the order TVM would call them (post-order of their roots). `graph` must be finalized.
std::vector<FusedBlock> fuseOps(const Graph &graph, FunctionId f,
                                const FusionOptions &options = {});

/// The op names of a block's member calls in post-order (`{"nn.conv2d", "add", "nn.relu"}`);
/// for a call of an existing function, the calls of that function's body.
std::vector<std::string> blockOps(const Graph &graph, const FusedBlock &block);

} // namespace cleave
