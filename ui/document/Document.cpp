// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/document/Document.h"

#include "core/io/Importer.h"

#include <QFileInfo>
#include <QStringList>

#include <utility>

namespace cleave::ui {

Document::Document(QObject *parent)
    : QObject(parent)
{
}

Document::~Document() = default;

bool Document::open(const QString &path, QString *error)
{
    cleave::ImportResult result = cleave::importFile(path.toStdString());
    if (!result.ok()) {
        if (error) {
            // A dialog stays readable with the first few errors; the rest are counted.
            constexpr qsizetype shownErrors = 10;
            QStringList lines;
            qsizetype errors = 0;
            for (const cleave::Diagnostic &d : result.diagnostics) {
                if (d.severity == cleave::Severity::Error && errors++ < shownErrors)
                    lines.append(QString::fromStdString(d.toString()));
            }
            if (errors > shownErrors)
                lines.append(tr("(%1 more errors)").arg(errors - shownErrors));
            if (lines.isEmpty())
                lines.append(tr("%1: error: the model could not be read").arg(path));
            *error = lines.join(QLatin1Char('\n'));
        }
        return false;
    }
    setGraph(std::move(result.graph), path);
    return true;
}

void Document::setGraph(std::unique_ptr<cleave::Graph> graph, const QString &path)
{
    // Keep the old graph alive until every listener has moved to the new one.
    std::unique_ptr<cleave::Graph> previous = std::exchange(m_graph, std::move(graph));
    m_filePath = path;
    m_summary = m_graph ? cleave::ModelSummary::compute(*m_graph) : cleave::ModelSummary {};
    m_undoStack.clear();
    emit graphChanged();
}

QString Document::fileName() const
{
    return m_filePath.isEmpty() ? QString() : QFileInfo(m_filePath).fileName();
}

} // namespace cleave::ui
