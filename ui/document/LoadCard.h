// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QObject>

class QTimer;
class QWidget;

namespace cleave::ui {

class LayoutOverlay;
class ProjectSession;

/// The card shown over the window while a ProjectSession imports a model: the phase, a
/// progress bar and Cancel. It appears only when an import takes a moment (150 ms), so small
/// models open without a flash.
class LoadCard : public QObject
{
    Q_OBJECT

public:
    LoadCard(ProjectSession *session, QWidget *over, QObject *parent = nullptr);

    /// The card itself (named "loadCard").
    [[nodiscard]] LayoutOverlay *overlay() const { return m_card; }

private:
    ProjectSession *m_session;
    LayoutOverlay *m_card;
    QTimer *m_delay;
};

} // namespace cleave::ui
