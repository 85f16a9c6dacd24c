// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Opening a model off the UI thread: the window keeps answering while a generated 100k-node
// model imports, the progress card's Cancel leaves the open model as it was, a broken file
// after a good one keeps the good one, and the loader can be cancelled in every phase.
#include "ui/MainWindow.h"
#include "ui/document/Document.h"
#include "ui/document/ModelLoader.h"
#include "ui/scene/CanvasWidget.h"
#include "ui/scene/LayoutOverlay.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>

using cleave::ui::MainWindow;
using cleave::ui::ModelLoader;
using cleave::ui::PreparedModel;

namespace {

const QString resnet18 = QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay"));

// Writes a Relay module of `units` residual units of three operators each (relu, sigmoid, an
// add of the unit's input): 3 × units operators in a chain of residual diamonds, without type
// annotations (the importer infers every shape).
bool writeResidualChain(const QString &path, int units)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    QByteArray text = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 64), float32]) {\n";
    text.reserve(units * 80);
    QByteArray previous = "%x";
    for (int u = 0; u < units; ++u) {
        const QByteArray a = "%" + QByteArray::number(3 * u);
        const QByteArray b = "%" + QByteArray::number(3 * u + 1);
        const QByteArray c = "%" + QByteArray::number(3 * u + 2);
        text += "  " + a + " = nn.relu(" + previous + ");\n";
        text += "  " + b + " = sigmoid(" + a + ");\n";
        text += "  " + c + " = add(" + b + ", " + previous + ");\n";
        previous = c;
    }
    text += "  " + previous + "\n}\n";
    return file.write(text) == text.size();
}

qsizetype operatorCount(const cleave::Graph &graph)
{
    const cleave::Function &main = graph.function(graph.mainFunction());
    return std::count_if(main.nodes.begin(), main.nodes.end(),
                         [&](cleave::NodeId n) { return graph.node(n).isOperator(); });
}

// Closes the next modal message box as soon as it shows and keeps its text.
class MessageBoxCloser : public QObject
{
public:
    MessageBoxCloser()
    {
        auto *timer = new QTimer(this);
        connect(timer, &QTimer::timeout, this, [this, timer] {
            if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
                m_text = box->text();
                box->accept();
                timer->stop();
            }
        });
        timer->start(10);
    }
    [[nodiscard]] const QString &text() const { return m_text; }

private:
    QString m_text;
};

// The longest gap between the ticks of a 10 ms timer on the UI thread while it lives.
class LatencyProbe : public QObject
{
public:
    LatencyProbe()
    {
        m_clock.start();
        auto *timer = new QTimer(this);
        timer->setTimerType(Qt::PreciseTimer);
        connect(timer, &QTimer::timeout, this, [this] {
            const qint64 now = m_clock.elapsed();
            m_longest = std::max(m_longest, now - m_last);
            m_last = now;
            ++m_ticks;
        });
        timer->start(10);
    }
    [[nodiscard]] qint64 longestGap() const
    {
        return std::max(m_longest, m_clock.elapsed() - m_last);
    }
    [[nodiscard]] int ticks() const { return m_ticks; }

private:
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_longest = 0;
    int m_ticks = 0;
};

} // namespace

class TestBackgroundOpen : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void windowAnswersWhileImporting();
    void cancelKeepsOpenModel();
    void brokenFileKeepsOpenModel();
    void loaderCancelsInEveryPhase();

private:
    QTemporaryDir m_dir;
    QString m_big;
    static constexpr int units = 33334; // 100,002 operators
};

void TestBackgroundOpen::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_backgroundopen"));
    QVERIFY(m_dir.isValid());
    m_big = m_dir.filePath(QStringLiteral("residual_100k.relay"));
    QVERIFY(writeResidualChain(m_big, units));
}

void TestBackgroundOpen::init()
{
    QSettings().clear();
}

void TestBackgroundOpen::windowAnswersWhileImporting()
{
    MainWindow window;
    window.canvas()->setCacheDirectory({});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    QStringList phases;
    connect(window.session(), &cleave::ui::ProjectSession::loadPhase, this,
            [&phases](const QString &text) { phases.append(text); });
    // The import is measured from the open until the loader hands the model over; the hand-over
    // (the document and every view switching to the new model) is printed beside it.
    qint64 longest = -1;
    int ticks = 0;
    qint64 handOverMs = -1;
    {
        LatencyProbe probe;
        QElapsedTimer handOver;
        connect(window.session()->loader(), &ModelLoader::finished, this, [&] {
            longest = probe.longestGap();
            ticks = probe.ticks();
            handOver.start();
        });
        QVERIFY(window.openFile(m_big));
        handOverMs = handOver.elapsed();
    }
    qInfo("UI thread while importing %d operators: longest event-loop gap %lld ms over %d ticks; "
          "hand-over to the document and views %lld ms",
          3 * units, longest, ticks, handOverMs);

    const cleave::Graph *graph = window.document()->graph();
    QVERIFY(graph);
    QCOMPARE(operatorCount(*graph), qsizetype(3 * units));
    QCOMPARE(window.document()->filePath(), m_big);
    // The card named each phase, in order.
    QCOMPARE(phases.size(), 4);
    QVERIFY2(phases[0].startsWith(QStringLiteral("Reading residual_100k.relay")),
             qPrintable(phases[0]));
    QCOMPARE(
        phases[1],
        QStringLiteral("Importing residual_100k.relay (relay): parsing and inferring shapes…"));
    QVERIFY(phases[2].startsWith(QStringLiteral("Fusing")));
    QVERIFY(phases[3].startsWith(QStringLiteral("Summarising")));
    QVERIFY(!window.loadCard()->isVisible());
    // The event loop ran all along the import (a 10 ms timer ticked), never stopping for long.
    QVERIFY(ticks > 0);
    QVERIFY2(longest < 250, qPrintable(QStringLiteral("longest gap %1 ms").arg(longest)));
}

void TestBackgroundOpen::cancelKeepsOpenModel()
{
    MainWindow window;
    window.canvas()->setCacheDirectory({});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openFile(resnet18));
    const cleave::Graph *before = window.document()->graph();
    const qsizetype ops = operatorCount(*before);
    const QString title = window.windowTitle();
    QSignalSpy changed(window.document(), &cleave::ui::Document::graphChanged);

    // Click the card's Cancel as soon as the card shows.
    QString cardText;
    QTimer clicker;
    connect(&clicker, &QTimer::timeout, this, [&] {
        auto *card = window.loadCard();
        if (!card->isVisible())
            return;
        clicker.stop();
        cardText = card->findChild<QLabel *>()->text();
        auto *cancel = card->findChild<QPushButton *>(QStringLiteral("layoutCancel"));
        QVERIFY(cancel && cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);
    });
    clicker.start(5);
    QVERIFY2(!window.openFile(m_big), "the import ended before Cancel could be clicked");
    QVERIFY2(cardText.contains(QStringLiteral("residual_100k.relay")), qPrintable(cardText));
    QVERIFY(!window.loadCard()->isVisible());
    QCOMPARE(window.statusBar()->currentMessage(),
             QStringLiteral("Opening %1 was cancelled").arg(QDir::toNativeSeparators(m_big)));

    // The worker still finishes its phase; what it delivers then is dropped.
    QTRY_VERIFY_WITH_TIMEOUT(!window.session()->loader()->hasWorkers(), 120000);
    QTest::qWait(50);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(window.document()->graph(), before);
    QCOMPARE(window.document()->filePath(), resnet18);
    QCOMPARE(operatorCount(*window.document()->graph()), ops);
    QCOMPARE(window.windowTitle(), title);
}

void TestBackgroundOpen::brokenFileKeepsOpenModel()
{
    // Line 4 reads `  %1 = nn.relu(%0 %0);`: after the first argument (columns 16-17) a comma
    // or `)` must follow, and the second `%0` starts at column 19.
    const QString broken = m_dir.filePath(QStringLiteral("broken.relay"));
    QFile file(broken);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("#[version = \"0.0.5\"]\n"
               "def @main(%x: Tensor[(1, 4), float32]) {\n"
               "  %0 = nn.relu(%x);\n"
               "  %1 = nn.relu(%0 %0);\n"
               "  %1\n"
               "}\n");
    file.close();

    MainWindow window;
    window.canvas()->setCacheDirectory({});
    QVERIFY(window.openFile(resnet18));
    const cleave::Graph *before = window.document()->graph();
    QSignalSpy changed(window.document(), &cleave::ui::Document::graphChanged);
    MessageBoxCloser closer;
    QVERIFY(!window.openFile(broken));
    QVERIFY2(closer.text().contains(broken + QStringLiteral(":4:19: error: ")),
             qPrintable(closer.text()));
    QCOMPARE(changed.count(), 0);
    QCOMPARE(window.document()->graph(), before);
    QCOMPARE(window.document()->filePath(), resnet18);
    QVERIFY(!window.session()->isLoading());
    QVERIFY(!window.loadCard()->isVisible());
}

void TestBackgroundOpen::loaderCancelsInEveryPhase()
{
    using Phase = ModelLoader::Phase;
    const std::vector<Phase> all { Phase::Reading, Phase::Importing, Phase::Fusing,
                                   Phase::Checking };
    for (std::size_t stop = 0; stop < all.size(); ++stop) {
        ModelLoader loader;
        std::vector<Phase> seen;
        connect(&loader, &ModelLoader::phaseChanged, this,
                [&](quint64, Phase phase, const QString &, int) {
                    seen.push_back(phase);
                    if (phase == all[stop])
                        loader.cancel();
                });
        QSignalSpy finished(&loader, &ModelLoader::finished);
        QSignalSpy idle(&loader, &ModelLoader::idle);
        const quint64 generation = loader.start(resnet18);
        QVERIFY(idle.wait(60000));
        QTest::qWait(20);
        // Cancelled where asked: one answer, without a model, and no phase announced after.
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).value<quint64>(), generation);
        QVERIFY(!finished.at(0).at(1).value<std::shared_ptr<PreparedModel>>());
        QCOMPARE(seen, std::vector<Phase>(all.begin(), all.begin() + std::ptrdiff_t(stop) + 1));
        QVERIFY(!loader.isRunning());
    }

    // Uncancelled, the same file arrives complete: 4 phases, a graph, its blocks and plan.
    ModelLoader loader;
    int phases = 0;
    connect(&loader, &ModelLoader::phaseChanged, this, [&phases] { ++phases; });
    QSignalSpy finished(&loader, &ModelLoader::finished);
    loader.start(resnet18);
    QVERIFY(finished.wait(60000));
    const auto model = finished.at(0).at(1).value<std::shared_ptr<PreparedModel>>();
    QVERIFY(model && model->ok());
    QCOMPARE(phases, 4);
    QVERIFY(!model->blocks.empty());
    QVERIFY(model->plan.has_value());
    QCOMPARE(model->plan->partitionCount(), std::size_t(1));
}

QTEST_MAIN(TestBackgroundOpen)
#include "tst_backgroundopen.moc"
