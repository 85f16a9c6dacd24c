// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/docks/CompareDock.h"

#include "core/formats/FormatRegistry.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/document/Document.h"
#include "ui/document/LevelView.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <array>
#include <map>

namespace cleave::ui {

namespace {

using Kind = NodeDifference::Kind;
constexpr std::array kinds { Kind::Added, Kind::Removed, Kind::Changed };
const QString lastDirectoryKey = QStringLiteral("compare/lastDirectory");

QString chip(const QColor &colour)
{
    return QStringLiteral("<span style=\"color:%1\">●</span>").arg(colour.name());
}

} // namespace

CompareDock::CompareDock(Document *document, LevelView *levels, CanvasWidget *canvas,
                         QWidget *parent)
    : QDockWidget(tr("Comparison"), parent)
    , m_document(document)
    , m_levels(levels)
    , m_canvas(canvas)
    , m_compareAction(new QAction(tr("Compare &With…"), this))
    , m_header(new QLabel)
    , m_list(new QTreeWidget)
    , m_clear(new QPushButton(tr("Clear")))
{
    setObjectName(QStringLiteral("compareDock"));
    m_compareAction->setObjectName(QStringLiteral("compareAction"));
    m_compareAction->setToolTip(tr("Compare the open model with another one: added, removed "
                                   "and changed nodes, listed and ringed on the canvas"));
    m_compareAction->setEnabled(false);
    m_pathProvider = [this] {
        QSettings settings;
        QString path = QFileDialog::getOpenFileName(
            this, tr("Compare With Model"),
            settings.value(lastDirectoryKey, QFileInfo(m_document->filePath()).absolutePath())
                .toString(),
            tr("Models (*.relay *.txt *.py *.json *.onnx);;All files (*)"));
        if (!path.isEmpty())
            settings.setValue(lastDirectoryKey, QFileInfo(path).absolutePath());
        return path;
    };

    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(6, 4, 6, 4);
    auto *top = new QHBoxLayout;
    m_header->setObjectName(QStringLiteral("compareHeader"));
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    top->addWidget(m_header, 1);
    auto *again = new QPushButton(tr("Compare With…"));
    m_clear->setObjectName(QStringLiteral("compareClear"));
    m_clear->setEnabled(false);
    top->addWidget(again);
    top->addWidget(m_clear);
    layout->addLayout(top);
    auto *legend = new QHBoxLayout;
    for (Kind kind : kinds) {
        auto *label = new QLabel;
        label->setTextFormat(Qt::RichText);
        label->setToolTip(kind == Kind::Added
                              ? tr("Only in the other model (click: the nodes it reads)")
                              : kind == Kind::Removed ? tr("Only in the open model")
                                                      : tr("In both, with a different op, "
                                                           "attributes, types or inputs"));
        legend->addWidget(label);
        m_legend.push_back(label);
    }
    legend->addStretch(1);
    layout->addLayout(legend);
    m_list->setObjectName(QStringLiteral("compareList"));
    m_list->setColumnCount(3);
    m_list->setHeaderLabels({ tr("Node"), tr("Op"), tr("Difference") });
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->header()->resizeSection(0, 120);
    m_list->header()->resizeSection(1, 170);
    layout->addWidget(m_list, 1);
    setWidget(page);

    connect(m_compareAction, &QAction::triggered, this, &CompareDock::askAndCompare);
    connect(again, &QPushButton::clicked, this, &CompareDock::askAndCompare);
    connect(m_clear, &QPushButton::clicked, this, &CompareDock::clear);
    connect(m_list, &QTreeWidget::itemClicked, this, &CompareDock::activate);
    connect(m_list, &QTreeWidget::itemActivated, this, &CompareDock::activate);
    connect(m_document, &Document::graphChanged, this, [this] {
        m_compareAction->setEnabled(m_document->hasGraph());
        clear();
    });
    // A new level (ops / blocks) or an expanded block draws other nodes: ring them again.
    connect(m_levels, &LevelView::graphShown, this, &CompareDock::applyMarks);
    fill();
}

CompareDock::~CompareDock() = default;

QColor CompareDock::kindColour(Kind kind)
{
    switch (kind) {
    case Kind::Added:
        return { 0x2e, 0x9d, 0x4f };
    case Kind::Removed:
        return { 0xd9, 0x30, 0x25 };
    case Kind::Changed:
        return { 0x9b, 0x4d, 0xca };
    }
    return {};
}

void CompareDock::askAndCompare()
{
    if (!m_document->hasGraph())
        return;
    const QString path = m_pathProvider ? m_pathProvider() : QString();
    if (!path.isEmpty())
        compareWith(path);
}

bool CompareDock::compareWith(const QString &path)
{
    show();
    raise();
    if (!m_document->hasGraph())
        return false;
    ImportResult result = importFile(path.toStdString());
    if (!result.ok()) {
        clear();
        m_header->setText(QStringLiteral("<span style=\"color:#d93025\">%1</span>")
                              .arg(tr("Cannot compare with %1: %2")
                                       .arg(QDir::toNativeSeparators(path),
                                            QString::fromStdString(result.firstError()))
                                       .toHtmlEscaped()));
        return false;
    }
    m_other = std::move(result.graph);
    m_diff = diffModels(*m_document->graph(), *m_other);
    m_header->setToolTip(QDir::toNativeSeparators(path));
    fill();
    const QString from = m_document->fileName().toHtmlEscaped();
    const QString to = QFileInfo(path).fileName().toHtmlEscaped();
    const std::size_t count = m_diff.nodes.size();
    if (count == 0)
        m_header->setText(tr("<b>%1</b> and <b>%2</b> match node for node.").arg(from, to));
    else if (count == 1)
        m_header->setText(tr("<b>%1</b> → <b>%2</b>: 1 node differs.").arg(from, to));
    else
        m_header->setText(tr("<b>%1</b> → <b>%2</b>: %3 nodes differ.").arg(from, to).arg(count));
    applyMarks();
    return true;
}

void CompareDock::clear()
{
    m_other.reset();
    m_diff = {};
    m_header->setToolTip({});
    m_header->setText(tr("No comparison. File ▸ Compare With… picks a second model."));
    fill();
    applyMarks();
}

QStringList CompareDock::legend() const
{
    QStringList out;
    for (Kind kind : kinds)
        out << QStringLiteral("%1 %2")
                   .arg(QLatin1String(differenceKindName(kind)))
                   .arg(m_diff.count(kind));
    return out;
}

void CompareDock::fill()
{
    m_list->clear();
    m_clear->setEnabled(isComparing());
    for (std::size_t i = 0; i < kinds.size(); ++i)
        m_legend[i]->setText(
            QStringLiteral("%1 %2 %3")
                .arg(chip(kindColour(kinds[i])), QLatin1String(differenceKindName(kinds[i])))
                .arg(m_diff.count(kinds[i])));
    for (std::size_t i = 0; i < m_diff.nodes.size(); ++i) {
        const NodeDifference &d = m_diff.nodes[i];
        auto *item = new QTreeWidgetItem(m_list);
        item->setText(0, QString::fromStdString(d.key));
        item->setText(1, QString::fromStdString(d.op));
        item->setText(2, QLatin1String(differenceKindName(d.kind)));
        item->setForeground(2, kindColour(d.kind));
        item->setData(0, Qt::UserRole, static_cast<qulonglong>(i));
        for (const NodeChange &c : d.changes) {
            auto *child = new QTreeWidgetItem(item);
            child->setText(1, QString::fromStdString(c.what));
            child->setText(2,
                           QStringLiteral("%1 → %2").arg(
                               c.before.empty() ? tr("(none)") : QString::fromStdString(c.before),
                               c.after.empty() ? tr("(none)") : QString::fromStdString(c.after)));
            child->setToolTip(2, child->text(2));
        }
        item->setExpanded(true);
    }
}

void CompareDock::applyMarks()
{
    std::map<NodeId, QColor> shown;
    for (const NodeDifference &d : m_diff.nodes) {
        if (!d.before.isValid())
            continue; // added: not in the open model
        for (NodeId n : m_levels->shownNodes({ d.before })) {
            // A block holding several differences: removed wins over changed.
            auto [it, fresh] = shown.emplace(n, kindColour(d.kind));
            if (!fresh && d.kind == Kind::Removed)
                it->second = kindColour(d.kind);
        }
    }
    m_canvas->setNodeMarks({ shown.begin(), shown.end() });
}

std::vector<NodeId> CompareDock::focusNodes(const NodeDifference &d) const
{
    if (d.before.isValid())
        return { d.before };
    std::vector<NodeId> readers;
    if (!m_other || !d.after.isValid())
        return readers;
    const Graph &open = *m_document->graph();
    for (const TensorRef &input : m_other->node(d.after).inputs) {
        if (!input.node.isValid())
            continue;
        const NodeId same = open.findByKey(m_other->key(input.node));
        if (same.isValid())
            readers.push_back(same);
    }
    return readers;
}

void CompareDock::activate(QTreeWidgetItem *item)
{
    if (item == nullptr)
        return;
    if (item->parent() != nullptr)
        item = item->parent();
    const auto index = static_cast<std::size_t>(item->data(0, Qt::UserRole).toULongLong());
    if (index >= m_diff.nodes.size())
        return;
    const std::vector<NodeId> nodes = focusNodes(m_diff.nodes[index]);
    if (!nodes.empty())
        emit focusRequested(nodes);
}

} // namespace cleave::ui
