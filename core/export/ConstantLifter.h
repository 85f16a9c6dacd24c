// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/export/PartitionModule.h"

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cleave {

/// Turns the tensor constants of a module that extractPartition is building into parameters
/// (ConstantLifting). The module's `@main` gets one parameter per source constant; a scope or a
/// plain closure reads it as a free variable (Relay closures capture); a closed function — a
/// global, or a literal with `Primitive=1`, `Composite=` or `Compiler=`, which TVM lowers or
/// hands to a codegen as a unit and which must not read outer variables — gets an extra trailing
/// parameter of the same name, and every call of it passes the value on (transitively, through
/// callers of callers). The builder tells the lifter about every constant it copies (lift), every
/// call it creates (appendArguments before adding it, addCallSite after) and calls finish() once
/// the body is complete.
class ConstantLifter
{
public:
    /// `sourceMain` is the source function the partition belongs to; `module` is the module
    /// being built, whose `@main` is set with setModuleMain().
    ConstantLifter(const Graph &source, FunctionId sourceMain, ConstantLifting mode,
                   PartitionModule &module);

    void setModuleMain(FunctionId main) { m_main = main; }

    /// The module value standing for the source tensor constant `constant`, copied into module
    /// function `into`; an invalid id when the constant stays a `meta[...]` reference (`reason`
    /// then says why, or is empty when this mode does not lift it).
    NodeId lift(NodeId constant, FunctionId into, std::string &reason);

    /// Appends to `call` (a FunctionCall about to be added: `function` and `callee` set) the
    /// lifted constants its callee takes as extra parameters.
    void appendArguments(Node &call);

    /// Records a FunctionCall node once added, so that parameters its callee gains later are
    /// passed by it too.
    void addCallSite(NodeId call);

    /// Names the lifted parameters `const_<i>` in `@main`'s parameter order (skipping names any
    /// other parameter of the module has), and completes the module's constant list.
    void finish();

private:
    /// One lifted source constant.
    struct Lifted
    {
        std::string sourceRef;
        Type type;
        std::size_t entry = 0; ///< Its position in PartitionModule::constants.
        NodeId mainParam;
        std::vector<NodeId> carriers; ///< Extra parameters of closed functions.
        std::vector<std::string> functions; ///< Those functions, described.
    };

    void findBlockedFunctions();
    [[nodiscard]] bool isClosed(const Function &f) const;
    [[nodiscard]] std::string describe(const Graph &g, FunctionId f) const;
    NodeId carrier(FunctionId f, std::size_t lifted);
    NodeId addParam(FunctionId f, std::size_t lifted);
    void reorderEntries();

    const Graph &m_src;
    FunctionId m_sourceMain;
    ConstantLifting m_mode;
    PartitionModule &m_module;
    FunctionId m_main;
    std::vector<Lifted> m_lifted;
    std::unordered_map<std::string, std::size_t> m_liftedByRef;
    /// (module function, lifted index) → the value standing for it there.
    std::map<std::pair<std::uint32_t, std::size_t>, NodeId> m_carriers;
    /// Module function → lifted indices of its extra parameters, in parameter order.
    std::unordered_map<std::uint32_t, std::vector<std::size_t>> m_extraParams;
    /// Module function → the FunctionCall nodes that call it.
    std::unordered_map<std::uint32_t, std::vector<NodeId>> m_callSites;
    /// Source function → why it cannot take an extra parameter (absent: it can).
    std::unordered_map<std::uint32_t, std::string> m_blocked;
};

} // namespace cleave
