// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Shape/type inference for untyped models: every operator rule on small graphs built through the
// Graph API, then the graph walk (tuples, constants, calls, branches, reporting).
#include "core/analysis/OpShapeRules.h"
#include "core/analysis/ShapeInference.h"
#include "core/graph/Graph.h"

#include <QTest>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

using namespace cleave;

namespace {

// --- a compact notation for types and attributes in data tables -------------------------------
// Types:  "1x3x224x224:float32"  "?x256:float32" ("?" dynamic)  "$nx4:float32" (symbolic "n")
//         ":int64" (scalar)  "(2x3:float32|2x5:float32)" (tuple)  "unknown"
// Inputs additionally accept "#5" (int32 scalar constant), "#2.5f" (float32 scalar constant) and
// "meta" (a `meta[relay.Constant][i]` tensor constant without a type).
// Attributes: "strides=[2,2];padding=[1,1,1,1];data_layout=NHWC;ceil_mode=True;units=None;
//              scale_h=2.0f;pad_width=[[0,0],[1,1]]"

Type parseType(const std::string &text);

std::vector<std::string> splitTopLevel(const std::string &text, char sep)
{
    std::vector<std::string> parts;
    int depth = 0;
    std::string current;
    for (char ch : text) {
        depth += (ch == '(' || ch == '[') ? 1 : (ch == ')' || ch == ']') ? -1 : 0;
        if (ch == sep && depth == 0) {
            parts.push_back(current);
            current.clear();
        } else {
            current.push_back(ch);
        }
    }
    if (!current.empty() || !parts.empty())
        parts.push_back(current);
    return parts;
}

Type parseType(const std::string &text)
{
    if (text == "unknown")
        return Type::unknown();
    if (!text.empty() && text.front() == '(') {
        std::vector<Type> fields;
        for (const std::string &f : splitTopLevel(text.substr(1, text.size() - 2), '|'))
            fields.push_back(parseType(f));
        return Type::tuple(std::move(fields));
    }
    const std::size_t colon = text.find(':');
    const std::string dims = text.substr(0, colon);
    std::vector<Dim> shape;
    if (!dims.empty()) {
        for (const std::string &d : splitTopLevel(dims, 'x')) {
            if (d == "?")
                shape.push_back(Dim::unknown());
            else if (!d.empty() && d.front() == '$')
                shape.push_back(Dim::symbolic(d.substr(1)));
            else
                shape.push_back(Dim::known(std::stoll(d)));
        }
    }
    return Type::tensor(std::move(shape), text.substr(colon + 1));
}

std::string describe(const Type &type)
{
    if (type.isTuple()) {
        std::string s = "(";
        for (std::size_t i = 0; i < type.fields.size(); ++i)
            s += (i ? "|" : "") + describe(type.fields[i]);
        return s + ")";
    }
    if (!type.isTensor())
        return "unknown";
    std::string s;
    for (std::size_t i = 0; i < type.shape.size(); ++i) {
        const Dim &d = type.shape[i];
        s += i ? "x" : "";
        s += d.isKnown() ? std::to_string(d.value) : d.symbol.empty() ? "?" : "$" + d.symbol.str();
    }
    return s + ":" + type.dtype.str();
}

AttrValue parseValue(const std::string &text)
{
    if (text == "None")
        return AttrValue::null();
    if (text == "True" || text == "False")
        return AttrValue::boolean(text == "True");
    if (!text.empty() && text.front() == '[') {
        std::vector<AttrValue> items;
        for (const std::string &item : splitTopLevel(text.substr(1, text.size() - 2), ','))
            items.push_back(parseValue(item));
        return AttrValue::listOf(std::move(items));
    }
    const bool numeric = !text.empty()
        && (std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '-');
    if (numeric && text.back() == 'f')
        return AttrValue::floating(std::stod(text.substr(0, text.size() - 1)));
    if (numeric)
        return AttrValue::integer(std::stoll(text));
    return AttrValue::string(text);
}

Attributes parseAttrs(const std::string &text)
{
    Attributes attrs;
    for (const std::string &item : splitTopLevel(text, ';')) {
        const std::size_t eq = item.find('=');
        attrs.set(item.substr(0, eq), parseValue(item.substr(eq + 1)));
    }
    return attrs;
}

/// Builds graphs node by node; every node starts untyped unless a type is given.
class Builder
{
public:
    Builder()
    {
        Function f;
        f.name = "main";
        m_main = m_graph.addFunction(std::move(f));
    }

    Graph &graph() { return m_graph; }
    [[nodiscard]] FunctionId main() const { return m_main; }

    FunctionId function(Function::Kind kind, const std::string &name, FunctionId parent = {})
    {
        Function f;
        f.kind = kind;
        f.name = name;
        f.parent = parent;
        return m_graph.addFunction(std::move(f));
    }

    NodeId param(FunctionId f, const Type &type)
    {
        Node n;
        n.kind = NodeKind::Input;
        n.function = f;
        n.name = "%p" + std::to_string(m_graph.nodeCount());
        n.setOutputTypes({ type });
        n.typeAnnotated = !type.isUnknown();
        const NodeId id = m_graph.addNode(std::move(n));
        m_graph.function(f).params.push_back(id);
        return id;
    }

    NodeId param(const Type &type) { return param(m_main, type); }

    NodeId scalar(AttrValue value, FunctionId f = {})
    {
        Node n;
        n.kind = NodeKind::Constant;
        n.function = f.isValid() ? f : m_main;
        n.setValue(std::move(value));
        return m_graph.addNode(std::move(n));
    }

    NodeId tensorConstant()
    {
        Node n;
        n.kind = NodeKind::Constant;
        n.function = m_main;
        n.setMetaRef("meta[relay.Constant][" + std::to_string(m_constants++) + "]");
        return m_graph.addNode(std::move(n));
    }

    /// An input from the table notation: a typed parameter, a scalar constant or a tuple.
    NodeId fromSpec(const std::string &spec)
    {
        if (!spec.empty() && spec.front() == '#') {
            const std::string v = spec.substr(1);
            return scalar(v.back() == 'f' ? AttrValue::floating(std::stod(v))
                                          : AttrValue::integer(std::stoll(v)));
        }
        if (spec == "meta")
            return tensorConstant();
        if (!spec.empty() && spec.front() == '(') {
            std::vector<NodeId> fields;
            for (const std::string &f : splitTopLevel(spec.substr(1, spec.size() - 2), '|'))
                fields.push_back(fromSpec(f));
            return node(NodeKind::Tuple, fields);
        }
        return param(parseType(spec));
    }

    NodeId op(const std::string &name, const std::vector<NodeId> &inputs, Attributes attrs = {},
              FunctionId f = {})
    {
        const NodeId id = node(NodeKind::OpCall, inputs, f);
        m_graph.node(id).op = name;
        m_graph.node(id).attrs = std::move(attrs);
        return id;
    }

    NodeId node(NodeKind kind, const std::vector<NodeId> &inputs, FunctionId f = {})
    {
        Node n;
        n.kind = kind;
        n.function = f.isValid() ? f : m_main;
        n.name = "%" + std::to_string(m_graph.nodeCount());
        for (NodeId in : inputs)
            n.inputs.push_back(TensorRef { in, 0 });
        return m_graph.addNode(std::move(n));
    }

    NodeId getItem(NodeId tuple, std::uint32_t index, FunctionId f = {})
    {
        const NodeId id = node(NodeKind::TupleGetItem, { tuple }, f);
        m_graph.node(id).index = index;
        return id;
    }

    NodeId call(FunctionId callee, const std::vector<NodeId> &args, FunctionId f = {})
    {
        const NodeId id = node(NodeKind::FunctionCall, args, f);
        m_graph.node(id).callee = callee;
        return id;
    }

    void finish(NodeId result, FunctionId f = {}, bool finalize = true)
    {
        m_graph.function(f.isValid() ? f : m_main).result = result;
        if (finalize)
            m_graph.finalize();
    }

private:
    Graph m_graph;
    FunctionId m_main;
    int m_constants = 0;
};

QString typeOf(const Graph &g, NodeId id)
{
    return QString::fromStdString(describe(g.node(id).outputType(0)));
}

} // namespace

class TestShapeInference : public QObject
{
    Q_OBJECT

private slots:
    void rules_data();
    void rules();
    void operandTypes_data();
    void operandTypes();
    void everyRuleIsRegistered();
    void resnetStem();
    void annotatedTypesAreKept();
    void unknownsAreReported();
    void scalarConstants();
    void tupleProjection();
    void literalFunctionCall();
    void beforeFinalize();
    void declaredReturnType();
    void globalCalleeInferredFirst();
    void closureCall();
    void ifBranches();
    void constructors();
    void secondRunChangesNothing();
};

void TestShapeInference::rules_data()
{
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("inputs");
    QTest::addColumn<QString>("attrs");
    QTest::addColumn<QString>("expected");

    auto row = [](const char *name, const char *op, const char *inputs, const char *attrs,
                  const char *expected) {
        QTest::newRow(name) << QString::fromUtf8(op) << QString::fromUtf8(inputs)
                            << QString::fromUtf8(attrs) << QString::fromUtf8(expected);
    };

    // convolutions
    row("conv2d stem", "nn.conv2d", "1x3x224x224:float32;64x3x7x7:float32",
        "strides=[2,2];padding=[3,3,3,3]", "1x64x112x112:float32");
    row("conv2d attrs only", "nn.conv2d", "1x3x224x224:float32;unknown",
        "strides=[2,2];padding=[3,3,3,3];channels=64;kernel_size=[7,7]", "1x64x112x112:float32");
    row("conv2d NHWC HWIO", "nn.conv2d", "1x224x224x3:float32;7x7x3x64:float32",
        "strides=[2,2];padding=[3,3];data_layout=NHWC;kernel_layout=HWIO", "1x112x112x64:float32");
    row("conv2d depthwise", "nn.conv2d", "1x32x112x112:float32;32x1x3x3:float32",
        "padding=[1,1,1,1];groups=32;channels=32;kernel_size=[3,3]", "1x32x112x112:float32");
    row("conv2d dilation", "nn.conv2d", "1x8x32x32:float32;16x8x3x3:float32", "dilation=[2,2]",
        "1x16x28x28:float32");
    row("conv2d one padding value", "nn.conv2d", "1x64x56x56:float32;64x64x3x3:float32",
        "padding=[1]", "1x64x56x56:float32");
    row("conv2d asymmetric padding", "nn.conv2d", "1x3x10x10:float32;4x3x3x3:float32",
        "padding=[0,0,1,1]", "1x4x9x9:float32");
    row("conv2d out_dtype", "nn.conv2d", "1x3x8x8:int8;4x3x1x1:int8", "out_dtype=int32",
        "1x4x8x8:int32");
    row("conv2d empty out_dtype", "nn.conv2d", "1x3x8x8:float16;4x3x1x1:float16",
        "out_dtype=", "1x4x8x8:float16");
    row("conv2d out_layout", "nn.conv2d", "1x3x224x224:float32;64x3x7x7:float32",
        "strides=[2,2];padding=[3,3,3,3];out_layout=NHWC", "1x112x112x64:float32");
    row("conv2d dynamic batch", "nn.conv2d", "?x3x224x224:float32;64x3x7x7:float32",
        "strides=[2,2];padding=[3,3,3,3]", "?x64x112x112:float32");
    row("conv2d symbolic batch", "nn.conv2d", "$nx3x224x224:float32;64x3x7x7:float32",
        "strides=[2,2];padding=[3,3,3,3]", "$nx64x112x112:float32");
    row("conv2d unknown height", "nn.conv2d", "1x3x?x224:float32;64x3x7x7:float32",
        "strides=[2,2];padding=[3,3,3,3]", "1x64x?x112:float32");
    row("conv2d NCHW16c", "nn.conv2d", "1x4x56x56x16:float32;4x4x3x3x16x16:float32",
        "padding=[1,1];data_layout=NCHW16c;kernel_layout=OIHW16i16o", "1x4x56x56x16:float32");
    row("conv2d no weight type", "nn.conv2d", "1x3x224x224:float32;unknown", "strides=[2,2]",
        "unknown");
    row("conv2d unknown data", "nn.conv2d", "unknown;64x3x7x7:float32", "", "unknown");
    row("conv1d", "nn.conv1d", "1x16x100:float32;32x16x5:float32", "strides=[2];padding=[2,2]",
        "1x32x50:float32");
    row("conv3d", "nn.conv3d", "1x4x16x32x32:float32;8x4x3x3x3:float32", "padding=[1,1,1]",
        "1x8x16x32x32:float32");
    row("conv2d_transpose", "nn.conv2d_transpose", "1x64x28x28:float32;64x32x4x4:float32",
        "strides=[2,2];padding=[1,1,1,1]", "1x32x56x56:float32");
    row("conv2d_transpose output_padding", "nn.conv2d_transpose",
        "1x64x28x28:float32;64x32x3x3:float32",
        "strides=[2,2];padding=[1,1,1,1];output_padding=[1,1]", "1x32x56x56:float32");
    row("conv2d_transpose channels attr", "nn.conv2d_transpose", "1x16x7x7:float32;unknown",
        "channels=8;kernel_size=[3,3]", "1x8x9x9:float32");

    // dense, matmul, batch_matmul
    row("dense", "nn.dense", "8x256:float32;1000x256:float32", "units=None", "8x1000:float32");
    row("dense 3d data", "nn.dense", "4x10x256:float32;1000x256:float32", "", "4x10x1000:float32");
    row("dense units", "nn.dense", "8x256:float32;unknown", "units=1000", "8x1000:float32");
    row("dense out_dtype", "nn.dense", "8x256:int8;10x256:int8", "out_dtype=int32", "8x10:int32");
    row("matmul", "nn.matmul", "8x256:float32;256x100:float32", "", "8x100:float32");
    row("matmul transpose_a", "nn.matmul", "256x8:float32;256x100:float32", "transpose_a=True",
        "8x100:float32");
    row("matmul transpose_b", "nn.matmul", "8x256:float32;100x256:float32", "transpose_b=True",
        "8x100:float32");
    row("batch_matmul", "nn.batch_matmul", "12x20x64:float32;12x30x64:float32", "",
        "12x20x30:float32");
    row("batch_matmul no transpose_b", "nn.batch_matmul", "12x20x64:float32;12x64x30:float32",
        "transpose_b=False", "12x20x30:float32");
    row("batch_matmul transpose_a", "nn.batch_matmul", "12x64x20:float32;12x30x64:float32",
        "transpose_a=True", "12x20x30:float32");
    row("batch_matmul broadcast batch", "nn.batch_matmul", "1x20x64:float32;12x30x64:float32", "",
        "12x20x30:float32");
    row("batch_matmul dynamic", "nn.batch_matmul", "?x20x64:float32;?x30x64:float32", "",
        "?x20x30:float32");
    row("batch_matmul rank 2", "nn.batch_matmul", "20x64:float32;30x64:float32", "", "unknown");

    // pooling
    row("max_pool2d", "nn.max_pool2d", "1x64x112x112:float32",
        "pool_size=[3,3];strides=[2,2];padding=[1,1,1,1]", "1x64x56x56:float32");
    row("max_pool2d floor", "nn.max_pool2d", "1x64x112x112:float32",
        "pool_size=[3,3];strides=[2,2]", "1x64x55x55:float32");
    row("max_pool2d ceil_mode", "nn.max_pool2d", "1x64x112x112:float32",
        "pool_size=[3,3];strides=[2,2];ceil_mode=True", "1x64x56x56:float32");
    row("avg_pool2d NHWC", "nn.avg_pool2d", "1x56x56x64:float32",
        "pool_size=[2,2];strides=[2,2];layout=NHWC", "1x28x28x64:float32");
    row("avg_pool2d dilation", "nn.avg_pool2d", "1x1x10x10:float32",
        "pool_size=[3,3];dilation=[2,2]", "1x1x6x6:float32");
    row("max_pool1d", "nn.max_pool1d", "1x8x100:float32", "pool_size=[3];strides=[2]",
        "1x8x49:float32");
    row("max_pool3d", "nn.max_pool3d", "1x2x8x8x8:float32", "pool_size=[2,2,2];strides=[2,2,2]",
        "1x2x4x4x4:float32");
    row("global_avg_pool2d", "nn.global_avg_pool2d", "1x2048x7x7:float32", "",
        "1x2048x1x1:float32");
    row("global_max_pool2d NHWC", "nn.global_max_pool2d", "1x7x7x2048:float32", "layout=NHWC",
        "1x1x1x2048:float32");
    row("adaptive_avg_pool2d", "nn.adaptive_avg_pool2d", "1x512x14x14:float32", "output_size=[7,7]",
        "1x512x7x7:float32");
    row("adaptive_avg_pool2d single", "nn.adaptive_avg_pool2d", "1x512x14x14:float32",
        "output_size=[1]", "1x512x1x1:float32");
    row("adaptive_avg_pool2d None item", "nn.adaptive_avg_pool2d", "1x512x14x14:float32",
        "output_size=[None,3]", "1x512x14x3:float32");

    // reshape and friends
    row("reshape -3", "reshape", "2x3x4:float32", "newshape=[-3,4]", "6x4:float32");
    row("reshape -4 -2", "reshape", "2x3x4:float32", "newshape=[-4,1,2,-2]", "1x2x3x4:float32");
    row("reshape -1 alone", "reshape", "2x3x4:float32", "newshape=[-1]", "24:float32");
    row("reshape -1 last", "reshape", "2x3x4:float32", "newshape=[6,1,-1]", "6x1x4:float32");
    row("reshape -1 middle", "reshape", "2x3x4:float32", "newshape=[3,-1,8]", "3x1x8:float32");
    row("reshape 0", "reshape", "2x3x4:float32", "newshape=[4,0,2]", "4x3x2:float32");
    row("reshape 0 -1", "reshape", "2x3x4:float32", "newshape=[0,-1]", "2x12:float32");
    row("reshape -4 with -1", "reshape", "2x3x4:float32", "newshape=[2,-4,-1,3,-2]",
        "2x1x3x4:float32");
    row("reshape -2 tail", "reshape", "2x3x4:float32", "newshape=[-2,1,1]", "2x3x4x1x1:float32");
    row("reshape -3 -3", "reshape", "2x3x4x5:float32", "newshape=[-3,-3]", "6x20:float32");
    row("reshape dynamic copied", "reshape", "?x3x4:float32", "newshape=[0,-1]", "?x12:float32");
    row("reshape dynamic inferred", "reshape", "?x256:float32", "newshape=[-1,16,16]",
        "?x16x16:float32");
    row("reshape symbolic copied", "reshape", "$bx3x4:float32", "newshape=[0,12]", "$bx12:float32");
    row("reshape transformer", "reshape", "20x32x256:float32", "newshape=[-1,256]",
        "640x256:float32");
    row("reshape_like", "reshape_like", "2x3x4:float32;6x4:int32", "", "6x4:float32");
    row("transpose", "transpose", "2x3x4:float32", "axes=[1,0,2]", "3x2x4:float32");
    row("transpose default", "transpose", "2x3x4:float32", "", "4x3x2:float32");
    row("transpose negative", "transpose", "2x3x4:float32", "axes=[-1,0,1]", "4x2x3:float32");
    row("transpose bad axes", "transpose", "2x3x4:float32", "axes=[0,0,1]", "unknown");
    row("concatenate", "concatenate", "(1x64x56x56:float32|1x32x56x56:float32)", "axis=1",
        "1x96x56x56:float32");
    row("concatenate negative axis", "concatenate", "(2x3:float32|2x5:float32)", "axis=-1",
        "2x8:float32");
    row("concatenate fills dynamic dim", "concatenate", "(?x3:float32|2x3:float32)", "axis=1",
        "2x6:float32");
    row("concatenate dynamic axis", "concatenate", "(2x?:float32|2x3:float32)", "axis=1",
        "2x?:float32");
    row("stack", "stack", "(2x3:float32|2x3:float32|2x3:float32)", "axis=1", "2x3x3:float32");
    row("batch_flatten", "nn.batch_flatten", "1x512x7x7:float32", "", "1x25088:float32");
    row("squeeze all", "squeeze", "1x3x1x5:float32", "", "3x5:float32");
    row("squeeze axis", "squeeze", "1x3x1x5:float32", "axis=[0]", "3x1x5:float32");
    row("squeeze negative axis", "squeeze", "1x3x1x5:float32", "axis=[-2]", "1x3x5:float32");
    row("squeeze keeps dynamic", "squeeze", "1x?x5:float32", "axis=None", "?x5:float32");
    row("expand_dims", "expand_dims", "3x5:float32", "axis=1;num_newaxis=2", "3x1x1x5:float32");
    row("expand_dims end", "expand_dims", "3x5:float32", "axis=-1", "3x5x1:float32");
    row("split sections", "split", "2x9x4:float32", "indices_or_sections=3;axis=1",
        "(2x3x4:float32|2x3x4:float32|2x3x4:float32)");
    row("split indices", "split", "2x9x4:float32", "indices_or_sections=[2,5];axis=1",
        "(2x2x4:float32|2x3x4:float32|2x4x4:float32)");
    row("split negative axis", "split", "4x6:float32", "indices_or_sections=2;axis=-1",
        "(4x3:float32|4x3:float32)");
    row("strided_slice axes", "strided_slice", "20x32x768:float32",
        "begin=[0,0,256];end=[20,32,512];strides=[1,1,1];axes=[0,1,2];slice_mode=end",
        "20x32x256:float32");
    row("strided_slice prefix", "strided_slice", "5x6:float32", "begin=[1];end=[3]", "2x6:float32");
    row("strided_slice negative begin", "strided_slice", "5x6:float32",
        "begin=[-2];end=[2147483647]", "2x6:float32");
    row("strided_slice stride", "strided_slice", "5x6:float32", "begin=[0];end=[5];strides=[2]",
        "3x6:float32");
    row("strided_slice reverse", "strided_slice", "5x6:float32", "begin=[-1];end=[-6];strides=[-1]",
        "5x6:float32");
    row("strided_slice size mode", "strided_slice", "5x6:float32",
        "begin=[1,2];end=[2,-1];slice_mode=size", "2x4:float32");
    row("strided_slice one axis", "strided_slice", "5x6:float32", "begin=[1];end=[3];axes=[1]",
        "5x2:float32");
    row("strided_slice dynamic", "strided_slice", "?x6:float32", "begin=[0,1];end=[2,3]",
        "?x2:float32");
    row("take axis 0", "take", "10x20:float32;3x4:int32", "axis=0", "3x4x20:float32");
    row("take axis 1", "take", "10x20:float32;3x4:int32", "axis=1", "10x3x4:float32");
    row("take flattened", "take", "10x20:float32;3x4:int32", "axis=None", "3x4:float32");
    row("take scalar index", "take", "10x20:float32;#0", "axis=0", "20:float32");
    row("take batch_dims", "take", "2x10x5:float32;2x3:int32", "axis=1;batch_dims=1",
        "2x3x5:float32");
    row("nn.pad", "nn.pad", "1x3x224x224:float32;#0f", "pad_width=[[0,0],[0,0],[1,1],[2,2]]",
        "1x3x226x228:float32");
    row("nn.pad keeps dynamic", "nn.pad", "?x3x4:float32", "pad_width=[[0,0],[1,0],[0,1]]",
        "?x4x5:float32");
    row("gather", "gather", "3x4:float32;3x2:int64", "axis=1", "3x2:float32");
    row("one_hot", "one_hot", "4:int32;#1f;#0f", "depth=10;axis=-1;dtype=float32", "4x10:float32");
    row("tile", "tile", "2x3:float32", "reps=[2,1,2]", "2x2x6:float32");
    row("repeat", "repeat", "2x3:float32", "repeats=4;axis=1", "2x12:float32");
    row("broadcast_to", "broadcast_to", "1x3:float32", "shape=[4,3]", "4x3:float32");
    row("slice_like", "slice_like", "4x5x6:float32;2x3x6:float32", "axes=[0,1]", "2x3x6:float32");
    row("dyn.reshape", "dyn.reshape", "2x3x4:float32;3:int64", "newshape=None", "?x?x?:float32");
    row("dyn.broadcast_to", "dyn.broadcast_to", "3x1:float32;4:int64", "shape=None",
        "?x?x?x?:float32");
    row("dyn.zeros", "dyn.zeros", "2:int64", "dtype=int8", "?x?:int8");
    row("dyn.strided_slice", "dyn.strided_slice", "5x6x7:float32;2:int64;2:int64;2:int64", "",
        "?x?x7:float32");
    row("layout_transform pack", "layout_transform", "1x64x56x56:float32",
        "src_layout=NCHW;dst_layout=NCHW16c", "1x4x56x56x16:float32");
    row("layout_transform permute", "layout_transform", "1x64x56x56:float32",
        "src_layout=NCHW;dst_layout=NHWC", "1x56x56x64:float32");
    row("layout_transform unpack", "layout_transform", "1x4x56x56x16:float32",
        "src_layout=NCHW16c;dst_layout=NCHW", "1x64x56x56:float32");

    // reductions
    row("mean keepdims", "mean", "1x64x56x56:float32", "axis=[2,3];keepdims=True",
        "1x64x1x1:float32");
    row("sum axis", "sum", "1x64x56x56:float32", "axis=[1]", "1x56x56:float32");
    row("max all", "max", "2x3:float32", "axis=None", ":float32");
    row("min exclude", "min", "2x3x4:float32", "axis=[1];exclude=True", "3:float32");
    row("prod negative keepdims", "prod", "2x3x4:float32", "axis=[-1];keepdims=True",
        "2x3x1:float32");
    row("variance", "variance", "2x3x4:float32;2x1x4:float32", "axis=[1];keepdims=True",
        "2x1x4:float32");
    row("argmax", "argmax", "4x10:float32", "axis=[1]", "4:int32");
    row("argmin keepdims", "argmin", "4x10:float32", "axis=[0];keepdims=True", "1x10:int32");

    // elementwise
    row("relu", "nn.relu", "1x64x56x56:float32", "", "1x64x56x56:float32");
    row("relu symbolic", "nn.relu", "$nx64:float32", "", "$nx64:float32");
    row("sigmoid", "sigmoid", "2x5:float16", "", "2x5:float16");
    row("tanh", "tanh", "2x5:float32", "", "2x5:float32");
    row("exp", "exp", "2x5:float32", "", "2x5:float32");
    row("sqrt", "sqrt", "2x5:float32", "", "2x5:float32");
    row("rsqrt", "rsqrt", "2x5:float32", "", "2x5:float32");
    row("erf", "erf", "2x5:float32", "", "2x5:float32");
    row("negative", "negative", "2x5:int32", "", "2x5:int32");
    row("clip", "clip", "2x5:float32", "a_min=0f;a_max=6f", "2x5:float32");
    row("leaky_relu", "nn.leaky_relu", "2x5:float32", "alpha=0.1f", "2x5:float32");
    row("prelu", "nn.prelu", "1x8x4x4:float32;8:float32", "axis=1", "1x8x4x4:float32");
    row("copy", "copy", "2x5:float32", "", "2x5:float32");
    row("softmax", "nn.softmax", "4x10:float32", "axis=-1", "4x10:float32");
    row("log_softmax", "nn.log_softmax", "4x10:float32", "axis=-1", "4x10:float32");
    row("stop_fusion", "annotation.stop_fusion", "2x5:float32", "", "2x5:float32");
    row("compiler_begin", "annotation.compiler_begin", "2x5:float32", "compiler=dnnl",
        "2x5:float32");
    row("compiler_end", "annotation.compiler_end", "2x5:float32", "compiler=dnnl", "2x5:float32");
    row("dropout", "nn.dropout", "2x5:float32", "rate=0.1f", "(2x5:float32|2x5:float32)");
    row("bias_add", "nn.bias_add", "1x64x56x56:float32;64:float32", "", "1x64x56x56:float32");
    row("batch_norm", "nn.batch_norm",
        "1x64x56x56:float32;64:float32;64:float32;64:float32;64:float32", "",
        "(1x64x56x56:float32|64:float32|64:float32)");
    row("batch_norm unknown stats", "nn.batch_norm", "1x64x56x56:float32;unknown;unknown", "",
        "(1x64x56x56:float32|64:float32|64:float32)");
    row("batch_norm NHWC", "nn.batch_norm", "1x56x56x32:float32", "axis=3",
        "(1x56x56x32:float32|32:float32|32:float32)");
    row("layer_norm", "nn.layer_norm", "20x32x256:float32;256:float32;256:float32", "",
        "20x32x256:float32");
    row("cast", "cast", "2x5:float32", "dtype=int8", "2x5:int8");
    row("cast_like", "cast_like", "2x5:float32;3:float16", "", "2x5:float16");
    row("isnan", "isnan", "2x5:float32", "", "2x5:bool");
    row("zeros_like", "zeros_like", "2x5:float32", "", "2x5:float32");

    // binary broadcast
    row("add", "add", "1x64x56x56:float32;64x1x1:float32", "", "1x64x56x56:float32");
    row("multiply outer", "multiply", "2x1x5:float32;3x1:float32", "", "2x3x5:float32");
    row("subtract scalar", "subtract", "2x5:float32;#1f", "", "2x5:float32");
    row("divide", "divide", "2x5:float32;5:float32", "", "2x5:float32");
    row("power", "power", "2x5:float32;#2f", "", "2x5:float32");
    row("maximum", "maximum", "4x1:float32;1x6:float32", "", "4x6:float32");
    row("minimum", "minimum", "4x6:float32;4x6:float32", "", "4x6:float32");
    row("equal", "equal", "4x6:int64;#0", "", "4x6:bool");
    row("less", "less", "4x1:float32;6:float32", "", "4x6:bool");
    row("greater", "greater", "4x6:float32;4x6:float32", "", "4x6:bool");
    row("where", "where", "2x1:bool;1x3:float32;2x3:float32", "", "2x3:float32");
    row("broadcast dynamic vs known", "add", "?x5:float32;3x5:float32", "", "3x5:float32");
    row("broadcast dynamic vs one", "add", "?x5:float32;1x5:float32", "", "?x5:float32");
    row("broadcast symbolic vs one", "add", "$nx5:float32;1x5:float32", "", "$nx5:float32");
    row("broadcast incompatible", "add", "2x3:float32;4x3:float32", "", "unknown");
    row("binary unknown input", "add", "2x3:float32;unknown", "", "unknown");

    // creation, resizing, shape queries
    row("zeros", "zeros", "", "shape=[2,3];dtype=float32", "2x3:float32");
    row("ones int64", "ones", "", "shape=[4];dtype=int64", "4:int64");
    row("full", "full", "#0f", "shape=[2,2];dtype=", "2x2:float32");
    row("arange", "arange", "#0;#10;#2", "dtype=int32", "5:int32");
    row("resize2d", "image.resize2d", "1x3x32x32:float32", "size=[64,48]", "1x3x64x48:float32");
    row("resize2d NHWC", "image.resize2d", "1x32x32x3:float32", "size=[64,64];layout=NHWC",
        "1x64x64x3:float32");
    row("upsampling", "nn.upsampling", "1x16x14x14:float32", "scale_h=2.0f;scale_w=2.0f",
        "1x16x28x28:float32");
    row("upsampling NHWC", "nn.upsampling", "1x14x10x16:float32",
        "scale_h=2.0f;scale_w=1.5f;layout=NHWC", "1x28x15x16:float32");
    row("shape_of", "shape_of", "1x3x224x224:float32", "", "4:int32");
    row("shape_of int64", "shape_of", "1x3x224x224:float32", "dtype=int64", "4:int64");

    // no rule
    row("unknown operator", "my.custom_op", "2x3:float32", "", "unknown");
    row("unary of unknown", "nn.relu", "unknown", "", "unknown");
}

void TestShapeInference::rules()
{
    QFETCH(QString, op);
    QFETCH(QString, inputs);
    QFETCH(QString, attrs);
    QFETCH(QString, expected);

    Builder b;
    std::vector<NodeId> args;
    for (const std::string &spec : splitTopLevel(inputs.toStdString(), ';'))
        args.push_back(b.fromSpec(spec));
    const NodeId call = b.op(op.toStdString(), args, parseAttrs(attrs.toStdString()));
    b.finish(call);

    const InferenceReport report = inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), call), expected);
    const bool resolved = expected != QStringLiteral("unknown");
    QCOMPARE(report.unresolved.empty() || report.unresolved.back() != call, resolved);
}

void TestShapeInference::operandTypes_data()
{
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("inputs");
    QTest::addColumn<QString>("attrs");
    QTest::addColumn<int>("operand");
    QTest::addColumn<QString>("expected");

    auto row = [](const char *name, const char *op, const char *inputs, const char *attrs,
                  int operand, const char *expected) {
        QTest::newRow(name) << QString::fromUtf8(op) << QString::fromUtf8(inputs)
                            << QString::fromUtf8(attrs) << operand << QString::fromUtf8(expected);
    };
    row("conv2d weight", "nn.conv2d", "1x3x224x224:float32;meta", "channels=64;kernel_size=[7,7]",
        1, "64x3x7x7:float32");
    row("conv2d grouped weight", "nn.conv2d", "1x32x56x56:float32;meta",
        "channels=64;kernel_size=[3,3];groups=4", 1, "64x8x3x3:float32");
    row("conv2d depthwise weight", "nn.conv2d", "1x32x56x56:float32;meta",
        "channels=32;kernel_size=[3,3];groups=32", 1, "32x1x3x3:float32");
    row("conv2d HWIO weight", "nn.conv2d", "1x56x56x16:float32;meta",
        "channels=32;kernel_size=[3,3];data_layout=NHWC;kernel_layout=HWIO", 1,
        "3x3x16x32:float32");
    row("conv2d weight needs channels", "nn.conv2d", "1x3x224x224:float32;meta",
        "kernel_size=[7,7]", 1, "unknown");
    row("conv1d weight", "nn.conv1d", "1x16x100:float32;meta", "channels=8;kernel_size=[5]", 1,
        "8x16x5:float32");
    row("conv2d_transpose weight", "nn.conv2d_transpose", "1x64x28x28:float32;meta",
        "channels=32;kernel_size=[4,4]", 1, "64x32x4x4:float32");
    row("dense weight", "nn.dense", "8x256:float32;meta", "units=10", 1, "10x256:float32");
    row("dense weight needs units", "nn.dense", "8x256:float32;meta", "units=None", 1, "unknown");
    row("batch_norm moving_var", "nn.batch_norm", "1x64x56x56:float32;meta;meta;meta;meta", "", 4,
        "64:float32");
    row("bias_add bias", "nn.bias_add", "1x64x56x56:float16;meta", "", 1, "64:float16");
    row("bias_add NHWC bias", "nn.bias_add", "1x56x56x64:float32;meta", "axis=3", 1, "64:float32");
    row("layer_norm gamma", "nn.layer_norm", "20x32x256:float32;meta;meta", "", 1, "256:float32");
    row("layer_norm beta", "nn.layer_norm", "20x32x256:float32;meta;meta", "", 2, "256:float32");
    row("prelu alpha", "nn.prelu", "1x8x4x4:float32;meta", "", 1, "8:float32");
    row("add implies nothing", "add", "2x3:float32;meta", "", 1, "unknown");
    row("untyped parameter stays", "nn.dense", "8x256:float32;unknown", "units=10", 1, "unknown");
}

void TestShapeInference::operandTypes()
{
    QFETCH(QString, op);
    QFETCH(QString, inputs);
    QFETCH(QString, attrs);
    QFETCH(int, operand);
    QFETCH(QString, expected);

    Builder b;
    std::vector<NodeId> args;
    for (const std::string &spec : splitTopLevel(inputs.toStdString(), ';'))
        args.push_back(b.fromSpec(spec));
    b.finish(b.op(op.toStdString(), args, parseAttrs(attrs.toStdString())));

    inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), args.at(static_cast<std::size_t>(operand))), expected);
}

void TestShapeInference::everyRuleIsRegistered()
{
    const std::vector<std::string> ops = opsWithShapeRules();
    QCOMPARE(ops.size(), std::size_t(170));
    QVERIFY(std::adjacent_find(ops.begin(), ops.end()) == ops.end()); // no name twice
    for (const char *op : { "nn.conv2d", "nn.conv2d_transpose", "nn.dense", "nn.batch_matmul",
                            "nn.max_pool2d", "reshape", "strided_slice", "split", "where",
                            "shape_of", "layout_transform", "image.resize2d" }) {
        QVERIFY2(findOpShapeRule(op) != nullptr, op);
    }
    QVERIFY(findOpShapeRule("nn.no_such_op") == nullptr);
    QVERIFY(std::is_sorted(ops.begin(), ops.end()));
}

void TestShapeInference::resnetStem()
{
    // The start of resnet50-v2 from the collage corpus, whose constants carry no types.
    Builder b;
    const NodeId data = b.param(parseType("1x3x224x224:float32"));
    std::vector<NodeId> stats;
    for (int i = 0; i < 4; ++i)
        stats.push_back(b.tensorConstant());
    const NodeId bn0 = b.op("nn.batch_norm", { data, stats[0], stats[1], stats[2], stats[3] });
    const NodeId bn0out = b.getItem(bn0, 0);
    const NodeId convWeight = b.tensorConstant();
    const NodeId conv = b.op("nn.conv2d", { bn0out, convWeight },
                             parseAttrs("strides=[2,2];padding=[3,3,3,3];channels=64;"
                                        "kernel_size=[7,7]"));
    const NodeId relu = b.op("nn.relu", { conv });
    const NodeId pool = b.op("nn.max_pool2d", { relu },
                             parseAttrs("pool_size=[3,3];strides=[2,2];padding=[1,1,1,1]"));
    const NodeId gap = b.op("nn.global_avg_pool2d", { pool });
    const NodeId flat = b.op("reshape", { gap }, parseAttrs("newshape=[0,-1]"));
    const NodeId fcWeight = b.tensorConstant();
    const NodeId fc = b.op("nn.dense", { flat, fcWeight }, parseAttrs("units=1000"));
    const NodeId bias = b.tensorConstant();
    const NodeId logits = b.op("add", { fc, bias });
    b.graph().function(b.main()).returnType = parseType("1x1000:float32");
    b.graph().function(b.main()).hasReturnType = true;
    b.finish(logits);

    const InferenceReport report = inferTypes(b.graph());
    const Graph &g = b.graph();
    QCOMPARE(typeOf(g, bn0), QStringLiteral("(1x3x224x224:float32|3:float32|3:float32)"));
    QCOMPARE(typeOf(g, bn0out), QStringLiteral("1x3x224x224:float32"));
    QCOMPARE(typeOf(g, conv), QStringLiteral("1x64x112x112:float32"));
    QCOMPARE(typeOf(g, relu), QStringLiteral("1x64x112x112:float32"));
    QCOMPARE(typeOf(g, pool), QStringLiteral("1x64x56x56:float32"));
    QCOMPARE(typeOf(g, gap), QStringLiteral("1x64x1x1:float32"));
    QCOMPARE(typeOf(g, flat), QStringLiteral("1x64:float32"));
    QCOMPARE(typeOf(g, fc), QStringLiteral("1x1000:float32"));
    // The add's bias has no type, so only the declared return type can type the result.
    QCOMPARE(typeOf(g, logits), QStringLiteral("1x1000:float32"));
    // Weights and statistics get the types the operators imply, as TVM's relations assign them.
    for (NodeId s : stats)
        QCOMPARE(typeOf(g, s), QStringLiteral("3:float32"));
    QCOMPARE(typeOf(g, convWeight), QStringLiteral("64x3x7x7:float32"));
    QCOMPARE(typeOf(g, fcWeight), QStringLiteral("1000x64:float32"));
    QCOMPARE(report.inferred, std::size_t(15));
    QCOMPARE(report.unresolved, std::vector<NodeId> { bias });
    QCOMPARE(report.unknown, std::size_t(1));
}

void TestShapeInference::annotatedTypesAreKept()
{
    Builder b;
    const NodeId x = b.param(parseType("2x3:float32"));
    const NodeId relu = b.op("nn.relu", { x });
    // A deliberately different annotation: inference must not "correct" it.
    b.graph().node(relu).setOutputTypes({ parseType("7x7:float16") });
    b.graph().node(relu).typeAnnotated = true;
    // A known type from an importer (graph.json) without an annotation flag is kept too.
    const NodeId tanh = b.op("tanh", { relu });
    b.graph().node(tanh).setOutputTypes({ parseType("9:int8") });
    const NodeId sig = b.op("sigmoid", { tanh });
    b.finish(sig);

    const InferenceReport report = inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), relu), QStringLiteral("7x7:float16"));
    QVERIFY(b.graph().node(relu).typeAnnotated);
    QCOMPARE(typeOf(b.graph(), tanh), QStringLiteral("9:int8"));
    QCOMPARE(typeOf(b.graph(), sig), QStringLiteral("9:int8"));
    QCOMPARE(report.inferred, std::size_t(1));
    QCOMPARE(report.unknown, std::size_t(0));
}

void TestShapeInference::unknownsAreReported()
{
    Builder b;
    const NodeId x = b.param(parseType("1x3x8x8:float32"));
    const NodeId untypedParam = b.param(Type::unknown());
    const NodeId weight = b.tensorConstant();
    const NodeId conv = b.op("nn.conv2d", { x, weight }); // no channels, no weight type
    const NodeId relu = b.op("nn.relu", { conv });
    const NodeId custom = b.op("vendor.fancy", { x });
    const NodeId viaParam = b.op("add", { x, untypedParam });
    const NodeId ok = b.op("sigmoid", { x });
    const NodeId tuple = b.node(NodeKind::Tuple, { ok, relu });
    b.finish(tuple);

    const InferenceReport report = inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), ok), QStringLiteral("1x3x8x8:float32"));
    const std::vector<NodeId> expected {
        untypedParam, weight, conv, relu, custom, viaParam, tuple
    };
    QCOMPARE(report.unresolved, expected);
    QCOMPARE(report.unknown, std::size_t(7));
    QCOMPARE(report.inferred, std::size_t(1));
}

void TestShapeInference::scalarConstants()
{
    Builder b;
    const NodeId f = b.scalar(AttrValue::floating(0.5, "float32"));
    const NodeId i = b.scalar(AttrValue::integer(0, "int64"));
    const NodeId h = b.scalar(AttrValue::floating(1.0, "float16"));
    const NodeId t = b.scalar(AttrValue::boolean(true));
    const NodeId x = b.param(parseType("4x4:float32"));
    const NodeId scaled = b.op("multiply", { x, f });
    b.finish(b.node(NodeKind::Tuple, { scaled, i, h, t }));

    inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), f), QStringLiteral(":float32"));
    QCOMPARE(typeOf(b.graph(), i), QStringLiteral(":int64"));
    QCOMPARE(typeOf(b.graph(), h), QStringLiteral(":float16"));
    QCOMPARE(typeOf(b.graph(), t), QStringLiteral(":bool"));
    QCOMPARE(typeOf(b.graph(), scaled), QStringLiteral("4x4:float32"));
}

void TestShapeInference::tupleProjection()
{
    Builder b;
    const NodeId x = b.param(parseType("2x9:float32"));
    const NodeId parts = b.op("split", { x }, parseAttrs("indices_or_sections=[2,5];axis=1"));
    const NodeId second = b.getItem(parts, 1);
    const NodeId outOfRange = b.getItem(parts, 3);
    const NodeId joined = b.op("concatenate", { b.node(NodeKind::Tuple, { second, second }) },
                               parseAttrs("axis=0"));
    b.finish(b.node(NodeKind::Tuple, { joined, outOfRange }));

    const InferenceReport report = inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), parts), QStringLiteral("(2x2:float32|2x3:float32|2x4:float32)"));
    QCOMPARE(typeOf(b.graph(), second), QStringLiteral("2x3:float32"));
    QCOMPARE(typeOf(b.graph(), joined), QStringLiteral("4x3:float32"));
    QCOMPARE(typeOf(b.graph(), outOfRange), QStringLiteral("unknown"));
    QCOMPARE(report.unknown, std::size_t(2)); // the bad projection and the tuple holding it
}

void TestShapeInference::literalFunctionCall()
{
    // %f = fn (%p0, %p1) { add(nn.relu(%p0), %p1) }; %f(%x, %y) — a fused function without types.
    Builder b;
    const NodeId x = b.param(parseType("1x8x4x4:float32"));
    const NodeId y = b.param(parseType("8x1x1:float32"));
    const FunctionId fn = b.function(Function::Kind::Literal, "%f", b.main());
    b.graph().function(fn).attrs.set("Primitive", AttrValue::integer(1));
    const NodeId p0 = b.param(fn, Type::unknown());
    const NodeId p1 = b.param(fn, Type::unknown());
    const NodeId relu = b.op("nn.relu", { p0 }, {}, fn);
    const NodeId sum = b.op("add", { relu, p1 }, {}, fn);
    b.graph().function(fn).result = sum;
    const NodeId call = b.call(fn, { x, y });
    const NodeId after = b.op("nn.global_avg_pool2d", { call });
    b.finish(after);

    const InferenceReport report = inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), p0), QStringLiteral("1x8x4x4:float32"));
    QCOMPARE(typeOf(b.graph(), p1), QStringLiteral("8x1x1:float32"));
    QCOMPARE(typeOf(b.graph(), relu), QStringLiteral("1x8x4x4:float32"));
    QCOMPARE(typeOf(b.graph(), sum), QStringLiteral("1x8x4x4:float32"));
    QCOMPARE(typeOf(b.graph(), call), QStringLiteral("1x8x4x4:float32"));
    QCOMPARE(typeOf(b.graph(), after), QStringLiteral("1x8x1x1:float32"));
    QCOMPARE(report.inferred, std::size_t(6));
    QCOMPARE(report.unknown, std::size_t(0));
}

void TestShapeInference::beforeFinalize()
{
    // The Relay importer infers types before it finalizes the graph (no consumer index yet).
    // Nodes are created out of dependency order on purpose: the literal's body before its params'
    // producers, the consumer %relu before the conv it reads.
    Builder b;
    const FunctionId fn = b.function(Function::Kind::Literal, "%f", b.main());
    const NodeId p = b.param(fn, Type::unknown());
    const NodeId body = b.op("nn.relu", { p }, {}, fn);
    b.graph().function(fn).result = body;
    const NodeId x = b.param(parseType("1x3x32x32:float32"));
    const NodeId call = b.call(fn, { x });
    const NodeId relu = b.op("nn.relu", {});
    const NodeId conv = b.op("nn.conv2d", { call, b.tensorConstant() },
                             parseAttrs("channels=8;kernel_size=[3,3];strides=[2,2]"));
    b.graph().node(relu).inputs = { TensorRef { conv, 0 } };
    b.finish(relu, {}, false);

    const InferenceReport report = inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), p), QStringLiteral("1x3x32x32:float32"));
    QCOMPARE(typeOf(b.graph(), body), QStringLiteral("1x3x32x32:float32"));
    QCOMPARE(typeOf(b.graph(), call), QStringLiteral("1x3x32x32:float32"));
    QCOMPARE(typeOf(b.graph(), conv), QStringLiteral("1x8x15x15:float32"));
    QCOMPARE(typeOf(b.graph(), relu), QStringLiteral("1x8x15x15:float32"));
    QCOMPARE(report.unknown, std::size_t(0));
}

void TestShapeInference::declaredReturnType()
{
    // def @f(%a: Tensor[(3), float32]) -> Tensor[(5, 5), float32] { vendor.op(%a) }
    Builder b;
    const FunctionId f = b.function(Function::Kind::Global, "f");
    const NodeId a = b.param(f, parseType("3:float32"));
    const NodeId body = b.op("vendor.op", { a }, {}, f);
    b.graph().function(f).result = body;
    b.graph().function(f).returnType = parseType("5x5:float32");
    b.graph().function(f).hasReturnType = true;
    const NodeId x = b.param(parseType("3:float32"));
    const NodeId call = b.call(f, { x });
    b.finish(call);

    const InferenceReport report = inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), call), QStringLiteral("5x5:float32"));
    // The operator has no rule, but the body's value must have the declared return type.
    QCOMPARE(typeOf(b.graph(), body), QStringLiteral("5x5:float32"));
    QCOMPARE(report.inferred, std::size_t(2));
    QCOMPARE(report.unknown, std::size_t(0));
}

void TestShapeInference::globalCalleeInferredFirst()
{
    // @main calls @g, which is created after @main and has no declared return type.
    Builder b;
    const NodeId x = b.param(parseType("4x6:float32"));
    const FunctionId g = b.function(Function::Kind::Global, "g");
    const NodeId a = b.param(g, parseType("4x6:float32"));
    const NodeId t = b.op("transpose", { a }, {}, g);
    b.graph().function(g).result = t;
    const NodeId call = b.call(g, { x });
    b.finish(b.op("nn.relu", { call }));

    inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), call), QStringLiteral("6x4:float32"));
    QCOMPARE(typeOf(b.graph(), t), QStringLiteral("6x4:float32"));
}

void TestShapeInference::closureCall()
{
    // %1 = fn (%p) { sigmoid(%p) }; %2 = %1(%x)
    Builder b;
    const NodeId x = b.param(parseType("3x3:float32"));
    const FunctionId fn = b.function(Function::Kind::Literal, "%1", b.main());
    const NodeId p = b.param(fn, Type::unknown());
    b.graph().function(fn).result = b.op("sigmoid", { p }, {}, fn);
    const NodeId value = b.node(NodeKind::FunctionValue, {});
    b.graph().node(value).callee = fn;
    const NodeId call = b.node(NodeKind::ClosureCall, { value, x });
    b.finish(call);

    inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), call), QStringLiteral("3x3:float32"));
    const Type &fnType = b.graph().node(value).outputType(0);
    QCOMPARE(fnType.kind, Type::Kind::Function);
    QCOMPARE(fnType.fields.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(describe(fnType.fields[0])), QStringLiteral("3x3:float32"));
    QCOMPARE(QString::fromStdString(describe(fnType.result.at(0))), QStringLiteral("3x3:float32"));
}

void TestShapeInference::ifBranches()
{
    // if (%c) { nn.relu(%x) } else { vendor.op(%x) }: the then-branch decides the type.
    Builder b;
    const NodeId c = b.param(parseType(":bool"));
    const NodeId x = b.param(parseType("2x2:float32"));
    const FunctionId thenScope = b.function(Function::Kind::Scope, "then", b.main());
    const FunctionId elseScope = b.function(Function::Kind::Scope, "else", b.main());
    const NodeId thenResult = b.op("nn.relu", { x }, {}, thenScope);
    const NodeId elseResult = b.op("vendor.op", { x }, {}, elseScope);
    b.graph().function(thenScope).result = thenResult;
    b.graph().function(elseScope).result = elseResult;
    const NodeId branch = b.node(NodeKind::If, { c });
    b.graph().node(branch).setScopes({ thenScope, elseScope });
    b.finish(branch);

    const InferenceReport report = inferTypes(b.graph());
    QCOMPARE(typeOf(b.graph(), branch), QStringLiteral("2x2:float32"));
    QCOMPARE(typeOf(b.graph(), thenResult), QStringLiteral("2x2:float32"));
    QCOMPARE(report.unresolved, std::vector<NodeId> { elseResult });
}

void TestShapeInference::constructors()
{
    // type Color { Red, Green }  and  type List[A] { Cons(A, List[A]), Nil }
    Builder b;
    TypeDefinition color;
    color.name = "Color";
    color.constructors = { { "Red", {} }, { "Green", {} } };
    TypeDefinition list;
    list.name = "List";
    list.typeParams = { "A" };
    list.constructors = { { "Cons", { Type::unknown(), Type::unknown() } }, { "Nil", {} } };
    b.graph().addTypeDefinition(color);
    b.graph().addTypeDefinition(list);
    const NodeId red = b.node(NodeKind::ConstructorCall, {});
    b.graph().node(red).op = "Red";
    const NodeId nil = b.node(NodeKind::ConstructorCall, {});
    b.graph().node(nil).op = "Nil";
    b.finish(b.node(NodeKind::Tuple, { red, nil }));

    inferTypes(b.graph());
    const Type &redType = b.graph().node(red).outputType(0);
    QCOMPARE(redType.kind, Type::Kind::Named);
    QCOMPARE(QString::fromStdString(redType.name), QStringLiteral("Color"));
    // A polymorphic ADT would need unification to name its type argument.
    QVERIFY(b.graph().node(nil).outputType(0).isUnknown());
}

void TestShapeInference::secondRunChangesNothing()
{
    Builder b;
    const NodeId x = b.param(parseType("1x3x224x224:float32"));
    const NodeId conv = b.op("nn.conv2d", { x, b.tensorConstant() },
                             parseAttrs("channels=16;kernel_size=[3,3];padding=[1,1]"));
    b.finish(b.op("nn.relu", { conv }));

    const InferenceReport first = inferTypes(b.graph());
    const Graph snapshot = b.graph();
    const InferenceReport second = inferTypes(b.graph());
    QCOMPARE(first.inferred, std::size_t(3)); // conv, its weight, relu
    QCOMPARE(second.inferred, std::size_t(0));
    QCOMPARE(second.unresolved, first.unresolved);
    for (std::size_t i = 0; i < snapshot.nodeCount(); ++i)
        QCOMPARE(b.graph().node(NodeId(i)).outputTypes(), snapshot.node(NodeId(i)).outputTypes());
}

QTEST_APPLESS_MAIN(TestShapeInference)
#include "tst_shapeinference.moc"
