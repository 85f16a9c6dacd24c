// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/commands/ChangeEngineSettings.h"

#include "ui/document/Document.h"

#include <QCoreApplication>

namespace cleave::ui {

ChangeEngineSettings::ChangeEngineSettings(Document *document, EngineSettings after,
                                           const QString &text)
    : QUndoCommand(text)
    , m_document(document)
    , m_before(document->settings())
    , m_after(std::move(after))
{
}

void ChangeEngineSettings::redo()
{
    m_document->setSettings(m_after);
}

void ChangeEngineSettings::undo()
{
    m_document->setSettings(m_before);
}

ChooseFunction::ChooseFunction(Document *document, cleave::FunctionId function)
    : QUndoCommand(QCoreApplication::translate("ChooseFunction", "Partition function %1")
                       .arg(QString::fromStdString(document->graph()->function(function).name)))
    , m_document(document)
    , m_before(*document->plan())
    , m_after(*document->graph(), function)
{
}

void ChooseFunction::redo()
{
    m_document->replacePlan(m_after);
}

void ChooseFunction::undo()
{
    m_document->replacePlan(m_before);
}

} // namespace cleave::ui
