// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/formats/FormatRegistry.h"
#include "ui/MainWindow.h"
#include "ui/docks/SummaryDock.h"
#include "ui/document/Document.h"
#include "ui/models/ModelOutlineModel.h"
#include "ui/models/OpHistogramModel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QGuiApplication>
#include <QLabel>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

using cleave::ui::MainWindow;
using cleave::ui::ModelOutlineModel;
using cleave::ui::OpHistogramModel;
using cleave::ui::ProjectSession;

namespace {

const QString byocModel = QDir::cleanPath(QStringLiteral(
    CLEAVE_CORPUS_DIR "/relay/conv-bias-relu_byoc-partitioned_metadata-b64_match.relay.txt"));
const QString squeezenetModel = QDir::cleanPath(
    QStringLiteral(CLEAVE_CORPUS_DIR "/relay/squeezenet_mxnet_let-anf_calyx.relay.txt"));
const QString rnntModel = QDir::cleanPath(
    QStringLiteral(CLEAVE_CORPUS_DIR "/relay/rnnt_unrolled-lstm_24k-nodes_glenside.relay.txt"));

// Closes the next modal message box as soon as it shows and hands back its text.
class MessageBoxCloser : public QObject
{
public:
    explicit MessageBoxCloser(QObject *parent = nullptr)
        : QObject(parent)
    {
        auto *timer = new QTimer(this);
        connect(timer, &QTimer::timeout, this, [this, timer] {
            if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
                m_text = box->text();
                m_icon = box->icon();
                box->accept();
                timer->stop();
            }
        });
        timer->start(10);
    }
    [[nodiscard]] const QString &text() const { return m_text; }
    [[nodiscard]] QMessageBox::Icon icon() const { return m_icon; }

private:
    QString m_text;
    QMessageBox::Icon m_icon = QMessageBox::NoIcon;
};

QString statusText(const MainWindow &window)
{
    QStringList parts;
    for (const char *name :
         { "statusModel", "statusNodes", "statusPartitions", "statusValidation" }) {
        auto *label = window.findChild<QLabel *>(QString::fromLatin1(name));
        if (!label)
            return QStringLiteral("(no %1 label)").arg(QString::fromLatin1(name));
        parts.append(label->text());
    }
    return parts.join(QStringLiteral(" | "));
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void emptyWindow();
    void windowFitsTheScreenWhateverTheModel();
    void openShowsModel();
    void keyboardNavigatesOutline();
    void outlineOffersLargeFunctionsInBatches();
    void histogramSortsByCalls();
    void failedOpenKeepsModel();
    void recentFiles();
    void modelsPassTester();
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
}

void TestMainWindow::init()
{
    QSettings().clear();
}

void TestMainWindow::emptyWindow()
{
    MainWindow window;
    QCOMPARE(window.windowTitle(), QStringLiteral("Cleave"));
    QCOMPARE(window.outlineModel()->rowCount(), 0);
    QCOMPARE(statusText(window), QStringLiteral(" |  |  | "));
    QCOMPARE(window.summaryDock()->windowTitle(), QStringLiteral("Summary"));
    auto *hint = window.findChild<QLabel *>(QStringLiteral("emptyHint"));
    QVERIFY(hint);
    // Every importer of the registry is named, in probing order.
    QStringList formats;
    for (const auto &importer : cleave::importers())
        formats.append(QString::fromStdString(importer->formatName()));
    QVERIFY(formats.contains(QStringLiteral("relay")));
    QVERIFY(formats.contains(QStringLiteral("graph.json")));
    QVERIFY(
        hint->text().endsWith(QStringLiteral("Formats: ") + formats.join(QStringLiteral(", "))));
}

// Issue 32 (low): the first window fits the screen (it opened wider than a 1400-pixel screen,
// the docks' right edge cut off), and a model whose summary has long lines does not widen it:
// the Summary dock wraps them.
void TestMainWindow::windowFitsTheScreenWhateverTheModel()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // 1440 x 900, or 90 % of a smaller screen, as far as the window's own minimum allows
    // (the offscreen test screen is 800 x 800).
    const QSize screen = QGuiApplication::primaryScreen()->availableGeometry().size();
    QCOMPARE(window.size(),
             QSize(1440, 900).boundedTo(screen * 0.9).expandedTo(window.minimumSizeHint()));
    const int width = window.width();
    QTemporaryDir dir;
    const QString longName
        = dir.filePath(QString(160, u'w') + QStringLiteral("_a_model_with_a_very_long_name.relay"));
    QVERIFY(QFile::copy(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay"), longName));
    QVERIFY(window.openFile(longName));
    QTest::qWait(50); // let the layouts settle
    QCOMPARE(window.width(), width);
    auto *facts = window.findChild<QLabel *>(QStringLiteral("summaryFacts"));
    QVERIFY(facts && facts->wordWrap());
}

void TestMainWindow::openShowsModel()
{
    MainWindow window;
    QSignalSpy changed(window.document(), &cleave::ui::Document::graphChanged);
    QVERIFY(window.openFile(byocModel));
    QCOMPARE(changed.count(), 1);

    QCOMPARE(
        window.windowTitle(),
        QStringLiteral("conv-bias-relu_byoc-partitioned_metadata-b64_match.relay.txt[*] — Cleave"));
    QVERIFY(!window.isWindowModified());
    QCOMPARE(statusText(window),
             QStringLiteral("conv-bias-relu_byoc-partitioned_metadata-b64_match.relay.txt | "
                            "1 op · 2 nodes | 1 partition | ✓ valid"));

    // One row per function: @main first, then the BYOC partition and its composite literal.
    const ModelOutlineModel *outline = window.outlineModel();
    QCOMPARE(outline->rowCount(), int(window.document()->graph()->functionCount()));
    QCOMPARE(outline->rowCount(), 3);
    QCOMPARE(outline->index(0, ModelOutlineModel::IdColumn).data().toString(),
             QStringLiteral("@main"));
    QCOMPARE(outline->index(1, ModelOutlineModel::IdColumn).data().toString(),
             QStringLiteral("@tvmgen_default_match_main_0"));
    QVERIFY(outline->index(1, ModelOutlineModel::KindColumn)
                .data()
                .toString()
                .startsWith(QStringLiteral("global function · Compiler=match")));

    // Inside the composite literal: three params, then conv2d → bias_add → relu.
    const QModelIndex composite = outline->index(2, 0);
    QCOMPARE(outline->rowCount(composite), 6);
    QCOMPARE(outline->index(3, ModelOutlineModel::KindColumn, composite).data().toString(),
             QStringLiteral("nn.conv2d"));
    QCOMPARE(outline->index(3, ModelOutlineModel::TypeColumn, composite).data().toString(),
             QStringLiteral("1×1×16×16 int32"));
    QCOMPARE(outline->index(5, ModelOutlineModel::KindColumn, composite).data().toString(),
             QStringLiteral("nn.relu"));
    QCOMPARE(outline->index(0, ModelOutlineModel::KindColumn, composite).data().toString(),
             QStringLiteral("input"));
}

void TestMainWindow::keyboardNavigatesOutline()
{
    MainWindow window;
    QVERIFY(window.openFile(byocModel));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTreeView *tree = window.outlineView();
    const QAbstractItemModel *model = tree->model();

    // After opening, @main is current and expanded.
    const QModelIndex main = model->index(0, 0);
    QCOMPARE(tree->currentIndex(), main);
    QVERIFY(tree->isExpanded(main));

    QTest::keyClick(tree, Qt::Key_Left); // collapses @main
    QVERIFY(!tree->isExpanded(main));
    QTest::keyClick(tree, Qt::Key_Down); // the next function, collapsed
    const QModelIndex partition = model->index(1, 0);
    QCOMPARE(tree->currentIndex(), partition);
    QVERIFY(!tree->isExpanded(partition));
    QTest::keyClick(tree, Qt::Key_Right); // expands it
    QVERIFY(tree->isExpanded(partition));
    QTest::keyClick(tree, Qt::Key_Right); // moves into its first node
    QCOMPARE(tree->currentIndex(), model->index(0, 0, partition));
    QTest::keyClick(tree, Qt::Key_Down);
    QCOMPARE(tree->currentIndex(), model->index(1, 0, partition));
    QCOMPARE(tree->currentIndex().data().toString(), QStringLiteral("meta[relay.Constant][0]"));
    QTest::keyClick(tree, Qt::Key_End); // the last row of the tree: the composite is collapsed
    QCOMPARE(tree->currentIndex(), model->index(2, 0));
    QVERIFY(tree->selectionModel()->isRowSelected(2, {}));
}

void TestMainWindow::outlineOffersLargeFunctionsInBatches()
{
    MainWindow window;
    QVERIFY(window.openFile(rnntModel));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *dock = window.findChild<QDockWidget *>(QStringLiteral("outlineDock"));
    QVERIFY(dock);
    dock->raise();
    QTRY_VERIFY(dock->isVisible());
    QTreeView *tree = window.outlineView();
    const ModelOutlineModel *outline = window.outlineModel();
    const cleave::Graph &graph = *window.document()->graph();
    const cleave::Function &mainFn = graph.function(graph.mainFunction());
    constexpr int batch = ModelOutlineModel::rowBatch;
    QVERIFY(mainFn.nodes.size() > 4 * static_cast<std::size_t>(batch));

    // @main is current and expanded; the model offers its nodes a batch at a time: the first
    // batch, plus the one the view fetched when it expanded @main.
    const QModelIndex main = outline->index(0, 0);
    QCOMPARE(tree->currentIndex(), main);
    QVERIFY(tree->isExpanded(main));
    QCOMPARE(outline->rowCount(main), 2 * batch);
    QVERIFY(outline->canFetchMore(main));
    // The rows shown are the first nodes, in source order.
    QCOMPARE(outline->index(2 * batch - 1, ModelOutlineModel::IdColumn, main).data().toString(),
             QString::fromStdString(graph.key(mainFn.nodes[2 * batch - 1])));

    // Going to the end of the tree reaches the last row offered, and the view, having scrolled
    // to the end, fetches more: whole batches, the next nodes in source order, not all of them.
    tree->setFocus();
    QTest::keyClick(tree, Qt::Key_End);
    QCOMPARE(tree->currentIndex().row(), 2 * batch - 1);
    const int offered = outline->rowCount(main);
    QVERIFY(offered > 2 * batch);
    QCOMPARE(offered % batch, 0);
    QVERIFY(static_cast<std::size_t>(offered) < mainFn.nodes.size());
    QCOMPARE(
        outline->index(offered - 1, ModelOutlineModel::IdColumn, main).data().toString(),
        QString::fromStdString(graph.key(mainFn.nodes[static_cast<std::size_t>(offered) - 1])));
    // The next End reaches the last of those.
    QTest::keyClick(tree, Qt::Key_End);
    QCOMPARE(tree->currentIndex().row(), offered - 1);
    QCOMPARE(tree->currentIndex().parent(), main);
}

void TestMainWindow::histogramSortsByCalls()
{
    MainWindow window;
    QVERIFY(window.openFile(squeezenetModel));
    const OpHistogramModel *histogram = window.summaryDock()->histogramModel();
    QTableView *view = window.summaryDock()->histogramView();
    QCOMPARE(histogram->rowCount(), int(window.document()->summary().ops.size()));
    QCOMPARE(histogram->totalCalls(), qulonglong(window.document()->summary().opCalls));

    // Sorted by calls, most frequent first, as numbers (not as text).
    const QAbstractItemModel *sorted = view->model();
    for (int row = 1; row < sorted->rowCount(); ++row) {
        QVERIFY(sorted->index(row - 1, OpHistogramModel::CallsColumn).data().toULongLong()
                >= sorted->index(row, OpHistogramModel::CallsColumn).data().toULongLong());
    }
    view->sortByColumn(OpHistogramModel::OpColumn, Qt::AscendingOrder);
    QVERIFY(sorted->index(0, 0).data().toString() < sorted->index(1, 0).data().toString());
}

void TestMainWindow::failedOpenKeepsModel()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString broken = dir.filePath(QStringLiteral("broken.relay"));
    QFile file(broken);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  nn.relu(%x\n}\n");
    file.close();

    MainWindow window;
    QVERIFY(window.openFile(byocModel));
    const cleave::Graph *before = window.document()->graph();
    const QString title = window.windowTitle();
    const QString status = statusText(window);

    MessageBoxCloser closer;
    QVERIFY(!window.openFile(broken));
    QCOMPARE(closer.icon(), QMessageBox::Critical);
    const QRegularExpression diagnostic(QRegularExpression::escape(broken)
                                        + QStringLiteral(":\\d+:\\d+: error: "));
    QVERIFY2(diagnostic.match(closer.text()).hasMatch(), qPrintable(closer.text()));

    QCOMPARE(window.document()->graph(), before);
    QCOMPARE(window.document()->filePath(), byocModel);
    QCOMPARE(window.windowTitle(), title);
    QCOMPARE(statusText(window), status);
    QCOMPARE(window.outlineModel()->rowCount(), 3);
}

void TestMainWindow::recentFiles()
{
    MainWindow window;
    QVERIFY(window.openFile(byocModel));
    QVERIFY(window.openFile(squeezenetModel));
    QVERIFY(window.openFile(byocModel));
    QCOMPARE(ProjectSession::recentFiles(), (QStringList { byocModel, squeezenetModel }));

    // A recent file that has gone away is dropped from the list when opening it fails.
    QTemporaryDir dir;
    const QString gone = dir.filePath(QStringLiteral("gone.relay"));
    QFile::copy(byocModel, gone);
    QVERIFY(window.openFile(gone));
    QCOMPARE(ProjectSession::recentFiles().constFirst(), gone);
    QFile::remove(gone);
    MessageBoxCloser closer;
    QVERIFY(!window.openFile(gone));
    QVERIFY(closer.text().contains(QStringLiteral("cannot open file")));
    QCOMPARE(ProjectSession::recentFiles(), (QStringList { byocModel, squeezenetModel }));
}

void TestMainWindow::modelsPassTester()
{
    ModelOutlineModel outline;
    OpHistogramModel histogram;
    QAbstractItemModelTester outlineTester(&outline,
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester histogramTester(
        &histogram, QAbstractItemModelTester::FailureReportingMode::QtTest);

    cleave::ui::Document document;
    connect(&document, &cleave::ui::Document::graphChanged, this, [&] {
        outline.setGraph(document.graph());
        histogram.setHistogram(document.summary().ops);
    });
    QVERIFY(document.open(byocModel));
    QCOMPARE(histogram.rowCount(), 3);
    QVERIFY(document.open(squeezenetModel));
    QCOMPARE(outline.rowCount(), int(document.graph()->functionCount()));
    outline.setGraph(nullptr);
    QCOMPARE(outline.rowCount(), 0);
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
