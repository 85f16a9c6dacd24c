// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <QDockWidget>

#include <vector>

class QTreeView;

namespace cleave::ui {

class Document;
class NodePropertiesModel;

/// The "Properties" dock: the selected node's op, attributes, input and output types, partition
/// and fused block.
class PropertiesDock : public QDockWidget
{
    Q_OBJECT

public:
    explicit PropertiesDock(Document *document, QWidget *parent = nullptr);

    /// Shows `node` (invalid: nothing).
    void setNode(cleave::NodeId node);
    /// Shows one node, or a summary of several (NodePropertiesModel::setNodes).
    void setNodes(std::vector<cleave::NodeId> nodes);
    [[nodiscard]] NodePropertiesModel *model() const { return m_model; }
    [[nodiscard]] QTreeView *view() const { return m_view; }

private:
    NodePropertiesModel *m_model;
    QTreeView *m_view;
};

} // namespace cleave::ui
