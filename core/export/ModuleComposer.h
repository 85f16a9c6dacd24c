// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"

#include <map>
#include <string>
#include <vector>

namespace cleave {

/// Where one parameter of a module gets its value when modules are wired together.
struct ModuleBinding
{
    enum class Kind { GlobalInput, ModuleOutput, Constant };
    Kind kind = Kind::GlobalInput;
    std::string name; ///< GlobalInput: the global input's name.
    std::size_t module = 0; ///< ModuleOutput: the producing module (position in the list).
    std::size_t output = 0; ///< ModuleOutput: its output_idx.
    std::string constantRef; ///< Constant: the `meta[...]` reference it stands for.
    Type type; ///< Constant: its type.
};

/// One module to compose: its graph (`@main` is the partition), a binding per `@main`
/// parameter, and how its constants are renamed in the composed graph.
struct ComposedModule
{
    const Graph *graph = nullptr;
    std::vector<ModuleBinding> bindings; ///< One per parameter of the module's @main.
    std::size_t outputCount = 1;
    /// The function holds a Tuple of its outputs as result (set when outputCount > 1; also
    /// for a source whose result is a one-field tuple).
    bool tupleOutputs = false;
    std::string function = "main"; ///< The module's function that is the partition.
    std::map<std::string, std::string> constantRefs; ///< Module `meta[..]` ref → composed ref.
    /// Empty: the module's body is inlined into the composed @main. Otherwise the module
    /// becomes the global function of this name, called from @main (PartitionGraph style).
    std::string callName;
    Attributes callAttrs; ///< Attributes of that function (Compiler=, Primitive=1, ...).
    std::vector<std::string> callParams; ///< Its parameter names (without `%`).
    /// Annotation: wrap values entering the module in `annotation.compiler_begin` and values
    /// leaving it in `annotation.compiler_end` with this compiler (empty: no annotation).
    std::string annotateCompiler;
};

/// The global interface of the composed graph.
struct ComposeSpec
{
    std::vector<std::pair<std::string, Type>> inputs; ///< @main's parameters.
    std::vector<std::pair<std::size_t, std::size_t>> outputs; ///< (module, output_idx) each.
    bool tupleResult = false; ///< Return a tuple even with one output.
    Function signature; ///< Attributes / return type / type params copied onto @main.
    /// Collapse `(%x.0, %x.1, ...)` over every field of a tuple back into `%x` (how a tuple
    /// crossing a cut is recomposed).
    bool collapseFieldTuples = true;
    /// Keep one copy of each weight-only operator of @main: one computed only from constants,
    /// the global inputs named in `weightInputs` and other such operators; a later copy with
    /// the same op, callee, attributes, inputs and types reads the first. An export computes a
    /// weight-only value again in each stage that reads it (ReplicatedValue); composing both
    /// the modules and the source this way compares them up to those copies.
    bool mergeWeightOnly = false;
    std::vector<std::string> weightInputs; ///< For mergeWeightOnly: the weights among inputs.
};

/// Wires modules into one graph (docs/DESIGN.md §5.4 recomposition; also byoc.relay and
/// byoc_annotated.relay). Global functions other than @main are taken from the first module
/// that has them. On inconsistent wiring `error` is set and the graph is incomplete.
Graph composeModules(const std::vector<ComposedModule> &modules, const ComposeSpec &spec,
                     std::string &error);

} // namespace cleave
