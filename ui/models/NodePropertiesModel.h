// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <QAbstractItemModel>
#include <QString>

#include <vector>

namespace cleave {
class Graph;
} // namespace cleave

namespace cleave::ui {

class Document;

/// The properties of one node as a two-level tree (Property, Value): groups "Node" (id, kind,
/// op, partition, fused block, source location), "Attributes", "Inputs" (producer and type) and
/// "Outputs" (type), each with one row per item. Empty groups are left out. Several nodes show
/// as a "Selection" group (counts, ops by kind, FLOPs, partitions, fused blocks) and a "Nodes"
/// group (each node's id and op, the first 500).
class NodePropertiesModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column { PropertyColumn, ValueColumn, ColumnCount };

    /// Follows `document` (may be nullptr: an empty model).
    explicit NodePropertiesModel(Document *document, QObject *parent = nullptr);

    /// Shows `node` (an invalid id clears the model).
    void setNode(cleave::NodeId node);
    /// Shows `nodes`: one node as setNode() does, several as a summary of the selection.
    void setNodes(std::vector<cleave::NodeId> nodes);
    [[nodiscard]] cleave::NodeId node() const { return m_node; }
    /// The value of the row called `property` in group `group`, or an empty string.
    [[nodiscard]] QString value(const QString &group, const QString &property) const;

    [[nodiscard]] QModelIndex index(int row, int column,
                                    const QModelIndex &parent = {}) const override;
    [[nodiscard]] QModelIndex parent(const QModelIndex &child) const override;
    [[nodiscard]] int rowCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex &index,
                                int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        QString property;
        QString value;
    };
    struct Group
    {
        QString title;
        std::vector<Row> rows;
    };

    void rebuild();
    /// The groups of a selection of several nodes.
    void summarise(const cleave::Graph &graph);

    Document *m_document;
    cleave::NodeId m_node;
    std::vector<cleave::NodeId> m_selection; ///< More than one node, or empty.
    std::vector<Group> m_groups;
};

} // namespace cleave::ui
