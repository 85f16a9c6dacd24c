// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Runs the real cleave-cli binary: `render` draws a model as the editor's canvas does, with no
// display (the process is started without DISPLAY or QT_QPA_PLATFORM: the program picks the
// offscreen platform itself). The SVG is parsed as XML and its drawn nodes counted; the PNG's
// size follows --dpi; the PDF is one page.
#include "CliRunner.h"
#include "TestSupport.h"

#include <QDir>
#include <QFile>
#include <QImageReader>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <cmath>

namespace {

using cleave::test::CliRun;

/// Runs the cleave-cli executable without a display or a chosen Qt platform.
CliRun runWithoutDisplay(const QStringList &args)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("XDG_RUNTIME_DIR")); // as over ssh or in CI: no Qt warning then
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(CLEAVE_CLI_PATH), args);
    CliRun run;
    if (!process.waitForFinished(120000) || process.exitStatus() != QProcess::NormalExit)
        return run;
    run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

/// What the test reads back from an SVG drawing.
struct SvgCounts
{
    bool wellFormed = false;
    QString error;
    int nodes = 0; ///< `<rect class="node">`
    int partitions = 0; ///< `<path class="partition">`
    int badges = 0; ///< `<rect class="badge">`
    QStringList texts; ///< Every `<text>`'s content.
    double width = 0;
    double height = 0;
};

SvgCounts readSvg(const QString &path)
{
    SvgCounts counts;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        counts.error = file.errorString();
        return counts;
    }
    QXmlStreamReader xml(&file);
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        const auto name = xml.name();
        const auto cls = xml.attributes().value(QStringLiteral("class"));
        if (name == QLatin1String("svg")) {
            counts.width = xml.attributes().value(QStringLiteral("width")).toDouble();
            counts.height = xml.attributes().value(QStringLiteral("height")).toDouble();
        } else if (name == QLatin1String("rect") && cls == QLatin1String("node")) {
            ++counts.nodes;
        } else if (name == QLatin1String("rect") && cls == QLatin1String("badge")) {
            ++counts.badges;
        } else if (name == QLatin1String("path") && cls == QLatin1String("partition")) {
            ++counts.partitions;
        } else if (name == QLatin1String("text")) {
            counts.texts << xml.readElementText();
        }
    }
    counts.wellFormed = !xml.hasError();
    if (xml.hasError())
        counts.error = xml.errorString();
    return counts;
}

/// The nodes the canvas draws for a model's main function: its inputs, calls, tuples and
/// projections; constants (weights) are not drawn.
int drawnNodeCount(const cleave::Graph &graph)
{
    int count = 0;
    for (std::size_t i = 0; i < graph.nodeCount(); ++i) {
        const cleave::Node &n = graph.node(cleave::NodeId(static_cast<std::uint32_t>(i)));
        if (n.function == graph.mainFunction() && n.kind != cleave::NodeKind::Constant)
            ++count;
    }
    return count;
}

QString sample(const char *name)
{
    return QStringLiteral(CLEAVE_SAMPLES_DIR "/") + QLatin1String(name);
}

} // namespace

class TestCliRender : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void svgOfEverySample_data();
    void svgOfEverySample();
    void resnet18DrawsEveryOperatorInputAndProjection();
    void planPartitionsAreTintedWithBadges();
    void pngHasTheRequestedSize();
    void pdfIsOnePage();
    void blocksLevelDrawsOneNodePerBlock();
    void badArgumentsAreUsageErrors();

private:
    QTemporaryDir m_dir;
};

void TestCliRender::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestCliRender::svgOfEverySample_data()
{
    QTest::addColumn<QString>("file");
    const QStringList files
        = QDir(QStringLiteral(CLEAVE_SAMPLES_DIR))
              .entryList({ QStringLiteral("*.relay"), QStringLiteral("*.onnx") }, QDir::Files,
                         QDir::Name);
    QVERIFY(files.size() >= 6);
    for (const QString &f : files)
        QTest::newRow(qPrintable(f)) << f;
}

void TestCliRender::svgOfEverySample()
{
    QFETCH(QString, file);
    const QString svg = m_dir.filePath(file + QStringLiteral(".svg"));
    const CliRun run = runWithoutDisplay(
        { QStringLiteral("render"), sample(qPrintable(file)), QStringLiteral("-o"), svg });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const SvgCounts counts = readSvg(svg);
    QVERIFY2(counts.wellFormed, qPrintable(counts.error));
    const auto graph = cleave::test::loadOrAbort(sample(qPrintable(file)).toStdString());
    QCOMPARE(counts.nodes, drawnNodeCount(*graph));
    // The default plan is one partition, drawn as one tinted region; nothing crosses it.
    QCOMPARE(counts.partitions, 1);
    QCOMPARE(counts.badges, 0);
}

void TestCliRender::resnet18DrawsEveryOperatorInputAndProjection()
{
    // samples/README.md: 71 op calls; the text binds 20 batch_norm projections (`%k = %j.0`)
    // and @main has one parameter (%data); the 102 weights are constants and not drawn.
    const QString svg = m_dir.filePath(QStringLiteral("resnet18-count.svg"));
    const CliRun run = runWithoutDisplay(
        { QStringLiteral("render"), sample("resnet18.relay"), QStringLiteral("--out"), svg });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(readSvg(svg).nodes, 71 + 20 + 1);
    QVERIFY(readSvg(svg).texts.contains(QStringLiteral("nn.softmax")));
}

void TestCliRender::planPartitionsAreTintedWithBadges()
{
    // Cutting after the first max_pool2d of ResNet-18: one tensor (the pool's output, read
    // only by the first residual block's conv and its shortcut add) crosses the cut.
    const QString plan = m_dir.filePath(QStringLiteral("resnet18.plan.json"));
    const CliRun cut = cleave::test::runCli(
        { QStringLiteral("partition"), sample("resnet18.relay"), QStringLiteral("--cut-after"),
          QStringLiteral("nn.max_pool2d:0"), QStringLiteral("--save-plan"), plan });
    QVERIFY2(cut.exitCode == 0, cut.err.constData());
    const QString svg = m_dir.filePath(QStringLiteral("resnet18-plan.svg"));
    const CliRun run
        = runWithoutDisplay({ QStringLiteral("render"), sample("resnet18.relay"),
                              QStringLiteral("--plan"), plan, QStringLiteral("-o"), svg });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.err.isEmpty(), run.err.constData()); // not even Qt's QStandardPaths warning
    const SvgCounts counts = readSvg(svg);
    QVERIFY2(counts.wellFormed, qPrintable(counts.error));
    QCOMPARE(counts.partitions, 2);
    QCOMPARE(counts.nodes, 92);
    // Two consumers read the pool's output across the cut, but it is one tensor: one badge
    // naming the 1×64×56×56 float32 tensor.
    QCOMPARE(counts.badges, 1);
    int badgeTexts = 0;
    for (const QString &t : counts.texts)
        badgeTexts += t.contains(QStringLiteral("1×64×56×56")) ? 1 : 0;
    QVERIFY(badgeTexts >= 1);
}

void TestCliRender::pngHasTheRequestedSize()
{
    const QString svg = m_dir.filePath(QStringLiteral("stop.svg"));
    const QString png = m_dir.filePath(QStringLiteral("stop.png"));
    QCOMPARE(runWithoutDisplay({ QStringLiteral("render"), sample("stop_fusion.relay"),
                                 QStringLiteral("-o"), svg })
                 .exitCode,
             0);
    const CliRun run = runWithoutDisplay({ QStringLiteral("render"), sample("stop_fusion.relay"),
                                           QStringLiteral("-o"), png, QStringLiteral("--dpi"),
                                           QStringLiteral("144") });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    // The SVG's size is the drawing's in scene units (pixels at 96 dpi): 144 dpi is 1.5 times.
    const SvgCounts counts = readSvg(svg);
    QVERIFY(counts.width > 100 && counts.height > 100);
    QImageReader reader(png);
    QCOMPARE(reader.format(), QByteArray("png"));
    const QSize size = reader.size();
    QVERIFY2(std::abs(size.width() - counts.width * 1.5) <= 1.0,
             qPrintable(QStringLiteral("%1 vs %2").arg(size.width()).arg(counts.width * 1.5)));
    QVERIFY2(std::abs(size.height() - counts.height * 1.5) <= 1.0,
             qPrintable(QStringLiteral("%1 vs %2").arg(size.height()).arg(counts.height * 1.5)));
    QImage image(png);
    QVERIFY(!image.isNull());
}

void TestCliRender::pdfIsOnePage()
{
    const QString pdf = m_dir.filePath(QStringLiteral("inception.pdf"));
    const CliRun run = runWithoutDisplay(
        { QStringLiteral("render"), sample("inception_block.relay"), QStringLiteral("-o"), pdf });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.startsWith("%PDF-"));
    QCOMPARE(bytes.count("/Type /Page\n") + bytes.count("/Type /Page\r")
                 + bytes.count("/Type /Page "),
             1);
}

void TestCliRender::blocksLevelDrawsOneNodePerBlock()
{
    // stop_fusion.relay's blocks are checked by tst_fusion; here: the Blocks level draws fewer
    // nodes than the Ops level, and every node of the Ops level is in the model.
    const QString ops = m_dir.filePath(QStringLiteral("stop-ops.svg"));
    const QString blocks = m_dir.filePath(QStringLiteral("stop-blocks.svg"));
    QCOMPARE(runWithoutDisplay(
                 { QStringLiteral("render"), sample("resnet18.relay"), QStringLiteral("-o"), ops })
                 .exitCode,
             0);
    const CliRun run = runWithoutDisplay({ QStringLiteral("render"), sample("resnet18.relay"),
                                           QStringLiteral("--level"), QStringLiteral("blocks"),
                                           QStringLiteral("-o"), blocks });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const int opNodes = readSvg(ops).nodes;
    const int blockNodes = readSvg(blocks).nodes;
    QCOMPARE(opNodes, 92);
    QVERIFY2(blockNodes > 1 && blockNodes < opNodes,
             qPrintable(QStringLiteral("%1 block nodes").arg(blockNodes)));
}

void TestCliRender::badArgumentsAreUsageErrors()
{
    const QString model = sample("stop_fusion.relay");
    CliRun run = cleave::test::runCliBinary({ QStringLiteral("render"), model });
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.contains("-o OUT.svg"));
    run = cleave::test::runCliBinary({ QStringLiteral("render"), model, QStringLiteral("-o"),
                                       m_dir.filePath(QStringLiteral("x.bmp")) });
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.contains(".svg, .png or .pdf"));
    run = cleave::test::runCliBinary({ QStringLiteral("render"), model, QStringLiteral("--level"),
                                       QStringLiteral("kernels"), QStringLiteral("-o"),
                                       m_dir.filePath(QStringLiteral("x.svg")) });
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.contains("'kernels'"));
    run = cleave::test::runCliBinary({ QStringLiteral("render"), model, QStringLiteral("--dpi"),
                                       QStringLiteral("0"), QStringLiteral("-o"),
                                       m_dir.filePath(QStringLiteral("x.png")) });
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.contains("--dpi"));
    run = cleave::test::runCliBinary({ QStringLiteral("render"),
                                       QStringLiteral("/nonexistent.relay"), QStringLiteral("-o"),
                                       m_dir.filePath(QStringLiteral("x.svg")) });
    QCOMPARE(run.exitCode, 2);
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("x.svg"))));
}

QTEST_GUILESS_MAIN(TestCliRender)
#include "tst_cli_render.moc"
