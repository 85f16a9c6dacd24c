// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/partition/PartitionPlan.h"

#include <QString>
#include <QUndoCommand>

namespace cleave::ui {

class Document;

/// The base of every plan-editing command: the first redo() runs the core edit (perform()) and
/// keeps its invertible PlanEdit; later redo()s re-apply that record and undo() reverts it. A
/// refused edit (one that changes nothing) marks the command obsolete, so QUndoStack::push()
/// drops it. Subclasses store ids and values, never read the selection themselves.
class PlanCommand : public QUndoCommand
{
public:
    PlanCommand(Document *document, const QString &text);

    void redo() override;
    void undo() override;

    /// The edit's undo record (empty before the first redo()).
    [[nodiscard]] const cleave::PlanEdit &edit() const { return m_edit; }

protected:
    /// Performs the edit on `plan` and returns its record.
    virtual cleave::PlanEdit perform(cleave::PartitionPlan &plan) = 0;

private:
    Document *m_document;
    cleave::PlanEdit m_edit;
    bool m_performed = false;
};

} // namespace cleave::ui
