// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "GraphBuilder.h"
#include "TestSupport.h"
#include "ThreeNodeColumn.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/FunctionView.h"
#include "core/layout/GraphLayouter.h"
#include "core/layout/LayoutCache.h"
#include "core/layout/LayoutGraph.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace cleave;

namespace {

using test::loadSample;

// Distance from a point to a rectangle (0 inside).
double distanceTo(const LayoutRect &r, LayoutPoint p)
{
    const double dx = std::max({ double(r.x) - p.x, 0.0, p.x - r.right() });
    const double dy = std::max({ double(r.y) - p.y, 0.0, p.y - r.bottom() });
    return std::hypot(dx, dy);
}

void appendU32(std::string &out, std::uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        out.push_back(static_cast<char>((v >> (8 * i)) & 0xffU));
}

void appendF64(std::string &out, double v)
{
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    appendU32(out, static_cast<std::uint32_t>(bits & 0xffffffffU));
    appendU32(out, static_cast<std::uint32_t>(bits >> 32U));
}

// A layout cache file of format version 2 (before the compact Layout): every node of `lg` at
// x = 999, by that version's rules (little-endian u32 ids and counts, f64 coordinates).
std::string version2Bytes(const LayoutGraph &lg)
{
    std::string out = "CLVL";
    appendU32(out, 2);
    appendU32(out, 3);
    out += "dot";
    for (double v : { 0.0, 0.0, 1000.0, 100.0 })
        appendF64(out, v);
    std::vector<std::pair<NodeId, const LayoutGraph::Node *>> nodes;
    for (const LayoutGraph::Node &n : lg.nodes)
        nodes.emplace_back(n.id, &n);
    std::sort(nodes.begin(), nodes.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    appendU32(out, static_cast<std::uint32_t>(nodes.size()));
    for (const auto &[id, n] : nodes) {
        appendU32(out, id.value);
        for (double v : { 999.0, 0.0, double(n->width), double(n->height) })
            appendF64(out, v);
    }
    appendU32(out, 0); // no edges
    return out;
}

} // namespace

class TestLayout : public QObject
{
    Q_OBJECT

private slots:
    void drawnGraphOfResnet();
    void drawnGraphFromAGivenView();
    void layoutOfResnet_data();
    void layoutOfResnet();
    void cacheHitReturnsIdenticalLayout();
    void oldVersionCacheFileIsLaidOutAgain();
    void cancelFlagIsHonoured();
    void widelySharedInputBecomesStubs();
    void jsonRoundTrip();
    void everyFunctionOfEverySample();
};

void TestLayout::drawnGraphOfResnet()
{
    auto g = loadSample("resnet18.relay");
    const LayoutGraph lg = buildLayoutGraph(*g, g->mainFunction());
    // 1 input + 71 operator calls + 20 batch_norm projections; the weight constants are
    // not drawn.
    std::size_t inputs = 0;
    std::size_t structural = 0;
    std::size_t outputs = 0;
    for (const LayoutGraph::Node &n : lg.nodes) {
        QVERIFY(g->node(n.id).kind != NodeKind::Constant);
        inputs += n.role == LayoutNodeRole::Input ? 1 : 0;
        structural += n.role == LayoutNodeRole::Structural ? 1 : 0;
        outputs += n.role == LayoutNodeRole::Output ? 1 : 0;
    }
    QCOMPARE(inputs, std::size_t(1));
    QCOMPARE(outputs, std::size_t(1));
    QCOMPARE(structural, std::size_t(20));
    QCOMPARE(lg.nodes.size(), std::size_t(92));
    // A chain of 91 edges plus the 8 residual skip connections.
    QCOMPARE(lg.edges.size(), std::size_t(99));

    const NodeLabel conv = nodeLabel(*g, g->findByKey("%0"));
    QCOMPARE(conv.title, std::string("nn.conv2d"));
    QCOMPARE(conv.subtitle, std::string("1\u00d764\u00d7112\u00d7112"));
    QCOMPARE(nodeLabel(*g, g->findByKey("%2")).title, std::string(".0"));
    QCOMPARE(nodeLabel(*g, g->findByKey("%data")).title, std::string("data"));
}

void TestLayout::layoutOfResnet_data()
{
    QTest::addColumn<QString>("engine");
    QTest::newRow("dot") << QStringLiteral("dot");
    QTest::newRow("dot-order") << QStringLiteral("dot-order");
}

void TestLayout::layoutOfResnet()
{
    QFETCH(QString, engine);
    auto g = loadSample("resnet18.relay");
    const LayoutGraph lg = buildLayoutGraph(*g, g->mainFunction());
    LayoutSettings settings;
    settings.engine = engine.toStdString();
    const LayoutResult r = computeLayout(lg, settings);
    QVERIFY2(r.isOk(), r.message.c_str());
    const Layout &layout = *r.layout;
    QCOMPARE(layout.engine, engine.toStdString());

    // Every operator node has a rectangle of its label's size inside the bounding box.
    for (NodeId id : g->function(g->mainFunction()).nodes) {
        const Node &n = g->node(id);
        if (!n.isOperator())
            continue;
        const LayoutRect *rect = layout.rect(id);
        QVERIFY2(rect != nullptr, g->key(id).c_str());
        QVERIFY(rect->width >= 64);
        QVERIFY(rect->x >= -1 && rect->right() <= layout.bbox.width + 1);
        QVERIFY(rect->y >= -1 && rect->bottom() <= layout.bbox.height + 1);
    }
    QCOMPARE(layout.nodes.size(), std::size_t(92));
    QCOMPARE(layout.edges.size(), std::size_t(99));

    for (const LayoutGraph::Edge &e : lg.edges) {
        const std::optional<LayoutSpline> s = layout.spline(e.tensor, e.consumer);
        QVERIFY(s.has_value());
        QVERIFY(s->points().size() >= 4);
        QCOMPARE((s->points().size() - 1) % 3, std::size_t(0));
        QVERIFY(s->hasArrow());
        const LayoutRect &to = *layout.rect(e.consumer);
        const LayoutRect &from = *layout.rect(e.tensor.node);
        // The arrow ends on the consumer and the spline near it; producers sit above consumers.
        QVERIFY2(distanceTo(to, s->arrowTip()) < 2.0, g->key(e.consumer).c_str());
        QVERIFY(distanceTo(to, s->points().back()) < 12.0);
        QVERIFY(distanceTo(from, s->points().front()) < 2.0);
        QVERIFY2(from.centerY() < to.centerY(), g->key(e.consumer).c_str());
    }
    // No two nodes overlap.
    std::vector<LayoutRect> rects;
    for (const auto &[id, rect] : layout.nodes)
        rects.push_back(rect);
    for (std::size_t i = 0; i < rects.size(); ++i)
        for (std::size_t j = i + 1; j < rects.size(); ++j) {
            const bool apart = rects[i].right() <= rects[j].x + 0.5
                || rects[j].right() <= rects[i].x + 0.5 || rects[i].bottom() <= rects[j].y + 0.5
                || rects[j].bottom() <= rects[i].y + 0.5;
            QVERIFY(apart);
        }
}

void TestLayout::cacheHitReturnsIdenticalLayout()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto g = loadSample("resnet18.relay");
    const LayoutGraph lg = buildLayoutGraph(*g, g->mainFunction());
    LayoutCache cache(dir.path().toStdString());
    const LayoutResult first = computeLayoutCached(&cache, g->checksum(), lg);
    QVERIFY(first.isOk());
    QVERIFY(!first.fromCache);
    const LayoutResult second = computeLayoutCached(&cache, g->checksum(), lg);
    QVERIFY(second.fromCache);
    QCOMPARE(second.layout.get(), first.layout.get()); // the same object, from memory
    QVERIFY(QFileInfo::exists(
        QString::fromStdString(cache.pathFor(layoutCacheKey(g->checksum(), lg)))));

    // The UI thread's lookups answer from memory only: the stored layout itself, and a prefix
    // check that needs no fingerprint (another model, or another node count, holds nothing).
    const std::string stored = layoutCacheKey(g->checksum(), lg);
    QCOMPARE(cache.findInMemory(stored).get(), first.layout.get());
    QVERIFY(cache.holdsInMemory(LayoutCache::keyPrefixFor(g->checksum(), lg)));
    QVERIFY(stored.starts_with(LayoutCache::keyPrefixFor(g->checksum(), lg)));
    QVERIFY(!cache.holdsInMemory(LayoutCache::keyPrefixFor("other-model", lg)));
    LayoutGraph smaller = lg;
    smaller.nodes.pop_back();
    QVERIFY(!cache.holdsInMemory(LayoutCache::keyPrefixFor(g->checksum(), smaller)));

    // A new cache over the same directory (the editor reopened) reads it back from disk.
    LayoutCache reopened(dir.path().toStdString());
    QVERIFY(reopened.findInMemory(stored) == nullptr); // on disk only: not read by that lookup
    QVERIFY(!reopened.holdsInMemory(LayoutCache::keyPrefixFor(g->checksum(), lg)));
    const LayoutResult third = computeLayoutCached(&reopened, g->checksum(), lg);
    QVERIFY(third.fromCache);
    QVERIFY(*third.layout == *first.layout);

    // Another function or model misses.
    QVERIFY(reopened.find(LayoutCache::keyFor("other-model", lg)) == nullptr);
    // A corrupt file is a miss, not a crash.
    const std::string key = LayoutCache::keyFor("corrupt", lg);
    {
        QFile f(QString::fromStdString(reopened.pathFor(key)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"version\":1,\"nodes\":[[1,2");
    }
    QVERIFY(reopened.find(key) == nullptr);
}

void TestLayout::drawnGraphFromAGivenView()
{
    // x -> %0 = relu(x) -> %1 = tanh(%0) -> %2 = add(%0, %1): four boxes, four edges by consumer
    // in input order: x->%0, %0->%1, %0->%2, %1->%2. A plan's view gives the same drawn graph.
    test::GraphBuilder b;
    const NodeId x = b.input("x", { 1, 8 });
    const NodeId relu = b.op("nn.relu", { x }, { 1, 8 });
    const NodeId tanh = b.op("tanh", { relu }, { 1, 8 });
    const NodeId add = b.op("add", { relu, tanh }, { 1, 8 });
    auto g = b.finish(add);
    const FunctionView view(*g, g->mainFunction());
    const LayoutGraph lg = buildLayoutGraph(view);
    QCOMPARE(lg.function, g->mainFunction());
    QCOMPARE(lg.nodes.size(), std::size_t(4));
    QCOMPARE(lg.nodes[0].id, x);
    QCOMPARE(lg.nodes[3].id, add);
    QCOMPARE(lg.edges.size(), std::size_t(4));
    const std::vector<std::pair<std::uint32_t, std::uint32_t>> expected {
        { 0, 1 }, { 1, 2 }, { 1, 3 }, { 2, 3 }
    };
    for (std::size_t e = 0; e < expected.size(); ++e) {
        QCOMPARE(lg.edges[e].from, expected[e].first);
        QCOMPARE(lg.edges[e].to, expected[e].second);
    }
    QCOMPARE(lg.fingerprint(), buildLayoutGraph(*g, g->mainFunction()).fingerprint());
}

void TestLayout::oldVersionCacheFileIsLaidOutAgain()
{
    const test::ThreeNodeColumn column = test::threeNodeColumn();
    const auto &[g, x, relu, tanh] = column;
    const LayoutGraph lg = buildLayoutGraph(*g, g->mainFunction());
    QCOMPARE(lg.nodes.size(), std::size_t(3));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string modelKey = "old-cache";
    const std::string key = layoutCacheKey(modelKey, lg);
    LayoutCache cache(dir.path().toStdString());

    // A file of format version 2 (64-bit coordinates, no point total) at the key's path,
    // holding a layout the engine would never draw (every box at x = 999), written by the
    // rules of that version: magic, version, engine, bbox, nodes (id and four doubles each),
    // no edges.
    const std::string old = version2Bytes(lg);
    QCOMPARE(old.size(), std::size_t(4 + 4 + 4 + 3 + 32 + 4 + 3 * 36 + 4));
    Layout parsed;
    QVERIFY(!layoutFromBinary(old, parsed));
    // The same bytes with version 3 in the version field are not a layout of version 3 either
    // (no point total, eight bytes a coordinate): refused, never misread.
    std::string relabelled = old;
    relabelled[4] = '\x03';
    QVERIFY(!layoutFromBinary(relabelled, parsed));
    {
        QFile f(QString::fromStdString(cache.pathFor(key)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(old.data(), static_cast<qint64>(old.size())),
                 static_cast<qint64>(old.size()));
    }

    // The file is a miss: the graph is laid out again (none of the planted boxes), and the
    // new layout replaces the file in the current version.
    const LayoutResult r = computeLayoutCached(&cache, modelKey, lg);
    QVERIFY(r.isOk());
    QVERIFY(!r.fromCache);
    QCOMPARE(r.layout->engine, std::string("dot"));
    QCOMPARE(r.layout->nodes.size(), std::size_t(3));
    QCOMPARE(r.layout->edges.size(), std::size_t(2));
    for (const auto &[id, rect] : r.layout->nodes)
        QVERIFY(rect.x != 999.0F);
    // One column: relu below x, tanh below relu.
    QVERIFY(r.layout->rect(relu)->y > r.layout->rect(x)->bottom());
    QVERIFY(r.layout->rect(tanh)->y > r.layout->rect(relu)->bottom());
    QFile rewritten(QString::fromStdString(cache.pathFor(key)));
    QVERIFY(rewritten.open(QIODevice::ReadOnly));
    const QByteArray bytes = rewritten.readAll();
    QCOMPARE(bytes.mid(0, 8), QByteArray("CLVL\x03\0\0\0", 8));
    LayoutCache reopened(dir.path().toStdString());
    const LayoutResult again = computeLayoutCached(&reopened, modelKey, lg);
    QVERIFY(again.fromCache);
    QVERIFY(*again.layout == *r.layout);
}

void TestLayout::cancelFlagIsHonoured()
{
    auto g = loadSample("resnet18.relay");
    const LayoutGraph lg = buildLayoutGraph(*g, g->mainFunction());
    std::atomic<bool> cancel { true };
    LayoutControl control;
    control.cancel = &cancel;
    LayoutResult r = computeLayout(lg, {}, control);
    QCOMPARE(r.status, LayoutResult::Status::Cancelled);
    QVERIFY(r.layout == nullptr);

    // Cancelled while dot runs: noticed when the phase ends.
    cancel = false;
    QStringList phases;
    control.progress = [&](int, const std::string &phase) {
        phases << QString::fromStdString(phase);
        if (phase == "layout")
            cancel = true;
    };
    r = computeLayout(lg, {}, control);
    QCOMPARE(r.status, LayoutResult::Status::Cancelled);
    QCOMPARE(phases.last(), QStringLiteral("layout"));

    // Not cancelled: every phase is reported, ending at 100 %.
    cancel = false;
    phases.clear();
    int last = 0;
    control.progress = [&](int percent, const std::string &phase) {
        phases << QString::fromStdString(phase);
        last = percent;
    };
    r = computeLayout(lg, {}, control);
    QVERIFY(r.isOk());
    QVERIFY(phases.contains(QStringLiteral("build graph")));
    QVERIFY(phases.contains(QStringLiteral("layout")));
    QVERIFY(phases.contains(QStringLiteral("read back")));
    QCOMPARE(last, 100);
}

void TestLayout::widelySharedInputBecomesStubs()
{
    test::GraphBuilder b;
    const NodeId x = b.input("x", { 1, 8 });
    const NodeId mask = b.input("mask", { 1, 8 });
    NodeId v = x;
    for (int i = 0; i < 10; ++i)
        v = b.op("add", { v, mask }, { 1, 8 });
    auto g = b.finish(v);
    const LayoutGraph lg = buildLayoutGraph(*g, g->mainFunction());
    QCOMPARE(lg.edges.size(), std::size_t(20));
    std::size_t stubs = 0;
    for (const LayoutGraph::Edge &e : lg.edges)
        stubs += e.stub ? 1 : 0;
    QCOMPARE(stubs, std::size_t(10));
    for (const QString &engine : { QStringLiteral("dot"), QStringLiteral("dot-order") }) {
        LayoutSettings settings;
        settings.engine = engine.toStdString();
        const LayoutResult r = computeLayout(lg, settings);
        QVERIFY(r.isOk());
        for (const LayoutGraph::Edge &e : lg.edges) {
            const std::optional<LayoutSpline> s = r.layout->spline(e.tensor, e.consumer);
            QVERIFY(s.has_value());
            QCOMPARE(s->stub(), e.stub);
            QVERIFY(distanceTo(*r.layout->rect(e.consumer), s->arrowTip()) < 2.0);
        }
    }
}

void TestLayout::jsonRoundTrip()
{
    auto g = loadSample("inception_block.relay");
    const LayoutResult r = computeLayout(buildLayoutGraph(*g, g->mainFunction()));
    QVERIFY(r.isOk());
    Layout back;
    QVERIFY(layoutFromJson(layoutToJson(*r.layout), back));
    QVERIFY(back == *r.layout);
    QVERIFY(!layoutFromJson("[1,2,3]", back));
    QVERIFY(!layoutFromJson("not json", back));

    // A smallest valid document (one node, one two-point edge), then the same with one value
    // replaced by what nlohmann::json's get<>() would convert with undefined behaviour (a float
    // or a negative number as an id, an id over 32 bits, a huge float as the version) or by a
    // non-finite coordinate: each is refused, not read.
    const std::string valid
        = R"({"version":1,"engine":"dot","bbox":[0,0,10,10],)"
          R"("nodes":[[7,0,0,10,10]],"edges":[[7,0,7,[0,0,5,5],true,5,5,false]]})";
    QVERIFY(layoutFromJson(valid, back));
    QCOMPARE(back.nodes.size(), std::size_t(1));
    QCOMPARE(back.nodes.begin()->first, NodeId(7U));
    QCOMPARE(back.edges.spline(0).points().size(), std::size_t(2));
    const std::pair<std::string, std::string> attacks[] = {
        { R"("version":1,)", R"("version":2e114,)" },
        { R"([[7,0,0,10,10]])", R"([[7.5,0,0,10,10]])" },
        { R"([[7,0,0,10,10]])", R"([[-7,0,0,10,10]])" },
        { R"([[7,0,0,10,10]])", R"([[4294967296,0,0,10,10]])" },
        { R"([[7,0,0,10,10]])", R"([[7,1e999,0,10,10]])" },
        { R"([[7,0,7,)", R"([[7,2e114,7,)" },
        { R"([0,0,5,5])", R"([0,0,5,"5"])" },
        { R"([0,0,5,5])", R"(7)" },
    };
    for (const auto &[from, to] : attacks) {
        std::string text = valid;
        const std::size_t at = text.find(from);
        QVERIFY(at != std::string::npos);
        text.replace(at, from.size(), to);
        QVERIFY2(!layoutFromJson(text, back), text.c_str());
    }
}

void TestLayout::everyFunctionOfEverySample()
{
    // Every function (globals, fused literals, if/match scopes) of every sample lays out: one
    // rectangle per drawn node, one arrow-ended spline per drawn edge.
    const QStringList files
        = QDir(QStringLiteral(CLEAVE_SAMPLES_DIR))
              .entryList({ QStringLiteral("*.relay"), QStringLiteral("*.onnx") }, QDir::Files);
    QVERIFY(files.size() >= 5);
    std::size_t functions = 0;
    for (const QString &file : files) {
        ImportResult imported
            = importFile(QDir(QStringLiteral(CLEAVE_SAMPLES_DIR)).filePath(file).toStdString());
        QVERIFY2(imported.ok(), qPrintable(file));
        const Graph &g = *imported.graph;
        for (std::size_t f = 0; f < g.functionCount(); ++f) {
            const LayoutGraph lg = buildLayoutGraph(g, FunctionId(f));
            const LayoutResult r = computeLayout(lg);
            QVERIFY2(r.isOk(), qPrintable(file));
            QCOMPARE(r.layout->nodes.size(), lg.nodes.size());
            QCOMPARE(r.layout->edges.size(), lg.edges.size());
            for (const auto &[key, spline] : r.layout->edges)
                QVERIFY(spline.hasArrow() && spline.points().size() >= 4);
            ++functions;
        }
    }
    QVERIFY(functions > static_cast<std::size_t>(
                files.size())); // the fused samples have functions besides @main
}

QTEST_APPLESS_MAIN(TestLayout)
#include "tst_layout.moc"
