// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/widgets/ThemeMenu.h"

#include <QActionGroup>
#include <QApplication>
#include <QSettings>
#include <QStyle>

namespace cleave::ui {

namespace {

const QString themeKey = QStringLiteral("view/theme");

QString themeName(ThemeMenu::Theme theme)
{
    switch (theme) {
    case ThemeMenu::Theme::Light:
        return QStringLiteral("light");
    case ThemeMenu::Theme::Dark:
        return QStringLiteral("dark");
    case ThemeMenu::Theme::System:
        break;
    }
    return QStringLiteral("system");
}

ThemeMenu::Theme themeNamed(const QString &name)
{
    if (name == QLatin1String("light"))
        return ThemeMenu::Theme::Light;
    if (name == QLatin1String("dark"))
        return ThemeMenu::Theme::Dark;
    return ThemeMenu::Theme::System;
}

} // namespace

ThemeMenu::ThemeMenu(QWidget *parent)
    : QMenu(tr("&Theme"), parent)
{
    setObjectName(QStringLiteral("themeMenu"));
    systemPalette(); // taken before this menu changes the application's palette
    auto *group = new QActionGroup(this);
    m_system = addAction(tr("&System"));
    m_light = addAction(tr("&Light"));
    m_dark = addAction(tr("&Dark"));
    m_system->setToolTip(tr("Follow the desktop's colours"));
    for (QAction *a : { m_system, m_light, m_dark }) {
        a->setCheckable(true);
        group->addAction(a);
    }
    m_system->setObjectName(QStringLiteral("themeSystemAction"));
    m_light->setObjectName(QStringLiteral("themeLightAction"));
    m_dark->setObjectName(QStringLiteral("themeDarkAction"));
    connect(m_system, &QAction::triggered, this, [this] { setTheme(Theme::System); });
    connect(m_light, &QAction::triggered, this, [this] { setTheme(Theme::Light); });
    connect(m_dark, &QAction::triggered, this, [this] { setTheme(Theme::Dark); });
    const Theme saved = themeNamed(QSettings().value(themeKey).toString());
    action(saved)->setChecked(true);
    m_theme = saved;
    if (saved != Theme::System || QApplication::palette() != systemPalette())
        QApplication::setPalette(saved == Theme::Dark        ? darkPalette()
                                     : saved == Theme::Light ? lightPalette()
                                                             : systemPalette());
}

QAction *ThemeMenu::action(Theme theme) const
{
    switch (theme) {
    case Theme::Light:
        return m_light;
    case Theme::Dark:
        return m_dark;
    case Theme::System:
        break;
    }
    return m_system;
}

void ThemeMenu::setTheme(Theme theme)
{
    m_theme = theme;
    action(theme)->setChecked(true);
    QSettings().setValue(themeKey, themeName(theme));
    QApplication::setPalette(theme == Theme::Dark        ? darkPalette()
                                 : theme == Theme::Light ? lightPalette()
                                                         : systemPalette());
}

QPalette ThemeMenu::systemPalette()
{
    static const QPalette palette = QApplication::palette();
    return palette;
}

QPalette ThemeMenu::lightPalette()
{
    return QApplication::style()->standardPalette();
}

QPalette ThemeMenu::darkPalette()
{
    QPalette p;
    const QColor window(0x25, 0x28, 0x2d);
    const QColor base(0x1b, 0x1e, 0x22);
    const QColor text(0xe6, 0xe9, 0xed);
    const QColor disabled(0x7f, 0x86, 0x8f);
    const QColor accent(0x3d, 0x8b, 0xf2);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x22, 0x26, 0x2b));
    p.setColor(QPalette::ToolTipBase, QColor(0x30, 0x34, 0x3a));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x3a, 0x3f, 0x46));
    p.setColor(QPalette::Midlight, QColor(0x30, 0x34, 0x3a));
    p.setColor(QPalette::Mid, QColor(0x1f, 0x22, 0x26));
    p.setColor(QPalette::Dark, QColor(0x14, 0x16, 0x19));
    p.setColor(QPalette::Shadow, QColor(0x0a, 0x0b, 0x0c));
    p.setColor(QPalette::Highlight, accent);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6a, 0xa8, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb0, 0x8c, 0xf5));
    for (QPalette::ColorRole role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x3a, 0x3f, 0x46));
    return p;
}

} // namespace cleave::ui
