// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// What the editor looks like, driven with the mouse: the first-run card of an empty window
// (the samples that ship, the three gestures and their keys, gone once a model is open, never
// back once dismissed); View ▸ Theme (dark canvas and back, saved; every label legible by WCAG
// contrast in both themes); a node's weights and output types on hover (ResNet-18's first
// conv2d, sizes derived by hand); tensor shapes written on edges when zoomed in and not when
// zoomed out; exports that keep the partition names and block labels inside the picture.
#include "TestSupport.h"
#include "ui/MainWindow.h"
#include "ui/canvas/CanvasWidget.h"
#include "ui/canvas/items/BlockFrameLayer.h"
#include "ui/canvas/items/GraphItems.h"
#include "ui/document/Document.h"
#include "ui/support/CanvasTheme.h"
#include "ui/widgets/ThemeMenu.h"
#include "ui/widgets/ThemedIcon.h"
#include "ui/widgets/WelcomePage.h"

#include <QApplication>
#include <QFontMetricsF>
#include <QFrame>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>
#include <QToolButton>
#include <QToolTip>

#include <array>
#include <cmath>

using cleave::EdgeRef;
using cleave::NodeId;
using cleave::TensorRef;
using cleave::ui::CanvasColours;
using cleave::ui::MainWindow;
using cleave::ui::OpCategory;
using cleave::ui::ThemeMenu;
using cleave::ui::WelcomePage;

namespace {

const QString resnet = QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay");
const QString stopFusion = QStringLiteral(CLEAVE_SAMPLES_DIR "/stop_fusion.relay");

void openAndWait(MainWindow &window, const QString &path)
{
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openFile(path));
    QTRY_VERIFY_WITH_TIMEOUT(window.canvas()->isLayoutReady(), 30000);
}

NodeId key(const MainWindow &window, const char *k)
{
    return cleave::test::node(*window.document()->graph(), k);
}

QMenu *openMenuBarMenu(MainWindow &window, const QString &title)
{
    QMenuBar *bar = window.menuBar();
    for (QAction *a : bar->actions()) {
        if (a->text().remove(QLatin1Char('&')) == title) {
            QTest::mouseClick(bar, Qt::LeftButton, {}, bar->actionGeometry(a).center());
            break;
        }
    }
    if (!QTest::qWaitFor([] { return QApplication::activePopupWidget() != nullptr; }))
        return nullptr;
    return qobject_cast<QMenu *>(QApplication::activePopupWidget());
}

/// View ▸ Theme ▸ `name`, clicked with the mouse through the submenu.
void chooseTheme(MainWindow &window, const char *objectName)
{
    QMenu *view = openMenuBarMenu(window, QStringLiteral("View"));
    QVERIFY(view);
    auto *themeMenu = window.findChild<ThemeMenu *>(QStringLiteral("themeMenu"));
    QVERIFY(themeMenu);
    // "&Theme": its mnemonic opens the submenu.
    QTest::keyClick(view, Qt::Key_T);
    QTRY_VERIFY(themeMenu->isVisible());
    auto *action = window.findChild<QAction *>(QLatin1String(objectName));
    QVERIFY(action);
    QTest::mouseClick(themeMenu, Qt::LeftButton, {}, themeMenu->actionGeometry(action).center());
    QTRY_VERIFY(QApplication::activePopupWidget() == nullptr);
}

/// WCAG 2 relative luminance and contrast ratio (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio).
double luminance(const QColor &c)
{
    auto channel
        = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

/// `c` blended over `base` by its alpha.
QColor opaque(const QColor &c, const QColor &base)
{
    const double a = c.alphaF();
    return QColor::fromRgbF(static_cast<float>(c.redF() * a + base.redF() * (1 - a)),
                            static_cast<float>(c.greenF() * a + base.greenF() * (1 - a)),
                            static_cast<float>(c.blueF() * a + base.blueF() * (1 - a)));
}

/// CIE76 colour difference: Euclidean distance in CIELAB (sRGB, D65 white).
double deltaE(const QColor &a, const QColor &b)
{
    const auto lab = [](const QColor &c) {
        const auto linear = [](double v) {
            return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
        };
        const double r = linear(c.redF());
        const double g = linear(c.greenF());
        const double bl = linear(c.blueF());
        const double x = (0.4124 * r + 0.3576 * g + 0.1805 * bl) / 0.95047;
        const double y = 0.2126 * r + 0.7152 * g + 0.0722 * bl;
        const double z = (0.0193 * r + 0.1192 * g + 0.9505 * bl) / 1.08883;
        const auto f
            = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
        return std::array<double, 3> { 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)) };
    };
    const auto p = lab(a);
    const auto q = lab(b);
    return std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

/// The colour of the canvas' pixel at a scene point, as last painted.
QColor pixelAt(const MainWindow &window, const QPointF &scenePoint)
{
    QGraphicsView *view = window.canvas()->view();
    const QImage image = view->viewport()->grab().toImage();
    const QPoint p = view->mapFromScene(scenePoint);
    return image.pixelColor(p * image.devicePixelRatio());
}

cleave::ui::NodeItem *nodeItem(const MainWindow &window, NodeId id)
{
    return window.canvas()->nodeItem(id);
}

} // namespace

class TestAppearance : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void firstRunCardOpensASample();
    void dismissedCardStaysAway();
    void themeSwitchesTheCanvas();
    void labelsAreLegibleInBothThemes();
    void stageTintsAreNotNodeColours();
    void hoverShowsWeightsAndOutputs();
    void edgesShowShapesWhenZoomedIn();
    void exportKeepsLabelsInside();
};

void TestAppearance::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_appearance"));
}

void TestAppearance::init()
{
    QSettings().clear();
    QApplication::setPalette(ThemeMenu::systemPalette());
}

void TestAppearance::firstRunCardOpensASample()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QFrame *card = window.welcomePage()->card();
    QVERIFY(card->isVisible());
    // One button per model in samples/ (the generators are not models).
    QStringList samples;
    for (QPushButton *b : card->findChildren<QPushButton *>()) {
        if (b->objectName().startsWith(QLatin1String("sample:")))
            samples << b->text();
    }
    QCOMPARE(
        samples,
        QStringList({ QStringLiteral("byoc_dnnl_partitioned.relay"),
                      QStringLiteral("inception_block.relay"), QStringLiteral("resnet18.relay"),
                      QStringLiteral("resnet_fused.relay"), QStringLiteral("resnet_inception.onnx"),
                      QStringLiteral("stop_fusion.relay") }));
    // The three gestures with the keys of the editor's own actions.
    const QStringList gestures = window.welcomePage()->gestureTexts();
    QCOMPARE(gestures.size(), 3);
    const QString exportKey = QKeySequence(Qt::CTRL | Qt::Key_E).toString(QKeySequence::NativeText);
    QCOMPARE(
        gestures,
        QStringList(
            { QStringLiteral("Cut: C, then drag a stroke across the edges where one stage ends."),
              QStringLiteral("Select: V, then click nodes or drag a rubber band; Edit ▸ New "
                             "Partition groups them."),
              QStringLiteral("Export: %1, writes each partition as a module, with the "
                             "pipeline configuration.")
                  .arg(exportKey) }));

    // A click opens the sample; the card is gone with the empty page.
    auto *button = card->findChild<QPushButton *>(QStringLiteral("sample:stop_fusion.relay"));
    QVERIFY(button);
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(QFileInfo(window.document()->filePath()).canonicalFilePath(),
             QFileInfo(stopFusion).canonicalFilePath());
    QVERIFY(!card->isVisible());
    QVERIFY(window.canvas()->isVisible());
    // Not dismissed: an empty window shows it again.
    MainWindow next;
    next.show();
    QVERIFY(QTest::qWaitForWindowExposed(&next));
    QVERIFY(next.welcomePage()->card()->isVisible());
}

void TestAppearance::dismissedCardStaysAway()
{
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QFrame *card = window.welcomePage()->card();
        QVERIFY(card->isVisible());
        auto *close = card->findChild<QToolButton *>(QStringLiteral("dismissFirstRunCard"));
        QVERIFY(close);
        QTest::mouseClick(close, Qt::LeftButton);
        QVERIFY(!card->isVisible());
        QCOMPARE(QSettings().value(QStringLiteral("help/firstRunCardDismissed")).toBool(), true);
    }
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(!window.welcomePage()->card()->isVisible());
    // The plain hint (File ▸ Open…, drop, formats) stays.
    QVERIFY(window.findChild<QLabel *>(QStringLiteral("emptyHint"))->isVisible());
}

void TestAppearance::themeSwitchesTheCanvas()
{
    MainWindow window;
    openAndWait(window, resnet);
    QGraphicsView *view = window.canvas()->view();
    view->setTransform(QTransform::fromScale(1, 1));
    cleave::ui::NodeItem *conv = nodeItem(window, key(window, "%0"));
    QVERIFY(conv);
    view->centerOn(conv->rect().center());
    // A point inside the box, left of its centred text.
    const QPointF inside(conv->rect().left() + 4, conv->rect().center().y());
    QCOMPARE(pixelAt(window, inside), QColor(0xdb, 0xe9, 0xfb));

    chooseTheme(window, "themeDarkAction");
    QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), QStringLiteral("dark"));
    QVERIFY(cleave::ui::isDarkPalette(QApplication::palette()));
    // The palette reaches the widgets through posted events: the canvas follows once they run.
    QTRY_COMPARE(view->backgroundBrush().color(), QColor(0x16, 0x19, 0x1d));
    QCOMPARE(pixelAt(window, inside), QColor(0x1d, 0x3a, 0x5f));

    // The toolbar's line icons are redrawn in the palette's text colour, not the light theme's
    // slate (#3b4252), which would vanish on the dark toolbar.
    {
        const QImage icon = cleave::ui::themedIcon("open").pixmap(QSize(24, 24)).toImage();
        int light = 0;
        int slate = 0;
        for (int y = 0; y < icon.height(); ++y) {
            for (int x = 0; x < icon.width(); ++x) {
                const QColor c = icon.pixelColor(x, y);
                if (c.alpha() == 255 && c == QApplication::palette().color(QPalette::WindowText))
                    ++light;
                if (c.alpha() == 255 && c == QColor(0x3b, 0x42, 0x52))
                    ++slate;
            }
        }
        QVERIFY(light > 0);
        QCOMPARE(slate, 0);
    }
    // Saved: the next window starts dark.
    {
        MainWindow next;
        auto *dark = next.findChild<QAction *>(QStringLiteral("themeDarkAction"));
        QVERIFY(dark && dark->isChecked());
    }

    chooseTheme(window, "themeLightAction");
    QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), QStringLiteral("light"));
    QTRY_COMPARE(view->backgroundBrush().color(), QColor(0xfb, 0xfb, 0xfc));
    QCOMPARE(pixelAt(window, inside), QColor(0xdb, 0xe9, 0xfb));

    chooseTheme(window, "themeSystemAction");
    QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), QStringLiteral("system"));
    QCOMPARE(QApplication::palette(), ThemeMenu::systemPalette());
}

void TestAppearance::labelsAreLegibleInBothThemes()
{
    // WCAG AA for normal text: 4.5:1, for every category fill and the text drawn on it.
    const OpCategory categories[] = {
        OpCategory::Convolution, OpCategory::MatMul,  OpCategory::Normalisation,
        OpCategory::Activation,  OpCategory::Pooling, OpCategory::Elementwise,
        OpCategory::Shape,       OpCategory::Control, OpCategory::FunctionCall,
        OpCategory::Input,       OpCategory::Other,
    };
    for (const CanvasColours *colours :
         { &cleave::ui::lightCanvasColours(), &cleave::ui::darkCanvasColours() }) {
        const char *theme = colours->dark ? "dark" : "light";
        for (OpCategory category : categories) {
            const bool input = category == OpCategory::Input;
            const QColor fill = colours->fill(category);
            const double title = contrast(input ? colours->inputText : colours->nodeText, fill);
            const double subtitle
                = contrast(input ? colours->inputSubtitle : colours->nodeSubtitle, fill);
            const QString what = QStringLiteral("%1 %2: title %3, subtitle %4")
                                     .arg(QLatin1String(theme), cleave::ui::categoryName(category))
                                     .arg(title)
                                     .arg(subtitle);
            QVERIFY2(title >= 4.5, qPrintable(what));
            QVERIFY2(subtitle >= 4.5, qPrintable(what));
        }
        QVERIFY(contrast(colours->nodeText, colours->structuralFill) >= 4.5);
        QVERIFY(contrast(colours->nodeSubtitle, colours->structuralFill) >= 4.5);
        QVERIFY(contrast(colours->edgeLabel, colours->background) >= 4.5);
        QVERIFY(contrast(colours->blockTabText, colours->blockTabFill) >= 4.5);
        // Partition names, drawn on their plates (the badges' fill), in each of the ten
        // partition colours.
        for (int i = 0; i < 10; ++i) {
            const double c = contrast(colours->partitionText(cleave::ui::partitionColour(i)),
                                      opaque(colours->badgeFill, colours->background));
            QVERIFY2(
                c >= 4.5,
                qPrintable(
                    QStringLiteral("%1 partition %2: %3").arg(QLatin1String(theme)).arg(i).arg(c)));
        }
    }
}

void TestAppearance::stageTintsAreNotNodeColours()
{
    // Issue 32: a green stage's tint read as batch-norm nodes. Every partition colour's tint, as
    // the canvas draws it near the nodes, must differ from every category's node fill by a CIE76
    // colour difference of at least 8 (2.3 is barely noticeable side by side), in both themes,
    // and the edges' shape labels drawn on it keep a contrast of 4.5.
    const OpCategory categories[] = {
        OpCategory::Convolution, OpCategory::MatMul,  OpCategory::Normalisation,
        OpCategory::Activation,  OpCategory::Pooling, OpCategory::Elementwise,
        OpCategory::Shape,       OpCategory::Control, OpCategory::FunctionCall,
        OpCategory::Other,
    };
    for (const CanvasColours *colours :
         { &cleave::ui::lightCanvasColours(), &cleave::ui::darkCanvasColours() }) {
        const char *theme = colours->dark ? "dark" : "light";
        for (int i = 0; i < 10; ++i) {
            const QColor tint
                = colours->tint(cleave::ui::partitionColour(i), cleave::ui::regionTintNear);
            for (OpCategory category : categories) {
                const double d = deltaE(tint, colours->fill(category));
                QVERIFY2(d >= 8,
                         qPrintable(QStringLiteral("%1: partition %2 vs %3: %4")
                                        .arg(QLatin1String(theme))
                                        .arg(i)
                                        .arg(cleave::ui::categoryName(category))
                                        .arg(d)));
            }
            QVERIFY2(contrast(colours->edgeLabel, tint) >= 4.5,
                     qPrintable(QStringLiteral("%1: edge label on partition %2: %3")
                                    .arg(QLatin1String(theme))
                                    .arg(i)
                                    .arg(contrast(colours->edgeLabel, tint))));
        }
    }
    // The green stage against batch norm, by hand: 32 % of #2ca02c over white is #bbe1bb
    // (255·0.68 + 44·0.32 = 187.5, 255·0.68 + 160·0.32 = 224.6), the batch-norm fill #d9f2ec.
    const QColor green = cleave::ui::lightCanvasColours().tint(cleave::ui::partitionColour(2),
                                                               cleave::ui::regionTintNear);
    QCOMPARE(green.name(), QStringLiteral("#bbe1bb"));
}

void TestAppearance::hoverShowsWeightsAndOutputs()
{
    MainWindow window;
    openAndWait(window, resnet);
    const NodeId conv = key(window, "%0");
    // Nothing is stored per item: the text is made when the mouse rests.
    cleave::ui::NodeItem *item = nodeItem(window, conv);
    QVERIFY(item);
    QVERIFY(item->toolTip().isEmpty());
    QGraphicsView *view = window.canvas()->view();
    view->setTransform(QTransform::fromScale(1, 1));
    view->centerOn(item->rect().center());
    QTest::mouseMove(view->viewport(), window.canvas()->viewportPosOfNode(conv));
    QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), 5000);
    QTextDocument text;
    text.setHtml(QToolTip::text());
    // %data is 1×3×224×224 float32: 150528 × 4 = 602112 B = 588.0 KiB; the weight 64×3×7×7
    // float32: 9408 × 4 = 37632 B = 36.75 KiB; the output 1×64×112×112 float32: 802816 × 4 =
    // 3211264 B = 3.06 MiB.
    QCOMPARE(text.toPlainText().split(QLatin1Char('\n')),
             QStringList(
                 { QStringLiteral("%0 · nn.conv2d"), QStringLiteral("Inputs"),
                   QStringLiteral("%data · 1×3×224×224 · float32 · 588.0 KiB"),
                   QStringLiteral("Weights and constants"),
                   QStringLiteral("meta[relay.Constant][0] · 64×3×7×7 · float32 · 36.8 KiB"),
                   QStringLiteral("Output"), QStringLiteral("1×64×112×112 · float32 · 3.1 MiB") }));
    QToolTip::hideText();
}

void TestAppearance::edgesShowShapesWhenZoomedIn()
{
    MainWindow window;
    openAndWait(window, resnet);
    QGraphicsView *view = window.canvas()->view();
    // %4 = max_pool2d: 1×64×112×112 pooled 3×3 stride 2 pad 1 → (112 + 2 − 3) / 2 + 1 = 56.
    const NodeId pool = key(window, "%4");
    view->setTransform(QTransform::fromScale(2, 2));
    view->centerOn(nodeItem(window, pool)->rect().bottomLeft() + QPointF(40, 10));
    view->viewport()->repaint();
    std::map<TensorRef, QStringList> labels;
    for (const auto &[edge, text] : window.canvas()->edgeLabelsDrawn())
        labels[edge.tensor] << text;
    QVERIFY(labels.count(TensorRef { pool, 0 }) == 1);
    // One label per tensor, though %4 feeds two consumers (%5 and the residual add %12).
    QCOMPARE(labels.at(TensorRef { pool, 0 }), QStringList({ QStringLiteral("1×64×56×56") }));

    view->setTransform(QTransform::fromScale(0.2, 0.2));
    view->centerOn(nodeItem(window, pool)->rect().center());
    view->viewport()->repaint();
    QVERIFY(window.canvas()->edgeLabelsDrawn().empty());
}

void TestAppearance::exportKeepsLabelsInside()
{
    MainWindow window;
    openAndWait(window, resnet);
    QTemporaryDir dir;
    const QString svgPath = dir.filePath(QStringLiteral("resnet.svg"));
    QString error;
    QVERIFY2(window.canvas()->exportImage(svgPath, &error), qPrintable(error));
    QFile file(svgPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString svg = QString::fromUtf8(file.readAll());
    const QRegularExpressionMatch m
        = QRegularExpression(
              QStringLiteral("viewBox=\"([-\\d.]+) ([-\\d.]+) ([-\\d.]+) ([-\\d.]+)\""))
              .match(svg);
    QVERIFY(m.hasMatch());
    const QRectF viewBox(m.captured(1).toDouble(), m.captured(2).toDouble(),
                         m.captured(3).toDouble(), m.captured(4).toDouble());
    // The partition's name: 14 px bold, right-aligned at its anchor, left of the region.
    QFont font;
    font.setPixelSize(14);
    font.setWeight(QFont::Bold);
    const QFontMetricsF fm(font);
    int regions = 0;
    int frames = 0;
    for (QGraphicsItem *item : window.canvas()->view()->scene()->items()) {
        if (auto *region = qgraphicsitem_cast<cleave::ui::PartitionRegionItem *>(item)) {
            ++regions;
            const QRectF label(region->labelPos().x() - fm.horizontalAdvance(region->name()),
                               region->labelPos().y() - fm.height() / 2,
                               fm.horizontalAdvance(region->name()), fm.height());
            QVERIFY2(viewBox.contains(label),
                     qPrintable(QStringLiteral("label %1,%2 %3x%4 outside the viewBox %5,%6")
                                    .arg(label.x())
                                    .arg(label.y())
                                    .arg(label.width())
                                    .arg(label.height())
                                    .arg(viewBox.x())
                                    .arg(viewBox.y())));
        }
        if (auto *layer = qgraphicsitem_cast<cleave::ui::BlockFrameLayer *>(item)) {
            for (std::size_t f = 0; f < layer->frameCount(); ++f) {
                ++frames;
                QVERIFY(viewBox.contains(layer->tabRect(f)));
            }
        }
    }
    QCOMPARE(regions, 1);
    QVERIFY(frames > 0);
}

QTEST_MAIN(TestAppearance)
#include "tst_appearance.moc"
