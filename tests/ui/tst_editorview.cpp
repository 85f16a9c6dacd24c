// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// What the user sees is right (issue 17), driven with real mouse and key events: the cut
// preview starts at the press point, one colour per partition everywhere (both levels, the
// Partitions dock, after undo and after a save and reopen), undo rolls back the partition
// names, the Summary counts the fused blocks the canvas shows, F fits big graphs from anywhere
// in the window, the opening view shows the inputs, the minimap can be hidden, Retry after
// Cancel on the layout card, broken files named for what they are without an unsaved-changes
// question, and `cleave --help` without a display.
#include "core/partition/PlanFile.h"
#include "ui/MainWindow.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/canvas/view/Minimap.h"
#include "ui/docks/PartitionsDock.h"
#include "ui/docks/SummaryDock.h"
#include "ui/document/Document.h"
#include "ui/models/PartitionListModel.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QGraphicsPathItem>
#include <QGraphicsView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <map>

using namespace cleave::ui;
using cleave::NodeId;

namespace {

const QString resnet = QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay"));

// Answers every message box shown while it lives by clicking the button whose text contains
// `button`, and records each box's text.
class MessageBoxes : public QObject
{
public:
    explicit MessageBoxes(QString button)
        : m_button(std::move(button))
    {
        auto *timer = new QTimer(this);
        connect(timer, &QTimer::timeout, this, [this] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box || box->property("answered").toBool())
                return;
            box->setProperty("answered", true);
            m_texts.append(box->text());
            for (QAbstractButton *b : box->buttons()) {
                if (b->text().remove(QLatin1Char('&')).contains(m_button)) {
                    b->click();
                    return;
                }
            }
            box->reject();
        });
        timer->start(10);
    }
    [[nodiscard]] const QStringList &texts() const { return m_texts; }

private:
    QString m_button;
    QStringList m_texts;
};

NodeId key(const MainWindow &w, const char *name)
{
    const NodeId id = w.document()->graph()->findByKey(name);
    if (!id.isValid())
        qFatal("no node %s", name);
    return id;
}

QStringList partitionNames(const MainWindow &w)
{
    QStringList names;
    for (const cleave::Partition &p : w.document()->plan()->partitions())
        names.append(QString::fromStdString(p.name));
    return names;
}

// The colour of each partition as the Partitions dock shows it, by name.
std::map<QString, QColor> dockColours(const MainWindow &w)
{
    std::map<QString, QColor> colours;
    const PartitionListModel *model = w.partitionsDock()->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row, PartitionListModel::NameColumn);
        colours[index.data().toString()] = index.data(Qt::DecorationRole).value<QColor>();
    }
    return colours;
}

// The colour of each partition region on the canvas, by the name on its label.
std::map<QString, QColor> canvasColours(const MainWindow &w)
{
    std::map<QString, QColor> colours;
    for (QGraphicsItem *item : w.canvas()->view()->scene()->items()) {
        if (auto *region = qgraphicsitem_cast<PartitionRegionItem *>(item))
            colours[region->name()] = region->colour();
    }
    return colours;
}

// A Relay chain of `n` relus: a graph far taller than any window.
QByteArray reluChain(int n)
{
    QByteArray text = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 8), float32]) {\n"
                      "  %0 = nn.relu(%x);\n";
    for (int i = 1; i < n; ++i)
        text += "  %" + QByteArray::number(i) + " = nn.relu(%" + QByteArray::number(i - 1) + ");\n";
    text += "  %" + QByteArray::number(n - 1) + "\n}\n";
    return text;
}

void writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
}

} // namespace

class TestEditorView : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cutPreviewStartsAtPress();
    void oneColourPerPartition();
    void undoRollsBackNames();
    void summaryCountsFusedBlocks();
    void fitShowsBigGraphFromAnywhere();
    void openingViewShowsInputs();
    void minimapCanBeHidden();
    void retryAfterCancel();
    void brokenFilesNamedForWhatTheyAre();
    void helpWithoutDisplay();

private:
    void openAndWait(MainWindow &w, const QString &path);
    void strokeAcross(MainWindow &w, NodeId from, NodeId to);
};

void TestEditorView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_editorview"));
}

void TestEditorView::init()
{
    QSettings().clear();
    QDir(QStandardPaths::writableLocation(QStandardPaths::CacheLocation)).removeRecursively();
}

void TestEditorView::openAndWait(MainWindow &w, const QString &path)
{
    w.resize(1400, 900);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QVERIFY(w.openFile(path));
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 60000);
}

void TestEditorView::strokeAcross(MainWindow &w, NodeId from, NodeId to)
{
    CanvasWidget *canvas = w.canvas();
    canvas->centerOnNode(to);
    QWidget *viewport = canvas->view()->viewport();
    const QPoint at = canvas->viewportPosOfEdge({ from, 0 }, to);
    QVERIFY(!at.isNull());
    QTest::mousePress(viewport, Qt::LeftButton, {}, at - QPoint(14, 3));
    QTest::mouseMove(viewport, at);
    QTest::mouseMove(viewport, at + QPoint(14, 3));
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, at + QPoint(14, 3));
}

void TestEditorView::cutPreviewStartsAtPress()
{
    MainWindow w;
    openAndWait(w, resnet);
    QTest::keyClick(&w, Qt::Key_C);
    QGraphicsView *view = w.canvas()->view();
    QWidget *viewport = view->viewport();
    const QPoint press(200, 150);
    const QPoint move(260, 190);
    QTest::mousePress(viewport, Qt::LeftButton, {}, press);
    QTest::mouseMove(viewport, move);
    QGraphicsPathItem *stroke = nullptr;
    for (QGraphicsItem *item : view->scene()->items()) {
        if (item->type() == QGraphicsPathItem::Type && item->zValue() == 100)
            stroke = static_cast<QGraphicsPathItem *>(item);
    }
    QVERIFY(stroke);
    // Exactly one segment, from the press point to the pointer: nothing from the scene origin.
    const QPainterPath path = stroke->path();
    QCOMPARE(path.elementCount(), 2);
    QCOMPARE(QPointF(path.elementAt(0)), view->mapToScene(press));
    QCOMPARE(QPointF(path.elementAt(1)), view->mapToScene(move));
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, move);
}

void TestEditorView::oneColourPerPartition()
{
    QTemporaryDir dir;
    MainWindow w;
    openAndWait(w, resnet);
    // Three stages (cut after %13, then after %12), then merge the last two into stage2: the
    // partitions left are stage0 and stage2, so their ids leave a gap.
    QTest::keyClick(&w, Qt::Key_C);
    strokeAcross(w, key(w, "%13"), key(w, "%14"));
    strokeAcross(w, key(w, "%12"), key(w, "%13"));
    QCOMPARE(partitionNames(w),
             (QStringList { QStringLiteral("stage0"), QStringLiteral("stage2"),
                            QStringLiteral("stage1") }));
    QTest::keyClick(&w, Qt::Key_V);
    w.canvas()->selectNodes({ key(w, "%13"), key(w, "%14") });
    QTest::keyClick(&w, Qt::Key_M);
    QCOMPARE(partitionNames(w),
             (QStringList { QStringLiteral("stage0"), QStringLiteral("stage2") }));
    const std::map<QString, QColor> colours = dockColours(w);
    QCOMPARE(colours.size(), std::size_t(2));
    QVERIFY(colours.at(QStringLiteral("stage0")) != colours.at(QStringLiteral("stage2")));
    QCOMPARE(canvasColours(w), colours);

    // The same colours at the Fused Blocks level.
    QTest::keyClick(&w, Qt::Key_2, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 60000);
    QCOMPARE(canvasColours(w), colours);
    QTest::keyClick(&w, Qt::Key_1, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 60000);

    // Undo and redo the merge: the colours come back as they were.
    const std::map<QString, QColor> threeColours = [&] {
        QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
        return dockColours(w);
    }();
    QCOMPARE(threeColours.size(), std::size_t(3));
    QCOMPARE(threeColours.at(QStringLiteral("stage2")), colours.at(QStringLiteral("stage2")));
    QCOMPARE(canvasColours(w), threeColours);
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(dockColours(w), colours);

    // Saved and reopened: the same colours in the dock and on the canvas.
    const QString project = dir.filePath(QStringLiteral("colours.cleave"));
    QVERIFY(w.saveProject(project));
    MainWindow again;
    openAndWait(again, project);
    QCOMPARE(dockColours(again), colours);
    QCOMPARE(canvasColours(again), colours);
}

void TestEditorView::undoRollsBackNames()
{
    MainWindow w;
    openAndWait(w, resnet);
    QTest::keyClick(&w, Qt::Key_C);
    strokeAcross(w, key(w, "%13"), key(w, "%14"));
    const QStringList cut { QStringLiteral("stage0"), QStringLiteral("stage1") };
    QCOMPARE(partitionNames(w), cut);
    const std::map<QString, QColor> colours = dockColours(w);
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(partitionNames(w), QStringList { QStringLiteral("stage0") });
    strokeAcross(w, key(w, "%13"), key(w, "%14"));
    QCOMPARE(partitionNames(w), cut);
    QCOMPARE(dockColours(w), colours);
}

void TestEditorView::summaryCountsFusedBlocks()
{
    MainWindow w;
    openAndWait(w, resnet);
    const QString facts = w.findChild<QLabel *>(QStringLiteral("summaryFacts"))->text();
    // ResNet-18 has no fused functions of its own; FuseOps makes 62 blocks of it, as the
    // Fused Blocks level shows.
    QVERIFY2(facts.contains(QStringLiteral("\nFused blocks: 62\n")), qPrintable(facts));
    QTest::keyClick(&w, Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(w.blockGraph()->kernelCount(), std::size_t(62));
}

void TestEditorView::fitShowsBigGraphFromAnywhere()
{
    QTemporaryDir dir;
    const QString chain = dir.filePath(QStringLiteral("chain.relay"));
    writeFile(chain, reluChain(1200));
    MainWindow w;
    openAndWait(w, chain);
    auto *fit = w.findChild<QAction *>(QStringLiteral("fitAction"));
    QVERIFY(fit);
    // View ▸ Fit to Window shows its shortcut.
    QCOMPARE(fit->shortcut(), QKeySequence(Qt::Key_F));
    QGraphicsView *view = w.canvas()->view();
    // What is drawn: every item that paints (the plan's layer items, as large as the scene,
    // paint nothing themselves; their regions, names and badges count).
    QRectF drawing;
    for (const QGraphicsItem *item : view->scene()->items())
        if (!(item->flags() & QGraphicsItem::ItemHasNoContents))
            drawing = drawing.united(item->sceneBoundingRect());

    // F typed in the Partitions dock (not the canvas) fits the whole chain: below 1 % zoom.
    QTableView *table = w.partitionsDock()->findChild<QTableView *>();
    table->setFocus();
    QTest::keyClick(table, Qt::Key_F);
    QVERIFY2(view->transform().m11() < 0.01, qPrintable(QString::number(view->transform().m11())));
    // Whole, up to the one pixel that scrolling in whole pixels can shift the view by.
    const qreal pixel = 1.0 / view->transform().m11();
    const QRectF shown = view->mapToScene(view->viewport()->rect())
                             .boundingRect()
                             .adjusted(-pixel, -pixel, pixel, pixel);
    QVERIFY2(shown.contains(drawing),
             qPrintable(QStringLiteral("shown %1,%2 %3x%4, drawing %5,%6 %7x%8")
                            .arg(shown.x())
                            .arg(shown.y())
                            .arg(shown.width())
                            .arg(shown.height())
                            .arg(drawing.x())
                            .arg(drawing.y())
                            .arg(drawing.width())
                            .arg(drawing.height())));

    // After a menu closes, F still fits instead of opening the File menu.
    view->setTransform(QTransform::fromScale(1, 1));
    QMenuBar *bar = w.menuBar();
    QAction *fileMenu = bar->actions().constFirst();
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->actionGeometry(fileMenu).center());
    QTRY_VERIFY(QApplication::activePopupWidget() != nullptr);
    QTest::keyClick(QApplication::activePopupWidget(), Qt::Key_Escape);
    QTRY_VERIFY(QApplication::activePopupWidget() == nullptr);
    QTest::keyClick(bar, Qt::Key_F);
    QVERIFY(QApplication::activePopupWidget() == nullptr);
    QVERIFY(view->transform().m11() < 0.01);
}

void TestEditorView::openingViewShowsInputs()
{
    MainWindow w;
    openAndWait(w, resnet);
    QGraphicsView *view = w.canvas()->view();
    const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect();
    const QPoint input = w.canvas()->viewportPosOfNode(key(w, "%data"));
    QVERIFY(!input.isNull());
    QVERIFY2(view->viewport()->rect().contains(input),
             qPrintable(QStringLiteral("input at %1,%2").arg(input.x()).arg(input.y())));
    QVERIFY(visible.height() > 0);
}

void TestEditorView::minimapCanBeHidden()
{
    {
        MainWindow w;
        openAndWait(w, resnet);
        auto *minimap = w.canvas()->findChild<Minimap *>();
        QVERIFY(minimap && minimap->isVisible());
        // View ▸ Show Minimap, clicked in the open menu.
        QMenuBar *bar = w.menuBar();
        QAction *viewMenu = nullptr;
        for (QAction *a : bar->actions()) {
            if (a->text().remove(QLatin1Char('&')) == QStringLiteral("View"))
                viewMenu = a;
        }
        QVERIFY(viewMenu);
        QTest::mouseClick(bar, Qt::LeftButton, {}, bar->actionGeometry(viewMenu).center());
        QTRY_VERIFY(QApplication::activePopupWidget() != nullptr);
        auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
        QVERIFY(menu);
        auto *toggle = w.findChild<QAction *>(QStringLiteral("minimapAction"));
        QVERIFY(toggle && toggle->isChecked());
        QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(toggle).center());
        QVERIFY(!toggle->isChecked());
        QVERIFY(!minimap->isVisible());
    }
    // Remembered: the next window starts without it.
    MainWindow w;
    openAndWait(w, resnet);
    QVERIFY(!w.findChild<QAction *>(QStringLiteral("minimapAction"))->isChecked());
    QVERIFY(!w.canvas()->findChild<Minimap *>()->isVisible());
}

void TestEditorView::retryAfterCancel()
{
    QTemporaryDir dir;
    const QString chain = dir.filePath(QStringLiteral("chain.relay"));
    writeFile(chain, reluChain(600));
    MainWindow w;
    w.canvas()->setCacheDirectory({});
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openFile(chain));
    // The layout runs on a worker thread: cancel it as the card's Cancel does.
    QVERIFY(!w.canvas()->isLayoutReady());
    w.canvas()->cancelLayout();
    auto *retry = w.canvas()->findChild<QPushButton *>(QStringLiteral("layoutRetry"));
    QVERIFY(retry);
    QTRY_VERIFY(retry->isVisible());
    QVERIFY(!w.canvas()->findChild<QPushButton *>(QStringLiteral("layoutCancel"))->isVisible());
    QVERIFY(!w.canvas()->isLayoutReady());
    QTest::mouseClick(retry, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(w.canvas()->isLayoutReady(), 60000);
    QVERIFY(!retry->isVisible());
    QCOMPARE(w.canvas()->viewportPosOfNode(key(w, "%0")).isNull(), false);
}

void TestEditorView::brokenFilesNamedForWhatTheyAre()
{
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("model.onnx"));
    writeFile(png, QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
    const QString empty = dir.filePath(QStringLiteral("empty.relay"));
    writeFile(empty, {});
    MainWindow w;
    openAndWait(w, resnet);
    // Unsaved edits: a broken file is reported without asking about them (nothing to switch to).
    w.canvas()->selectNodes({ key(w, "%5") });
    QTest::keyClick(&w, Qt::Key_P);
    QVERIFY(w.document()->isModified());
    {
        MessageBoxes boxes(QStringLiteral("OK"));
        QVERIFY(!w.openFile(png));
        QCOMPARE(boxes.texts().size(), 1);
        QVERIFY2(boxes.texts().constFirst().contains(
                     png + QStringLiteral(":1:1: error: this is a PNG image")),
                 qPrintable(boxes.texts().constFirst()));
    }
    {
        MessageBoxes boxes(QStringLiteral("OK"));
        QVERIFY(!w.openFile(empty));
        QCOMPARE(boxes.texts().size(), 1);
        QVERIFY2(boxes.texts().constFirst().contains(
                     empty + QStringLiteral(":1:1: error: the file is empty")),
                 qPrintable(boxes.texts().constFirst()));
    }
    QVERIFY(w.document()->isModified());
    QCOMPARE(w.document()->filePath(), resnet);
}

void TestEditorView::helpWithoutDisplay()
{
    for (const QString &option : { QStringLiteral("--help"), QStringLiteral("--version") }) {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(CLEAVE_EDITOR_PATH), { option });
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        if (option == QStringLiteral("--help")) {
            QVERIFY2(out.contains(QStringLiteral("Usage: ")), qPrintable(out));
            QVERIFY2(out.contains(QStringLiteral("[MODEL|PROJECT]")), qPrintable(out));
        } else {
            QCOMPARE(out.trimmed(), QStringLiteral("Cleave " CLEAVE_VERSION));
        }
    }
}

QTEST_MAIN(TestEditorView)
#include "tst_editorview.moc"
