// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <QString>

#include <vector>

namespace cleave::ui {

class Document;

/// The nodes of the document's partitioned function that match `query` (case-insensitive): by
/// node id (`%12`, or `12`), op or callee name (`conv2d`), source or span name, or tensor name
/// (a boundary input name such as `data_n_0` finds the tensor's producer). Exact id matches come
/// first, then the rest in program order. An empty query finds nothing.
std::vector<cleave::NodeId> findNodes(const Document &document, const QString &query);

} // namespace cleave::ui
