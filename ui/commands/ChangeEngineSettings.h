// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/partition/PartitionPlan.h"
#include "core/session/EngineSettings.h"

#include <QUndoCommand>

namespace cleave::ui {

class Document;

/// Replaces the document's engine settings (an op-support list loaded or unloaded, a latency
/// table, fusion options, an input marked as a parameter, lifted constants) as one undo step:
/// the document re-validates, and re-fuses when the fusion options changed. Keeps both
/// settings by value (their tables are shared).
class ChangeEngineSettings : public QUndoCommand
{
public:
    ChangeEngineSettings(Document *document, EngineSettings after, const QString &text);

    void redo() override;
    void undo() override;

private:
    Document *m_document;
    EngineSettings m_before;
    EngineSettings m_after;
};

/// Partitions another function of the module (a Relax module's `decode` instead of `main`):
/// the plan becomes a fresh one-partition plan over that function. Undo restores the previous
/// plan as it was.
class ChooseFunction : public QUndoCommand
{
public:
    ChooseFunction(Document *document, cleave::FunctionId function);

    void redo() override;
    void undo() override;

private:
    Document *m_document;
    cleave::PartitionPlan m_before;
    cleave::PartitionPlan m_after;
};

} // namespace cleave::ui
