// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/models/ModelOutlineModel.h"

#include <QFont>
#include <QStringList>

#include <algorithm>

namespace cleave::ui {

namespace {

// Node rows carry their function's row + 1 as internal id; function rows carry 0.
constexpr quintptr functionRowTag = 0;

QString functionLabel(const cleave::Function &f)
{
    return QString::fromStdString(f.kind == cleave::Function::Kind::Global ? "@" + f.name : f.name);
}

QString functionKindText(const cleave::Function &f)
{
    QString text;
    switch (f.kind) {
    case cleave::Function::Kind::Global:
        text = ModelOutlineModel::tr("global function");
        break;
    case cleave::Function::Kind::Literal:
        text = ModelOutlineModel::tr("fn literal");
        break;
    case cleave::Function::Kind::Scope:
        text = ModelOutlineModel::tr("scope");
        break;
    }
    if (const std::string composite = f.composite(); !composite.empty())
        text += QStringLiteral(" · Composite=") + QString::fromStdString(composite);
    if (const std::string compiler = f.compiler(); !compiler.empty())
        text += QStringLiteral(" · Compiler=") + QString::fromStdString(compiler);
    if (f.isPrimitive())
        text += QStringLiteral(" · Primitive");
    return text;
}

QString nodeKindText(const cleave::Graph &graph, const cleave::Node &node)
{
    switch (node.kind) {
    case cleave::NodeKind::OpCall:
        return QString::fromStdString(node.op);
    case cleave::NodeKind::ConstructorCall:
        return ModelOutlineModel::tr("constructor %1").arg(QString::fromStdString(node.op));
    case cleave::NodeKind::FunctionCall:
    case cleave::NodeKind::FunctionValue:
        if (node.callee.isValid()) {
            const QString callee = functionLabel(graph.function(node.callee));
            return node.kind == cleave::NodeKind::FunctionCall
                ? ModelOutlineModel::tr("call %1").arg(callee)
                : ModelOutlineModel::tr("function %1").arg(callee);
        }
        break;
    case cleave::NodeKind::Constant:
        if (!node.value().isNull())
            return ModelOutlineModel::tr("constant %1")
                .arg(QString::fromStdString(node.value().toRelay()));
        // Unnamed constants are already listed by their meta reference.
        if (!node.metaRef().empty() && node.metaRef() != node.name)
            return ModelOutlineModel::tr("constant %1").arg(QString::fromStdString(node.metaRef()));
        break;
    case cleave::NodeKind::TupleGetItem:
        return ModelOutlineModel::tr("tuple item %1").arg(node.index);
    default:
        break;
    }
    return QString::fromUtf8(cleave::nodeKindName(node.kind));
}

QString typesText(const cleave::Node &node, bool relaySyntax)
{
    QStringList types;
    for (const cleave::Type &t : node.outputTypes())
        types.append(QString::fromStdString(relaySyntax ? t.toRelay() : t.toShortString()));
    return types.join(QStringLiteral(", "));
}

QString nodeToolTip(const cleave::Graph &graph, cleave::NodeId id)
{
    const cleave::Node &node = graph.node(id);
    QStringList lines;
    lines.append(QString::fromStdString(graph.key(id)) + QStringLiteral(": ")
                 + nodeKindText(graph, node));
    for (const auto &[key, value] : node.attrs.items())
        lines.append(QStringLiteral("  %1=%2").arg(QString::fromStdString(key),
                                                   QString::fromStdString(value.toRelay())));
    if (!node.attrsRef().empty())
        lines.append(QStringLiteral("  ") + QString::fromStdString(node.attrsRef()));
    lines.append(typesText(node, true));
    if (node.where.isValid())
        lines.append(QString::fromStdString(node.where.toString()));
    return lines.join(QLatin1Char('\n'));
}

} // namespace

ModelOutlineModel::ModelOutlineModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

void ModelOutlineModel::setGraph(const cleave::Graph *graph)
{
    beginResetModel();
    m_graph = graph;
    m_functions.clear();
    m_rowOfFunction.clear();
    m_fetched.clear();
    if (m_graph) {
        const cleave::FunctionId main = m_graph->mainFunction();
        if (main.isValid())
            m_functions.push_back(main);
        for (std::size_t i = 0; i < m_graph->functionCount(); ++i) {
            if (cleave::FunctionId(i) != main)
                m_functions.emplace_back(i);
        }
        m_rowOfFunction.assign(m_graph->functionCount(), -1);
        for (std::size_t row = 0; row < m_functions.size(); ++row) {
            m_rowOfFunction[m_functions[row].index()] = static_cast<int>(row);
            m_fetched.push_back(std::min(nodeCount(static_cast<int>(row)), rowBatch));
        }
    }
    endResetModel();
}

QModelIndex ModelOutlineModel::functionIndex(cleave::FunctionId f) const
{
    if (!f.isValid() || f.index() >= m_rowOfFunction.size())
        return {};
    return index(m_rowOfFunction[f.index()], IdColumn);
}

QModelIndex ModelOutlineModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, functionRowTag);
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex ModelOutlineModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == functionRowTag)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), IdColumn, functionRowTag);
}

int ModelOutlineModel::rowCount(const QModelIndex &parent) const
{
    if (!m_graph)
        return 0;
    if (!parent.isValid())
        return static_cast<int>(m_functions.size());
    if (parent.internalId() != functionRowTag || parent.column() != IdColumn)
        return 0;
    return m_fetched[static_cast<std::size_t>(parent.row())];
}

int ModelOutlineModel::nodeCount(int functionRow) const
{
    return static_cast<int>(
        m_graph->function(m_functions[static_cast<std::size_t>(functionRow)]).nodes.size());
}

bool ModelOutlineModel::canFetchMore(const QModelIndex &parent) const
{
    if (!m_graph || !parent.isValid() || parent.internalId() != functionRowTag
        || parent.column() != IdColumn)
        return false;
    return m_fetched[static_cast<std::size_t>(parent.row())] < nodeCount(parent.row());
}

void ModelOutlineModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    int &fetched = m_fetched[static_cast<std::size_t>(parent.row())];
    const int more = std::min(nodeCount(parent.row()) - fetched, rowBatch);
    beginInsertRows(parent, fetched, fetched + more - 1);
    fetched += more;
    endInsertRows();
}

int ModelOutlineModel::columnCount(const QModelIndex & /*parent*/) const
{
    return ColumnCount;
}

QVariant ModelOutlineModel::data(const QModelIndex &index, int role) const
{
    if (!m_graph || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == functionRowTag)
        return functionData(m_functions[index.row()], index.column(), role);
    const cleave::Function &f = m_graph->function(m_functions[index.internalId() - 1]);
    return nodeData(f.nodes[index.row()], index.column(), role);
}

QVariant ModelOutlineModel::functionData(cleave::FunctionId id, int column, int role) const
{
    const cleave::Function &f = m_graph->function(id);
    const auto resultType = [&](bool relaySyntax) {
        if (f.hasReturnType)
            return QString::fromStdString(relaySyntax ? f.returnType.toRelay()
                                                      : f.returnType.toShortString());
        return f.result.isValid() ? typesText(m_graph->node(f.result), relaySyntax) : QString();
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case IdColumn:
            return functionLabel(f);
        case KindColumn:
            return functionKindText(f);
        case TypeColumn:
            return resultType(false);
        }
        break;
    case Qt::ToolTipRole:
        return tr("%1 (%2)\nparameters: %3, nodes: %4\nreturns %5")
            .arg(functionLabel(f), functionKindText(f))
            .arg(f.params.size())
            .arg(f.nodes.size())
            .arg(resultType(true));
    case Qt::FontRole: {
        QFont font;
        font.setBold(true);
        return font;
    }
    case FunctionIdRole:
        return QVariant::fromValue(id.value);
    default:
        break;
    }
    return {};
}

QVariant ModelOutlineModel::nodeData(cleave::NodeId id, int column, int role) const
{
    const cleave::Node &node = m_graph->node(id);
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case IdColumn:
            return QString::fromStdString(node.name.empty() ? m_graph->key(id) : node.name);
        case KindColumn:
            return nodeKindText(*m_graph, node);
        case TypeColumn:
            return typesText(node, false);
        }
        break;
    case Qt::ToolTipRole:
        return nodeToolTip(*m_graph, id);
    case NodeIdRole:
        return QVariant::fromValue(id.value);
    case FunctionIdRole:
        return QVariant::fromValue(node.function.value);
    default:
        break;
    }
    return {};
}

QVariant ModelOutlineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn:
        return tr("Id");
    case KindColumn:
        return tr("Kind / Op");
    case TypeColumn:
        return tr("Output type");
    default:
        return {};
    }
}

} // namespace cleave::ui
