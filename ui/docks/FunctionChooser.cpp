// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/docks/FunctionChooser.h"

#include "ui/commands/ChangeEngineSettings.h"
#include "ui/document/Document.h"

#include <QSignalBlocker>

#include <algorithm>

namespace cleave::ui {

FunctionChooser::FunctionChooser(Document *document, QWidget *parent)
    : QComboBox(parent)
    , m_document(document)
{
    setObjectName(QStringLiteral("functionChooser"));
    setToolTip(tr("The function of the module to partition (modules with several functions)"));
    setAccessibleName(tr("Function to partition"));
    setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(document, &Document::graphChanged, this, &FunctionChooser::reload);
    connect(document, &Document::planReset, this, &FunctionChooser::reload);
    connect(this, &QComboBox::activated, this, &FunctionChooser::choose);
    reload();
}

int FunctionChooser::indexOfFunction(cleave::FunctionId function) const
{
    return findData(QVariant::fromValue(static_cast<uint>(function.value)));
}

void FunctionChooser::reload()
{
    const bool hadChoice = hasChoice();
    QSignalBlocker blocker(this);
    clear();
    const cleave::Graph *graph = m_document->graph();
    if (graph) {
        for (cleave::FunctionId f : m_document->partitionableFunctions()) {
            const cleave::Function &function = graph->function(f);
            const auto ops
                = std::count_if(function.nodes.begin(), function.nodes.end(),
                                [graph](cleave::NodeId n) { return graph->node(n).isOperator(); });
            const QString name = QString::fromStdString(function.name);
            addItem(ops == 1 ? tr("%1 (1 op)").arg(name) : tr("%1 (%2 ops)").arg(name).arg(ops),
                    QVariant::fromValue(static_cast<uint>(f.value)));
        }
    }
    if (const cleave::PartitionPlan *plan = m_document->plan())
        setCurrentIndex(indexOfFunction(plan->function()));
    // Say which function opened first, and why (a Relax module without main opens its largest
    // public function, not the first one it defines).
    if (graph && hasChoice()) {
        const int opened = indexOfFunction(graph->mainFunction());
        if (opened >= 0)
            setItemText(opened, tr("%1 — opened first").arg(itemText(opened)));
        setToolTip(tr("The function of the module to partition. Opened first: %1.")
                       .arg(QString::fromStdString(graph->mainFunctionReason())));
    }
    setEnabled(hasChoice());
    blocker.unblock();
    if (hadChoice != hasChoice())
        emit availabilityChanged(hasChoice());
}

void FunctionChooser::choose(int index)
{
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan || index < 0)
        return;
    const cleave::FunctionId function(static_cast<std::size_t>(itemData(index).toUInt()));
    if (function == plan->function())
        return;
    m_document->undoStack()->push(new ChooseFunction(m_document, function));
}

} // namespace cleave::ui
