// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Test helper: the items of one kind in a canvas's scene.
#pragma once

#include <QGraphicsItem>
#include <QGraphicsScene>

#include <vector>

namespace cleave::test {

/// Every item of `scene` of type T (qgraphicsitem_cast), children of tiles and layers included,
/// in the scene's order.
template <typename T>
std::vector<T *> itemsOf(QGraphicsScene *scene)
{
    std::vector<T *> out;
    for (QGraphicsItem *item : scene->items())
        if (auto *t = qgraphicsitem_cast<T *>(item))
            out.push_back(t);
    return out;
}

} // namespace cleave::test
