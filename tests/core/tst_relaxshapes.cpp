// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Shape inference for Relax modules printed without binding annotations: every operator family
// of a transformer and a CNN on a hand-written module (expected shapes derived by hand from the
// operators' definitions), and the corpus ResNet-18 and SAM modules with their annotations
// stripped, whose inferred types must equal the ones TVM printed.
#include "TestSupport.h"
#include "core/formats/FormatRegistry.h"

#include <QFile>
#include <QtTest/QtTest>

using namespace cleave;

namespace {

const char *const allFamilies = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32"), w: R.Tensor((4, 5), dtype="float32"), v: R.Tensor((4,), dtype="float32"), img: R.Tensor((1, 3, 32, 32), dtype="float32"), k: R.Tensor((8, 3, 3, 3), dtype="float32"), nhwc: R.Tensor((1, 32, 32, 3), dtype="float32"), kh: R.Tensor((3, 3, 3, 8), dtype="float32"), g: R.Tensor((4,), dtype="float32"), b: R.Tensor((4,), dtype="float32"), idx: R.Tensor((5,), dtype="int64")) -> R.Tensor((2, 3, 5), dtype="float32"):
        with R.dataflow():
            mm = R.matmul(x, w)
            mv = R.matmul(x, v)
            vm = R.matmul(v, w)
            xt = R.permute_dims(x, axes=[0, 2, 1])
            bmm = R.matmul(x, xt)
            r1 = R.reshape(x, R.shape([6, 4]))
            r2 = R.reshape(x, R.shape([-1, 2]))
            e = R.expand_dims(x, axis=[0, -1])
            sq = R.squeeze(e, axis=[0])
            c = R.concat((x, x), axis=1)
            sp = R.split(x, indices_or_sections=2, axis=2)
            sp1 = sp[1]
            ss = R.strided_slice(x, axes=[2], begin=[1], end=[3])
            tk = R.take(w, idx, axis=0)
            sm = R.nn.softmax(x, axis=-1)
            ln = R.nn.layer_norm(x, g, b, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)
            ad = R.add(x, v)
            mn = R.mean(x, axis=[1], keepdims=True)
            su = R.sum(x, axis=[0, 2], keepdims=False)
            cv = R.nn.conv2d(img, k, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW")
            cvh = R.nn.conv2d(nhwc, kh, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NHWC", kernel_layout="HWIO", out_layout="NHWC")
            mp = R.nn.max_pool2d(cv, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, layout="NCHW", out_layout="NCHW")
            ap = R.nn.adaptive_avg_pool2d(cv, output_size=[1, 1], layout="NCHW", out_layout="NCHW")
            ct = R.astype(x, dtype="float16")
            es = R.einsum((x, w), subscripts="bij,jk->bik")
            pd = R.nn.pad(img, pad_width=[0, 0, 0, 0, 1, 2, 3, 4], pad_mode="constant")
            tl = R.tile(v, repeats=[2, 3])
            cs = R.cumsum(x, axis=1)
            cf = R.cumsum(x)
            z = R.zeros(R.shape([2, 2]), dtype="int32")
            bt = R.broadcast_to(v, R.shape([3, 4]))
            nz = R.nonzero(x)
            gv = R.add(mm, es)
            R.output(gv)
        return gv
)";

/// The module text with every binding annotation removed (`lv: R.Tensor(...) = value` →
/// `lv = value`), as a module printed without struct info reads; parameters keep their types.
std::string stripAnnotations(const std::string &text)
{
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::string line = text.substr(start, end - start);
        const std::size_t indent = line.find_first_not_of(' ');
        const std::size_t colon = line.find(": R.");
        if (indent != std::string::npos && indent > 0 && colon != std::string::npos
            && line.compare(indent, 4, "def ") != 0) {
            const std::string name = line.substr(indent, colon - indent);
            const bool isName = !name.empty()
                && name.find_first_not_of(
                       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
                    == std::string::npos;
            int depth = 0;
            for (std::size_t i = colon + 2; isName && i + 2 < line.size(); ++i) {
                const char c = line[i];
                depth += (c == '(' || c == '[') ? 1 : (c == ')' || c == ']') ? -1 : 0;
                if (depth == 0 && line.compare(i, 3, " = ") == 0) {
                    line = line.substr(0, colon) + line.substr(i);
                    break;
                }
            }
        }
        out += line;
        out += '\n';
        start = end + 1;
    }
    return out;
}

std::unique_ptr<Graph> importOrFail(const std::string &text, const std::string &name)
{
    ImportResult r = importBytes(text, name);
    if (!r.ok())
        qWarning("%s: %s", name.c_str(), r.firstError().c_str());
    return r.ok() ? std::move(r.graph) : nullptr;
}

bool fullyKnown(const Type &t)
{
    if (t.isTensor()) {
        for (const Dim &d : t.shape) {
            if (!d.isKnown())
                return false;
        }
        return true;
    }
    if (!t.isTuple())
        return false;
    for (const Type &f : t.fields) {
        if (!fullyKnown(f))
            return false;
    }
    return true;
}

} // namespace

class TestRelaxShapes : public QObject
{
    Q_OBJECT

private slots:
    void families_data();
    void families();
    void corpusWithoutAnnotations_data();
    void corpusWithoutAnnotations();
};

void TestRelaxShapes::families_data()
{
    QTest::addColumn<QString>("binding");
    QTest::addColumn<QString>("type");
    // x (2, 3, 4), w (4, 5), v (4,), img (1, 3, 32, 32), k (8, 3, 3, 3), nhwc (1, 32, 32, 3),
    // kh (3, 3, 3, 8) HWIO, idx (5,) int64.
    const QList<QPair<const char *, const char *>> rows {
        { "mm", "Tensor[(2, 3, 5), float32]" }, // batch (2), rows 3, w's 5 columns
        { "mv", "Tensor[(2, 3), float32]" }, // 1-D right operand: its unit column dropped
        { "vm", "Tensor[(5), float32]" }, // 1-D left operand: its unit row dropped
        { "xt", "Tensor[(2, 4, 3), float32]" }, // axes [0, 2, 1]
        { "bmm", "Tensor[(2, 3, 3), float32]" }, // (2, 3, 4) @ (2, 4, 3)
        { "r1", "Tensor[(6, 4), float32]" },
        { "r2", "Tensor[(12, 2), float32]" }, // 24 elements / 2
        { "e", "Tensor[(1, 2, 3, 4, 1), float32]" }, // new axes 0 and -1 of rank 5
        { "sq", "Tensor[(2, 3, 4, 1), float32]" },
        { "c", "Tensor[(2, 6, 4), float32]" }, // 3 + 3 on axis 1
        { "sp", "(Tensor[(2, 3, 2), float32], Tensor[(2, 3, 2), float32])" }, // 4 / 2 sections
        { "sp1", "Tensor[(2, 3, 2), float32]" },
        { "ss", "Tensor[(2, 3, 2), float32]" }, // axis 2 from 1 to 3
        { "tk", "Tensor[(5, 5), float32]" }, // 5 indices into w's rows, 5 columns each
        { "sm", "Tensor[(2, 3, 4), float32]" },
        { "ln", "Tensor[(2, 3, 4), float32]" },
        { "ad", "Tensor[(2, 3, 4), float32]" }, // (4,) broadcast on the last axis
        { "mn", "Tensor[(2, 1, 4), float32]" }, // axis 1 kept as 1
        { "su", "Tensor[(3), float32]" }, // axes 0 and 2 removed
        { "cv", "Tensor[(1, 8, 16, 16), float32]" }, // ⌊(32 + 2 − 3) / 2⌋ + 1 = 16
        { "cvh", "Tensor[(1, 30, 30, 8), float32]" }, // NHWC, HWIO: 32 − 3 + 1 = 30, O = 8
        { "mp", "Tensor[(1, 8, 8, 8), float32]" }, // ⌊(16 − 2) / 2⌋ + 1 = 8
        { "ap", "Tensor[(1, 8, 1, 1), float32]" },
        { "ct", "Tensor[(2, 3, 4), float16]" },
        { "es", "Tensor[(2, 3, 5), float32]" }, // bij,jk->bik
        { "pd", "Tensor[(1, 3, 35, 39), float32]" }, // 32 + 1 + 2, 32 + 3 + 4
        { "tl", "Tensor[(2, 12), float32]" }, // (4,) tiled [2, 3]: (1·2, 4·3)
        { "cs", "Tensor[(2, 3, 4), float32]" },
        { "cf", "Tensor[(24), float32]" }, // no axis: the flattened 2·3·4
        { "z", "Tensor[(2, 2), int32]" },
        { "bt", "Tensor[(3, 4), float32]" },
        // (rank 3, the non-zero count): TVM types it R.Tensor(dtype="int64", ndim=2)
        { "nz", "Tensor[(?, ?), int64]" },
    };
    for (const auto &[binding, type] : rows)
        QTest::newRow(binding) << QString::fromUtf8(binding) << QString::fromUtf8(type);
}

void TestRelaxShapes::families()
{
    QFETCH(QString, binding);
    QFETCH(QString, type);
    static const auto g = importOrFail(allFamilies, "families.relax.py");
    QVERIFY(g);
    const NodeId n = g->findByKey(binding.toStdString());
    QVERIFY2(n.isValid(), qPrintable(binding));
    QCOMPARE(QString::fromStdString(g->node(n).outputType().toRelay()), type);
}

void TestRelaxShapes::corpusWithoutAnnotations_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("withoutShapes");
    QTest::addColumn<int>("minimumCompared");
    QTest::newRow("resnet18") << "resnet18_onnx_adreno-texture_tvm-v0.26.relax.py" << 0 << 52;
    // SAM: one op stays unknown: R.null_value is an object, not a tensor. (R.not_equal reads a
    // metadata constant, whose type, (1,) int32, the header gives.)
    QTest::newRow("sam") << "sam-vit-b_pytorch_cutlass-test_2023.relax.py" << 1 << 2000;
}

void TestRelaxShapes::corpusWithoutAnnotations()
{
    QFETCH(QString, file);
    QFETCH(int, withoutShapes);
    QFETCH(int, minimumCompared);
    QFile f(test::corpusDir("relax").filePath(file));
    if (!f.open(QIODevice::ReadOnly))
        QSKIP("the Relax corpus is not available");
    const std::string text = f.readAll().toStdString();
    const auto annotated = importOrFail(text, file.toStdString());
    const std::string stripped = stripAnnotations(text);
    QVERIFY(stripped != text);
    const auto bare = importOrFail(stripped, file.toStdString());
    QVERIFY(annotated && bare);
    int compared = 0;
    int unknown = 0;
    for (std::size_t i = 0; i < bare->nodeCount(); ++i) {
        const Node &n = bare->node(NodeId(i));
        if (n.kind != NodeKind::OpCall)
            continue;
        if (!fullyKnown(n.outputType())) {
            ++unknown;
            continue;
        }
        const NodeId twin = annotated->findByKey(bare->key(NodeId(i)));
        QVERIFY(twin.isValid());
        const Type &printed = annotated->node(twin).outputType();
        if (!fullyKnown(printed))
            continue;
        ++compared;
        QVERIFY2(n.outputType().toRelay() == printed.toRelay(),
                 (bare->key(NodeId(i)) + " (" + n.op.str() + "): inferred "
                  + n.outputType().toRelay() + ", TVM printed " + printed.toRelay())
                     .c_str());
    }
    QCOMPARE(unknown, withoutShapes);
    QVERIFY2(compared >= minimumCompared, std::to_string(compared).c_str());
}

QTEST_APPLESS_MAIN(TestRelaxShapes)
#include "tst_relaxshapes.moc"
