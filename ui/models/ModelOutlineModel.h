// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"

#include <QAbstractItemModel>

#include <vector>

namespace cleave::ui {

/// A read-only tree of a graph: one top-level row per function (the main function first, then
/// the others in source order), and under each the function's nodes in source order. Columns:
/// the node's id, its kind or operator, and its output type. A function's nodes are offered in
/// batches (canFetchMore / fetchMore, as a view scrolls to the end of them): a tree view keeps a
/// record per shown row, 40 bytes each, which for a 24k-node main function was a megabyte laid
/// out on open, for a dock the user may never scroll through.
class ModelOutlineModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column { IdColumn, KindColumn, TypeColumn, ColumnCount };
    /// How many more node rows of a function each fetchMore() offers (the first batch is there
    /// at once).
    static constexpr int rowBatch = 1000;
    enum Role {
        NodeIdRole = Qt::UserRole + 1, ///< The row's NodeId value (node rows only).
        FunctionIdRole, ///< The FunctionId value of the row's function.
    };

    explicit ModelOutlineModel(QObject *parent = nullptr);

    /// Shows `graph` (not owned; may be nullptr). The graph must outlive its use here.
    void setGraph(const cleave::Graph *graph);
    [[nodiscard]] const cleave::Graph *graph() const { return m_graph; }
    /// The top-level row of function `f`.
    [[nodiscard]] QModelIndex functionIndex(cleave::FunctionId f) const;

    [[nodiscard]] QModelIndex index(int row, int column,
                                    const QModelIndex &parent = {}) const override;
    [[nodiscard]] QModelIndex parent(const QModelIndex &child) const override;
    [[nodiscard]] int rowCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex &parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex &index,
                                int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                      int role = Qt::DisplayRole) const override;
    [[nodiscard]] bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

private:
    [[nodiscard]] QVariant functionData(cleave::FunctionId id, int column, int role) const;
    [[nodiscard]] QVariant nodeData(cleave::NodeId id, int column, int role) const;
    [[nodiscard]] int nodeCount(int functionRow) const;

    const cleave::Graph *m_graph = nullptr;
    std::vector<cleave::FunctionId> m_functions; // row → function
    std::vector<int> m_rowOfFunction; // function index → row
    std::vector<int> m_fetched; // row → how many of the function's nodes are offered
};

} // namespace cleave::ui
