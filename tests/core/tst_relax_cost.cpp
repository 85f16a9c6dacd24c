// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// FLOPs of Relax operators: TVM prints them as `relax.<relay name>` (or a Relax-only name such as
// relax.matmul / relax.astype), and they must cost what the same Relay operator costs. Every
// expected value below is derived by hand from the shapes in the module.
#include "core/analysis/Cost.h"
#include "core/formats/FormatRegistry.h"
#include "core/graph/Graph.h"

#include <QtTest/QtTest>

#include <memory>
#include <string>

using namespace cleave;

namespace {

const char *const module = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def conv_relu(d: R.Tensor((1, 8, 16, 16), dtype="float32"), k: R.Tensor((8, 8, 3, 3), dtype="float32")) -> R.Tensor((1, 8, 16, 16), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((1, 8, 16, 16), dtype="float32") = R.nn.conv2d(d, k, padding=[1, 1, 1, 1])
            z: R.Tensor((1, 8, 16, 16), dtype="float32") = R.nn.relu(y)
            R.output(z)
        return z

    @R.function
    def main(x: R.Tensor((1, 8, 16, 16), dtype="float32"), w: R.Tensor((8, 8, 3, 3), dtype="float32"), a: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((3, 4), dtype="float32"), q: R.Tensor((4, 6, 5), dtype="float32"), r: R.Tensor((4, 5, 7), dtype="float32")) -> R.Tuple(R.Tensor((1, 8, 8, 8), dtype="float32"), R.Tensor((2, 4), dtype="float16"), R.Tensor((4, 7, 6), dtype="float32"), R.Tensor((1, 8, 16, 16), dtype="float32")):
        cls = Module
        with R.dataflow():
            c: R.Tensor((1, 8, 16, 16), dtype="float32") = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            h: R.Tensor((1, 8, 16, 16), dtype="float32") = R.nn.relu(c)
            p: R.Tensor((1, 8, 8, 8), dtype="float32") = R.nn.max_pool2d(h, pool_size=[2, 2], strides=[2, 2])
            m: R.Tensor((2, 4), dtype="float32") = R.matmul(a, b)
            t: R.Tensor((2, 4), dtype="float16") = R.astype(m, dtype="float16")
            bm: R.Tensor((4, 6, 7), dtype="float32") = R.matmul(q, r)
            tr: R.Tensor((4, 7, 6), dtype="float32") = R.permute_dims(bm, axes=[0, 2, 1])
            f: R.Tensor((1, 8, 16, 16), dtype="float32") = cls.conv_relu(x, w)
            gv: R.Tuple(R.Tensor((1, 8, 8, 8), dtype="float32"), R.Tensor((2, 4), dtype="float16"), R.Tensor((4, 7, 6), dtype="float32"), R.Tensor((1, 8, 16, 16), dtype="float32")) = (p, t, tr, f)
            R.output(gv)
        return gv
)";

} // namespace

class TestRelaxCost : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        ImportResult r = importBytes(module, "cost.relax.py");
        QVERIFY2(r.ok(), r.ok() ? "" : r.firstError().c_str());
        m_graph = std::move(r.graph);
    }

    void flops_data()
    {
        QTest::addColumn<QString>("binding");
        QTest::addColumn<qlonglong>("flops");
        // conv2d: 2 · (1·8·16·16 outputs) · (8 input channels · 3 · 3 window) = 2 · 2048 · 72.
        QTest::newRow("relax.nn.conv2d") << "c" << 294912LL;
        // relu: one per output element, 1·8·16·16.
        QTest::newRow("relax.nn.relu") << "h" << 2048LL;
        // max_pool2d: (1·8·8·8 outputs) · (2·2 window).
        QTest::newRow("relax.nn.max_pool2d") << "p" << 2048LL;
        // matmul (2,3)·(3,4): 2 · 8 outputs · K=3.
        QTest::newRow("relax.matmul") << "m" << 48LL;
        // astype is Relay's cast: one per element, 2·4.
        QTest::newRow("relax.astype") << "t" << 8LL;
        // batched matmul (4,6,5)·(4,5,7): 2 · (4·6·7 = 168 outputs) · K=5.
        QTest::newRow("relax.matmul batched") << "bm" << 1680LL;
        // permute_dims moves data and computes nothing.
        QTest::newRow("relax.permute_dims") << "tr" << 0LL;
        // A call of a module function costs its body: conv2d 294,912 + relu 2,048.
        QTest::newRow("cls.conv_relu") << "f" << 296960LL;
    }

    void flops()
    {
        QFETCH(QString, binding);
        QFETCH(qlonglong, flops);
        const FunctionId mainFn = m_graph->findFunction("main");
        QVERIFY(mainFn.isValid());
        NodeId found;
        for (NodeId id : m_graph->function(mainFn).nodes) {
            if (m_graph->node(id).name == binding.toStdString())
                found = id;
        }
        QVERIFY2(found.isValid(), qPrintable(binding));
        QCOMPARE(static_cast<qlonglong>(nodeFlops(*m_graph, found)), flops);
    }

private:
    std::unique_ptr<Graph> m_graph;
};

QTEST_APPLESS_MAIN(TestRelaxCost)
#include "tst_relax_cost.moc"
