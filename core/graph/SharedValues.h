// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/AttrValue.h"
#include "core/graph/Graph.h"

#include <cstddef>
#include <unordered_map>

namespace cleave {

/// Gives the constant nodes of one import that hold identical values (Relax's `R.prim_value(0)`,
/// Relay's `2f`) one NodeDetail between them. A value lives in a node's detail, a block of some
/// 300 bytes, and a large model repeats a handful of values thousands of times; shared, each
/// further node costs nothing beyond itself. Copy-on-write keeps the nodes independent: changing
/// one node's detail gives it a copy of its own. Identical means identical() (the same
/// spelling), so every node prints back as it was written. Local to one import; it remembers at
/// most `maxValues` distinct values, so a model of a million different scalars costs no more
/// than it did.
class SharedValues
{
public:
    static constexpr std::size_t maxValues = 4096;

    /// Sets `node`'s value to `value`. A node without a detail of its own shares the detail of
    /// the first node given an identical value (and only that value) here.
    void setValue(Node &node, AttrValue value);

    /// Distinct values remembered so far.
    [[nodiscard]] std::size_t size() const { return m_holders.size(); }

private:
    struct Hash
    {
        std::size_t operator()(const AttrValue &v) const { return identityHash(v); }
    };
    struct Same
    {
        bool operator()(const AttrValue &a, const AttrValue &b) const { return identical(a, b); }
    };
    // Each value's first node without other rare fields, kept for its detail.
    std::unordered_map<AttrValue, Node, Hash, Same> m_holders;
};

} // namespace cleave
