// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/graph/SharedValues.h"

#include <utility>

namespace cleave {

void SharedValues::setValue(Node &node, AttrValue value)
{
    if (node.hasDetail() || value.isNull()) {
        node.setValue(std::move(value));
        return;
    }
    if (const auto it = m_holders.find(value); it != m_holders.end()) {
        node.shareDetail(it->second);
        return;
    }
    if (m_holders.size() >= maxValues) {
        node.setValue(std::move(value));
        return;
    }
    Node holder;
    holder.setValue(value);
    node.shareDetail(holder);
    m_holders.emplace(std::move(value), std::move(holder));
}

} // namespace cleave
