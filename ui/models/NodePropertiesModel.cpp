// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/models/NodePropertiesModel.h"

#include "core/analysis/Cost.h"
#include "core/support/Saturating.h"
#include "ui/document/Document.h"

#include <QFileInfo>
#include <QFont>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace cleave::ui {

namespace {

// Internal ids: 0 for group rows, group index + 1 for the rows inside a group.
constexpr quintptr groupRowId = 0;

QString text(const std::string &s)
{
    return QString::fromStdString(s);
}

/// A node's op, or its kind when it calls none (an input, a constant, a tuple).
std::string opName(const cleave::Node &node)
{
    if (node.op.empty())
        return cleave::nodeKindName(node.kind);
    const std::string &op = node.op;
    return op;
}

} // namespace

NodePropertiesModel::NodePropertiesModel(Document *document, QObject *parent)
    : QAbstractItemModel(parent)
    , m_document(document)
{
    if (m_document) {
        // Partition membership changes with every edit; a new graph invalidates the node.
        connect(m_document, &Document::planChanged, this, &NodePropertiesModel::rebuild);
        connect(m_document, &Document::graphChanged, this, [this] { setNode({}); });
    }
}

void NodePropertiesModel::setNode(cleave::NodeId node)
{
    m_node = node;
    m_selection.clear();
    rebuild();
}

void NodePropertiesModel::setNodes(std::vector<cleave::NodeId> nodes)
{
    if (nodes.size() <= 1) {
        setNode(nodes.empty() ? cleave::NodeId {} : nodes.front());
        return;
    }
    m_node = {};
    m_selection = std::move(nodes);
    rebuild();
}

void NodePropertiesModel::summarise(const cleave::Graph &graph)
{
    std::map<std::string, int> ops;
    std::map<std::string, int> partitions;
    std::set<int> blocks;
    std::int64_t flops = 0;
    int operators = 0;
    const cleave::PartitionPlan *plan = m_document->plan();
    for (cleave::NodeId n : m_selection) {
        const cleave::Node &node = graph.node(n);
        if (node.isOperator()) {
            ++operators;
            ++ops[opName(node)];
            flops = cleave::satAdd(flops, cleave::nodeFlops(graph, n));
        }
        if (plan) {
            if (const cleave::Partition *p = plan->partition(plan->partitionOf(n)))
                ++partitions[p->name];
        }
        if (const int block = m_document->blockOf(n); block >= 0)
            blocks.insert(block);
    }
    const auto counted = [](const std::map<std::string, int> &counts) {
        std::vector<std::pair<int, std::string>> byCount;
        byCount.reserve(counts.size());
        for (const auto &[name, count] : counts)
            byCount.emplace_back(-count, name);
        std::sort(byCount.begin(), byCount.end());
        QStringList parts;
        for (const auto &[count, name] : byCount)
            parts << QStringLiteral("%1 ×%2").arg(text(name)).arg(-count);
        return parts.join(QStringLiteral(", "));
    };
    Group summary { tr("Selection"), {} };
    summary.rows.push_back({ tr("Nodes"), QString::number(m_selection.size()) });
    summary.rows.push_back({ tr("Operators"), QString::number(operators) });
    if (!ops.empty())
        summary.rows.push_back({ tr("Ops"), counted(ops) });
    summary.rows.push_back({ tr("FLOPs"), text(cleave::humanFlops(flops)) });
    if (!partitions.empty())
        summary.rows.push_back({ tr("Partitions"), counted(partitions) });
    if (!blocks.empty())
        summary.rows.push_back({ tr("Fused blocks"), QString::number(blocks.size()) });
    m_groups.push_back(std::move(summary));
    Group members { tr("Nodes"), {} };
    constexpr std::size_t listed = 500;
    for (std::size_t i = 0; i < m_selection.size() && i < listed; ++i) {
        const cleave::Node &node = graph.node(m_selection[i]);
        members.rows.push_back({ text(graph.key(m_selection[i])), text(opName(node)) });
    }
    if (m_selection.size() > listed)
        members.rows.push_back({ tr("…"), tr("%1 more").arg(m_selection.size() - listed) });
    m_groups.push_back(std::move(members));
}

void NodePropertiesModel::rebuild()
{
    beginResetModel();
    m_groups.clear();
    const cleave::Graph *graph = m_document ? m_document->graph() : nullptr;
    if (graph && !m_selection.empty()) {
        if (std::all_of(m_selection.begin(), m_selection.end(),
                        [graph](cleave::NodeId n) { return n.index() < graph->nodeCount(); }))
            summarise(*graph);
        else
            m_selection.clear();
        endResetModel();
        return;
    }
    if (!graph || !m_node.isValid() || m_node.index() >= graph->nodeCount()) {
        m_node = {};
        endResetModel();
        return;
    }
    const cleave::Node &n = graph->node(m_node);

    Group general { tr("Node"), {} };
    general.rows.push_back({ tr("Id"), text(graph->key(m_node)) });
    general.rows.push_back({ tr("Kind"), text(cleave::nodeKindName(n.kind)) });
    if (!n.op.empty())
        general.rows.push_back({ tr("Op"), text(n.op) });
    if (n.callee.isValid())
        general.rows.push_back({ tr("Callee"), text("@" + graph->function(n.callee).name) });
    if (const cleave::PartitionPlan *plan = m_document->plan()) {
        if (const cleave::Partition *p = plan->partition(plan->partitionOf(m_node)))
            general.rows.push_back({ tr("Partition"), text(p->name + " (" + p->target + ")") });
    }
    const int block = m_document->blockOf(m_node);
    if (block >= 0) {
        const cleave::FusedBlock &b = m_document->blocks()[static_cast<std::size_t>(block)];
        general.rows.push_back(
            { tr("Fused block"),
              b.nodes.size() == 1
                  ? tr("%1 (#%2, 1 op)").arg(text(b.name)).arg(block)
                  : tr("%1 (#%2, %3 ops)").arg(text(b.name)).arg(block).arg(b.nodes.size()) });
    }
    if (!n.span().empty())
        general.rows.push_back({ tr("Span"), text(n.span()) });
    if (n.where.isValid()) {
        const QString file = QFileInfo(QString::fromStdString(graph->sourcePath())).fileName();
        general.rows.push_back({ tr("Source"),
                                 tr("%1 line %2, column %3")
                                     .arg(file)
                                     .arg(n.where.line)
                                     .arg(n.where.column)
                                     .trimmed() });
    }
    m_groups.push_back(std::move(general));

    Group attrs { tr("Attributes"), {} };
    for (const auto &[key, value] : n.attrs.items())
        attrs.rows.push_back({ text(key), text(value.toRelay()) });
    if (!n.attrsRef().empty())
        attrs.rows.push_back({ tr("(attrs)"), text(n.attrsRef()) });
    if (!attrs.rows.empty())
        m_groups.push_back(std::move(attrs));

    Group inputs { tr("Inputs"), {} };
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        const cleave::TensorRef in = n.inputs[i];
        if (!in.isValid())
            continue;
        std::string producer = graph->key(in.node);
        if (graph->node(in.node).outputCount() > 1)
            producer += ":" + std::to_string(in.output);
        inputs.rows.push_back(
            { QString::number(i), text(producer + "  " + graph->tensorType(in).toRelay()) });
    }
    if (!inputs.rows.empty())
        m_groups.push_back(std::move(inputs));

    Group outputs { tr("Outputs"), {} };
    for (std::size_t i = 0; i < n.outputCount(); ++i)
        outputs.rows.push_back({ QString::number(i), text(n.outputType(i).toRelay()) });
    if (!outputs.rows.empty())
        m_groups.push_back(std::move(outputs));
    endResetModel();
}

QString NodePropertiesModel::value(const QString &group, const QString &property) const
{
    for (const Group &g : m_groups) {
        if (g.title != group)
            continue;
        for (const Row &r : g.rows) {
            if (r.property == property)
                return r.value;
        }
    }
    return {};
}

QModelIndex NodePropertiesModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, groupRowId);
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex NodePropertiesModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == groupRowId)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, groupRowId);
}

int NodePropertiesModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_groups.size());
    if (parent.internalId() != groupRowId || parent.column() != 0)
        return 0;
    return static_cast<int>(m_groups[static_cast<std::size_t>(parent.row())].rows.size());
}

int NodePropertiesModel::columnCount(const QModelIndex & /*parent*/) const
{
    return ColumnCount;
}

QVariant NodePropertiesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == groupRowId) {
        const Group &g = m_groups[static_cast<std::size_t>(index.row())];
        if (role == Qt::DisplayRole && index.column() == PropertyColumn)
            return g.title;
        if (role == Qt::FontRole) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    }
    const Group &g = m_groups[static_cast<std::size_t>(index.internalId() - 1)];
    const Row &r = g.rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole)
        return index.column() == PropertyColumn ? r.property : r.value;
    return {};
}

QVariant NodePropertiesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    return section == PropertyColumn ? tr("Property") : tr("Value");
}

} // namespace cleave::ui
