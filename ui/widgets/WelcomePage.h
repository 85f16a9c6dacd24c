// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QStringList>
#include <QWidget>

#include <array>

class QAction;
class QFrame;
class QLabel;
class QVBoxLayout;

namespace cleave::ui {

/// What an empty editor window shows: how to open a model (File ▸ Open…, drop, the formats) and,
/// until the user dismisses it, a first-run card: one button per sample model that ships with
/// Cleave, and the three gestures (cut, select, export) with their keys. Dismissing the card
/// is remembered (QSettings), so it does not come back.
class WelcomePage : public QWidget
{
    Q_OBJECT

public:
    /// `formats`: the importers' format names, in probing order.
    explicit WelcomePage(const QStringList &formats, QWidget *parent = nullptr);

    /// Names the keys of the gestures from the editor's own actions (their shortcuts).
    void setGestureActions(const QAction *cut, const QAction *select, const QAction *exportAction);

    /// The first-run card (hidden once dismissed).
    [[nodiscard]] QFrame *card() const { return m_card; }
    /// The gesture lines as shown ("Cut: C, then drag a stroke across…"), plain text.
    [[nodiscard]] QStringList gestureTexts() const;
    /// True once the user closed the card (remembered across runs).
    [[nodiscard]] static bool isCardDismissed();

    /// The sample models that ship with Cleave, sorted by name: the installed ones
    /// (`<prefix>/share/cleave/samples`, next to `bin/`, or in the XDG data folders), else the
    /// source tree's `samples/` of a build that was not installed.
    [[nodiscard]] static QStringList sampleFiles();

signals:
    /// A sample button was clicked.
    void openRequested(const QString &path);

private:
    void dismiss();

    QFrame *m_card;
    std::array<QLabel *, 3> m_gestures {}; // cut, select, export
};

} // namespace cleave::ui
