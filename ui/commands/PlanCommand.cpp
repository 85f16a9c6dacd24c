// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/commands/PlanCommand.h"

#include "ui/document/Document.h"

namespace cleave::ui {

PlanCommand::PlanCommand(Document *document, const QString &text)
    : m_document(document)
{
    setText(text);
}

void PlanCommand::redo()
{
    if (m_performed) {
        m_document->applyEdit(m_edit);
        return;
    }
    m_performed = true;
    m_edit = m_document->runEdit([this](cleave::PartitionPlan &plan) { return perform(plan); });
    if (m_edit.isEmpty())
        setObsolete(true);
}

void PlanCommand::undo()
{
    m_document->revertEdit(m_edit);
}

} // namespace cleave::ui
