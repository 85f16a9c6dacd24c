// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Help and habits: `?` opens Help ▸ Keyboard Shortcuts, which lists the real actions' keys and
// filters as the user types; every toolbar button has a tooltip naming its key.
#include "ui/MainWindow.h"
#include "ui/dialogs/ShortcutsDialog.h"
#include "ui/document/Document.h"
#include "ui/widgets/WelcomePage.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QToolBar>
#include <QToolButton>
#include <QTreeWidget>

using cleave::ui::MainWindow;
using cleave::ui::ShortcutsDialog;
using cleave::ui::WelcomePage;

namespace {

/// The row of the shortcut list whose action is `name`, or null.
QTreeWidgetItem *rowNamed(const QTreeWidget *list, const QString &name)
{
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        if (list->topLevelItem(i)->text(0) == name)
            return list->topLevelItem(i);
    }
    return nullptr;
}

QString native(const QKeySequence &keys)
{
    return keys.toString(QKeySequence::NativeText);
}

/// Shows `window`, presses ? on it and returns the shortcut list it opens (nullptr when the
/// window did not become active or no list opened).
ShortcutsDialog *openShortcuts(MainWindow &window)
{
    window.show();
    if (!QTest::qWaitForWindowActive(&window))
        return nullptr;
    QTest::keyClick(&window, Qt::Key_Question);
    return window.findChild<ShortcutsDialog *>();
}

} // namespace

class TestHelp : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void questionMarkOpensTheShortcutList();
    void searchFiltersTheList();
    void everyToolbarButtonHasATooltip();
    void gesturesAreListed();
    void menusReachEditsBalanceAndSamples();
};

void TestHelp::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_help"));
    QSettings().clear();
}

void TestHelp::questionMarkOpensTheShortcutList()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(window.findChild<ShortcutsDialog *>() == nullptr);
    QTest::keyClick(&window, Qt::Key_Question);
    auto *dialog = window.findChild<ShortcutsDialog *>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    const QTreeWidget *list = dialog->list();
    // The standard keys of File, as the platform spells them, and the window's own ones.
    const struct
    {
        const char *action;
        QKeySequence keys;
        const char *menu;
    } expected[] = {
        { "Open", QKeySequence(QKeySequence::Open), "File" },
        { "Save Project", QKeySequence(QKeySequence::Save), "File" },
        { "Export", QKeySequence(Qt::CTRL | Qt::Key_E), "File" },
        // Quit falls back to Ctrl+Q where the platform binds nothing (offscreen binds nothing).
        { "Quit",
          QKeySequence::keyBindings(QKeySequence::Quit).isEmpty()
              ? QKeySequence(Qt::CTRL | Qt::Key_Q)
              : QKeySequence(QKeySequence::Quit),
          "File" },
    };
    for (const auto &e : expected) {
        const QTreeWidgetItem *row = rowNamed(list, QLatin1String(e.action));
        QVERIFY2(row, e.action);
        QVERIFY2(row->text(1).contains(native(e.keys)), qPrintable(row->text(1)));
        QCOMPARE(row->text(2), QLatin1String(e.menu));
    }
    const QTreeWidgetItem *help = rowNamed(list, QStringLiteral("Keyboard Shortcuts"));
    QVERIFY(help);
    QVERIFY(help->text(1).startsWith(QStringLiteral("?")));
    // Every row has keys; no action is listed twice.
    QStringList names;
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        QVERIFY(!list->topLevelItem(i)->text(1).isEmpty());
        names << list->topLevelItem(i)->text(2) + QLatin1Char('/') + list->topLevelItem(i)->text(0);
    }
    QCOMPARE(names.removeDuplicates(), 0);
    // Escape closes it (and, as it deletes itself on close, it goes away).
    const QPointer<ShortcutsDialog> guard(dialog);
    QTest::keyClick(dialog, Qt::Key_Escape);
    QTRY_VERIFY(guard.isNull());
}

void TestHelp::searchFiltersTheList()
{
    MainWindow window;
    ShortcutsDialog *dialog = openShortcuts(window);
    QVERIFY(dialog);
    const int all = dialog->visibleRowCount();
    QVERIFY(all >= 5);
    QTest::keyClicks(dialog->searchField(), QStringLiteral("export"));
    QCOMPARE(dialog->visibleRowCount(), 1);
    QVERIFY(!rowNamed(dialog->list(), QStringLiteral("Export"))->isHidden());
    // Searching by key: Ctrl+E is Export's.
    dialog->searchField()->clear();
    QCOMPARE(dialog->visibleRowCount(), all);
    QTest::keyClicks(dialog->searchField(), native(QKeySequence(Qt::CTRL | Qt::Key_E)));
    QVERIFY(!rowNamed(dialog->list(), QStringLiteral("Export"))->isHidden());
    QVERIFY(rowNamed(dialog->list(), QStringLiteral("Open"))->isHidden());
    dialog->close();
}

void TestHelp::everyToolbarButtonHasATooltip()
{
    MainWindow window;
    window.show();
    auto *toolbar = window.findChild<QToolBar *>(QStringLiteral("toolsToolBar"));
    QVERIFY(toolbar);
    int buttons = 0;
    for (QAction *action : toolbar->actions()) {
        if (action->isSeparator())
            continue;
        QWidget *widget = toolbar->widgetForAction(action);
        QVERIFY(widget);
        auto *button = qobject_cast<QToolButton *>(widget);
        if (!button) {
            // A widget of its own (the function chooser): it explains itself too.
            QVERIFY2(!widget->toolTip().trimmed().isEmpty(), qPrintable(widget->objectName()));
            continue;
        }
        ++buttons;
        QVERIFY2(!button->toolTip().trimmed().isEmpty(), qPrintable(action->text()));
        const QString key = native(action->shortcut());
        if (!key.isEmpty())
            QVERIFY2(button->toolTip().contains(key), qPrintable(button->toolTip()));
    }
    QVERIFY(buttons >= 10);
}

// Issue 32 (low): the canvas' mouse and touch gestures are in the shortcut list, and the
// search finds them.
void TestHelp::gesturesAreListed()
{
    MainWindow window;
    ShortcutsDialog *dialog = openShortcuts(window);
    QVERIFY(dialog);
    int gestures = 0;
    for (int i = 0; i < dialog->list()->topLevelItemCount(); ++i)
        gestures += dialog->list()->topLevelItem(i)->text(2) == QStringLiteral("Canvas gesture");
    QCOMPARE(gestures, 6);
    const QTreeWidgetItem *pan = rowNamed(dialog->list(), QStringLiteral("Pan"));
    QVERIFY(pan);
    QCOMPARE(pan->text(1), QStringLiteral("Wheel, middle-button drag, Space+drag"));
    QTest::keyClicks(dialog->searchField(), QStringLiteral("pinch"));
    QCOMPARE(dialog->visibleRowCount(), 1);
    QVERIFY(!rowNamed(dialog->list(), QStringLiteral("Zoom in / out"))->isHidden());
    dialog->close();
}

namespace {

QMenu *menuTitled(const QMenuBar *bar, const QString &title)
{
    for (QAction *top : bar->actions()) {
        if (top->text().remove(u'&') == title)
            return top->menu();
    }
    return nullptr;
}

} // namespace

// Issue 32 (low): the Partition menu holds the plan edits, View toggles the Balance dock, and
// Help ▸ Open Sample opens the samples of the first-run card once that card is closed.
void TestHelp::menusReachEditsBalanceAndSamples()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QMenu *partition = menuTitled(window.menuBar(), QStringLiteral("Partition"));
    QVERIFY(partition);
    QStringList names;
    for (QAction *a : partition->actions())
        names << a->objectName();
    for (const char *edit :
         { "autoPartitionAction", "newPartitionAction", "isolateAction", "mergeAction",
           "setTargetAction", "removeCutAction", "convexClosureAction" })
        QVERIFY2(names.contains(QLatin1String(edit)), edit);

    QMenu *view = menuTitled(window.menuBar(), QStringLiteral("View"));
    QVERIFY(view);
    auto *balance = window.findChild<QDockWidget *>(QStringLiteral("balanceDock"));
    QVERIFY(balance);
    QVERIFY(view->actions().contains(balance->toggleViewAction()));

    QMenu *help = menuTitled(window.menuBar(), QStringLiteral("Help"));
    QVERIFY(help);
    auto *samples = help->findChild<QMenu *>(QStringLiteral("samplesMenu"));
    QVERIFY(samples);
    const QStringList files = WelcomePage::sampleFiles();
    QVERIFY(files.size() >= 5); // the repository's samples/
    QCOMPARE(samples->actions().size(), files.size());
    QAction *resnet = samples->findChild<QAction *>(QStringLiteral("sample:resnet18.relay"));
    QVERIFY(resnet);
    resnet->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.document()->graph() != nullptr, 20000);
    QVERIFY(window.document()->filePath().endsWith(QStringLiteral("resnet18.relay")));
}

QTEST_MAIN(TestHelp)
#include "tst_help.moc"
