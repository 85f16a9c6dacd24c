// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/support/OpCategory.h"

#include "core/analysis/Cost.h"
#include "core/analysis/OpPattern.h"
#include "ui/support/CanvasTheme.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace cleave::ui {

namespace {

bool contains(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

} // namespace

OpCategory opCategoryOfOp(const std::string &op)
{
    // Lower case, so that ONNX op types (Conv, BatchNormalization, MatMul, MaxPool, Relu) fall in
    // the same families as the Relay names.
    std::string lowered(op);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::string_view name = lowered;
    if (contains(name, "conv"))
        return OpCategory::Convolution;
    if (contains(name, "dense") || contains(name, "matmul") || name == "gemm")
        return OpCategory::MatMul;
    if (contains(name, "norm") || contains(name, "nn.lrn"))
        return OpCategory::Normalisation;
    if (contains(name, "pool"))
        return OpCategory::Pooling;
    static constexpr std::array activations { "relu",     "sigmoid",   "tanh", "softmax",
                                              "gelu",     "erf",       "clip", "elu",
                                              "prelu",    "hardswish", "silu", "softplus",
                                              "fast_exp", "fast_tanh" };
    for (const char *a : activations)
        if (contains(name, a))
            return OpCategory::Activation;
    if (name.starts_with("annotation.") || name == "device_copy" || name.starts_with("on_device")
        || name.starts_with("memory.") || name.starts_with("vm."))
        return OpCategory::Control;
    switch (OpPatternTable::builtin().pattern(op)) {
    case OpPatternKind::ElemWise:
    case OpPatternKind::Broadcast:
    case OpPatternKind::CommReduce:
        return OpCategory::Elementwise;
    case OpPatternKind::Injective:
        return OpCategory::Shape;
    case OpPatternKind::OutEWiseFusable:
        return OpCategory::MatMul;
    case OpPatternKind::Tuple:
        return OpCategory::Control;
    case OpPatternKind::Opaque:
        break;
    }
    return OpCategory::Other;
}

OpCategory opCategory(const Graph &graph, NodeId id)
{
    const Node &n = graph.node(id);
    switch (n.kind) {
    case NodeKind::Input:
        return OpCategory::Input;
    case NodeKind::OpCall:
        return opCategoryOfOp(n.op);
    case NodeKind::FunctionCall:
    case NodeKind::ClosureCall:
    case NodeKind::FunctionValue:
        return OpCategory::FunctionCall;
    case NodeKind::Tuple:
    case NodeKind::TupleGetItem:
    case NodeKind::If:
    case NodeKind::Match:
    case NodeKind::ConstructorCall:
        return OpCategory::Control;
    case NodeKind::Constant:
        return OpCategory::Other;
    }
    return OpCategory::Other;
}

QColor categoryFill(OpCategory category)
{
    return canvasColours().fill(category);
}

QColor categoryStroke(OpCategory category)
{
    return canvasColours().stroke(category);
}

QString categoryName(OpCategory category)
{
    switch (category) {
    case OpCategory::Convolution:
        return QStringLiteral("convolution");
    case OpCategory::MatMul:
        return QStringLiteral("matmul / dense");
    case OpCategory::Normalisation:
        return QStringLiteral("normalisation");
    case OpCategory::Activation:
        return QStringLiteral("activation");
    case OpCategory::Pooling:
        return QStringLiteral("pooling");
    case OpCategory::Elementwise:
        return QStringLiteral("elementwise");
    case OpCategory::Shape:
        return QStringLiteral("shape / layout");
    case OpCategory::Control:
        return QStringLiteral("control / annotation");
    case OpCategory::FunctionCall:
        return QStringLiteral("function call");
    case OpCategory::Input:
        return QStringLiteral("input");
    case OpCategory::Other:
        return QStringLiteral("other");
    }
    return {};
}

QColor partitionColour(int index)
{
    static const std::array<QColor, 10> palette {
        QColor(0x1f, 0x77, 0xb4), QColor(0xe4, 0x57, 0x1c), QColor(0x2c, 0xa0, 0x2c),
        QColor(0x94, 0x4b, 0xc4), QColor(0xd6, 0x27, 0x28), QColor(0x17, 0x9c, 0xa8),
        QColor(0xbc, 0x8a, 0x00), QColor(0xd0, 0x4a, 0x9a), QColor(0x8c, 0x46, 0x46),
        QColor(0x6a, 0x8f, 0x1f),
    };
    const auto n = static_cast<int>(palette.size());
    return palette[static_cast<std::size_t>(((index % n) + n) % n)];
}

QString badgeBytes(std::int64_t bytes)
{
    // The same units as the docks and reports, so one tensor reads the same everywhere.
    return QString::fromStdString(humanBytes(bytes));
}

} // namespace cleave::ui
