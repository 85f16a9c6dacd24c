// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"
#include "core/partition/BoundaryTensors.h"
#include "core/partition/PartitionPlan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cleave {

/// A constant of the source that an extracted module uses: either re-indexed in the module
/// (`moduleRef` is its `meta[relay.Constant][i]`) or lifted to a parameter (`parameter`).
struct ModuleConstant
{
    NodeId source; ///< The constant node of the source graph.
    std::string sourceRef; ///< Its `meta[relay.Constant][j]` in the source.
    std::string moduleRef; ///< Its reference in the module (empty when lifted).
    std::string parameter; ///< The parameter name (without `%`) when lifted.
    Type type;
    /// When lifted: the functions other than `@main` that receive it as an extra trailing
    /// parameter (`@helper`, `fn %17 in @main`), in the order they were given it.
    std::vector<std::string> threadedThrough;
    /// When it stays a `meta[...]` reference although lifting was asked for: why.
    std::string notLiftedReason;
};

/// Which tensor constants extractPartition turns into parameters of the module.
enum class ConstantLifting : std::uint8_t {
    None, ///< Every constant stays a re-indexed `meta[relay.Constant][i]`.
    /// Only the constants written directly in the partition's own function (Relax modules).
    MainOnly,
    /// Every constant of the module (Relay): one `@main` parameter per source constant. Scopes
    /// and plain closures read it as a free variable; closed functions (globals, `Primitive=1`,
    /// `Composite=`, `Compiler=` literals) take it as an extra trailing parameter, and every call
    /// of them passes it on. A constant whose function cannot take a parameter (it is used as a
    /// function value, not only called) stays a `meta[...]` reference, with the reason.
    Everywhere,
};

/// One partition as a standalone module: `graph` has `@main` (the partition) plus every global
/// function and type definition the partition uses, and is finalized.
struct PartitionModule
{
    Graph graph;
    std::vector<std::string> parameters; ///< `@main`'s parameters in order (without `%`).
    std::vector<Type> parameterTypes;
    std::vector<ModuleConstant> constants; ///< Tensor constants, in module order.
    std::vector<Type> outputTypes; ///< One per interface output, in output_idx order.
};

/// Builds partition `k` (plan order) of `plan` as a module (docs/DESIGN.md §5): parameters are the
/// interface inputs (global inputs by name, cut inputs `data_n_<k>`), then — as `lifting` says —
/// the partition's tensor constants as `const_<i>` in order of first use in program order (a
/// name no other parameter of any function of the module has; a closed function given the
/// constant names its extra parameter the same). Tensor constants that stay in the body are
/// re-indexed per module in the same order. A crossing tuple field is read as its own parameter;
/// the body returns the interface outputs (a tuple in output_idx order when there are several),
/// followed by the parameters named in `passThrough` (global inputs this module forwards to later
/// modules, because the pipeline config binds a global input to one module only, or returns as a
/// global output; a global input the partition does not read becomes a parameter for it). A
/// `passThrough` entry that is the key of a constant node instead returns that constant (a model
/// output that is a constant).
PartitionModule extractPartition(const PartitionPlan &plan, const BoundaryTable &boundary,
                                 std::size_t k, ConstantLifting lifting,
                                 const std::vector<std::string> &passThrough = {});

} // namespace cleave
