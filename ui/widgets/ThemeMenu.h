// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QMenu>
#include <QPalette>

class QAction;

namespace cleave::ui {

/// View ▸ Theme: System (the platform's palette, the default), Light or Dark. Sets the
/// application palette; the canvas follows any palette change (CanvasWidget picks its light or
/// dark colours from it). The choice is saved (QSettings) and applied again at start-up.
class ThemeMenu : public QMenu
{
    Q_OBJECT

public:
    enum class Theme { System, Light, Dark };

    explicit ThemeMenu(QWidget *parent = nullptr);

    [[nodiscard]] Theme theme() const { return m_theme; }
    /// Applies and saves `theme`.
    void setTheme(Theme theme);
    [[nodiscard]] QAction *action(Theme theme) const;

    /// The palette the platform gave the application before any theme was applied.
    static QPalette systemPalette();
    /// Cleave's light and dark palettes.
    static QPalette lightPalette();
    static QPalette darkPalette();

private:
    Theme m_theme = Theme::System;
    QAction *m_system;
    QAction *m_light;
    QAction *m_dark;
};

} // namespace cleave::ui
