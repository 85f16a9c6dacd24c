// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/docks/PropertiesDock.h"

#include "ui/models/NodePropertiesModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QStackedWidget>
#include <QTreeView>

namespace cleave::ui {

PropertiesDock::PropertiesDock(Document *document, QWidget *parent)
    : QDockWidget(tr("Properties"), parent)
    , m_model(new NodePropertiesModel(document, this))
    , m_view(new QTreeView)
{
    setObjectName(QStringLiteral("propertiesDock"));
    m_view->setObjectName(QStringLiteral("propertiesView"));
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setRootIsDecorated(false);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_view->header()->setStretchLastSection(true);
    auto *hint = new QLabel(tr("Select a node on the canvas to see its operator, attributes, "
                               "input and output types, partition and fused block."));
    hint->setObjectName(QStringLiteral("propertiesHint"));
    hint->setWordWrap(true);
    hint->setAlignment(Qt::AlignCenter);
    hint->setEnabled(false);
    hint->setMargin(16);
    auto *stack = new QStackedWidget;
    stack->addWidget(hint);
    stack->addWidget(m_view);
    setWidget(stack);
    // Every group open: the dock is a sheet to read, not a tree to browse.
    connect(m_model, &QAbstractItemModel::modelReset, this, [this, stack, hint] {
        m_view->expandAll();
        stack->setCurrentWidget(m_model->rowCount() > 0 ? static_cast<QWidget *>(m_view) : hint);
    });
}

void PropertiesDock::setNode(cleave::NodeId node)
{
    m_model->setNode(node);
}

void PropertiesDock::setNodes(std::vector<cleave::NodeId> nodes)
{
    m_model->setNodes(std::move(nodes));
}

} // namespace cleave::ui
