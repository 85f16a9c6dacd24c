// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/support/CanvasTheme.h"

#include <QPalette>

#include <array>

namespace cleave::ui {

namespace {

constexpr std::size_t categoryCount = static_cast<std::size_t>(OpCategory::Other) + 1;
using CategoryColours = std::array<QColor, categoryCount>;

// In OpCategory order: Convolution, MatMul, Normalisation, Activation, Pooling, Elementwise,
// Shape, Control, FunctionCall, Input, Other. Each fill keeps the node text at a WCAG contrast
// of 4.5 or more (tst_appearance checks every pair).
const CategoryColours lightFills {
    QColor(0xdb, 0xe9, 0xfb), QColor(0xe3, 0xdf, 0xfa), QColor(0xd9, 0xf2, 0xec),
    QColor(0xfd, 0xe7, 0xd2), QColor(0xe2, 0xf1, 0xd6), QColor(0xfb, 0xf1, 0xc9),
    QColor(0xee, 0xe9, 0xe4), QColor(0xec, 0xee, 0xf1), QColor(0xf8, 0xdd, 0xec),
    QColor(0x37, 0x47, 0x5a), QColor(0xf2, 0xf3, 0xf5),
};
const CategoryColours lightStrokes {
    QColor(0x3b, 0x7d, 0xd8), QColor(0x6f, 0x5c, 0xd6), QColor(0x22, 0x9a, 0x83),
    QColor(0xe0, 0x7b, 0x22), QColor(0x5a, 0xa0, 0x3c), QColor(0xc8, 0x9b, 0x14),
    QColor(0x8d, 0x7b, 0x6a), QColor(0x8a, 0x93, 0xa0), QColor(0xc2, 0x41, 0x8a),
    QColor(0x1f, 0x2a, 0x37), QColor(0x9a, 0xa1, 0xab),
};
// Dark: deep fills of the same hues under light text; inputs invert (light pill, dark text).
const CategoryColours darkFills {
    QColor(0x1d, 0x3a, 0x5f), QColor(0x34, 0x2d, 0x5e), QColor(0x17, 0x45, 0x3c),
    QColor(0x55, 0x33, 0x18), QColor(0x2b, 0x46, 0x20), QColor(0x4d, 0x42, 0x14),
    QColor(0x42, 0x3a, 0x33), QColor(0x36, 0x3c, 0x45), QColor(0x54, 0x25, 0x44),
    QColor(0xc9, 0xd4, 0xe0), QColor(0x38, 0x3d, 0x45),
};
const CategoryColours darkStrokes {
    QColor(0x5c, 0x9d, 0xf0), QColor(0x9a, 0x8a, 0xf0), QColor(0x3c, 0xc0, 0xa4),
    QColor(0xf0, 0x9a, 0x4a), QColor(0x7c, 0xc4, 0x5a), QColor(0xe0, 0xb8, 0x3a),
    QColor(0xb0, 0x9c, 0x8a), QColor(0x8e, 0x98, 0xa6), QColor(0xe0, 0x6a, 0xae),
    QColor(0xe8, 0xee, 0xf4), QColor(0x8a, 0x92, 0x9c),
};

CanvasColours makeLight()
{
    CanvasColours c;
    c.dark = false;
    c.background = QColor(0xfb, 0xfb, 0xfc);
    c.edge = QColor(0x8e, 0x97, 0xa3);
    c.edgeHover = QColor(0x37, 0x47, 0x5a);
    c.edgeLabel = QColor(0x4a, 0x55, 0x62);
    c.nodeText = QColor(0x1f, 0x29, 0x33);
    c.nodeSubtitle = QColor(0x50, 0x5b, 0x67);
    c.inputText = QColor(Qt::white);
    c.inputSubtitle = QColor(0xd5, 0xdc, 0xe4);
    c.structuralFill = QColor(0xe9, 0xec, 0xef);
    c.structuralStroke = QColor(0xa4, 0xac, 0xb6);
    c.badgeFill = QColor(255, 255, 255, 235);
    c.blockFrame = QColor(0x7d, 0x87, 0x94);
    c.blockTabFill = QColor(0xee, 0xf0, 0xf3);
    c.blockTabText = QColor(0x4a, 0x55, 0x62);
    c.minimapFrame = QColor(0xc9, 0xcf, 0xd6);
    c.minimapFill = QColor(255, 255, 255, 230);
    return c;
}

CanvasColours makeDark()
{
    CanvasColours c;
    c.dark = true;
    c.background = QColor(0x16, 0x19, 0x1d);
    c.edge = QColor(0x6b, 0x75, 0x82);
    c.edgeHover = QColor(0xc9, 0xd4, 0xe0);
    c.edgeLabel = QColor(0xc4, 0xcc, 0xd5);
    c.nodeText = QColor(0xe6, 0xed, 0xf3);
    c.nodeSubtitle = QColor(0xb4, 0xbe, 0xc9);
    c.inputText = QColor(0x10, 0x16, 0x1d);
    c.inputSubtitle = QColor(0x2c, 0x3a, 0x4a);
    c.structuralFill = QColor(0x2f, 0x34, 0x3b);
    c.structuralStroke = QColor(0x6b, 0x75, 0x82);
    c.badgeFill = QColor(0x22, 0x26, 0x2c, 240);
    c.blockFrame = QColor(0x8a, 0x94, 0xa0);
    c.blockTabFill = QColor(0x2a, 0x2f, 0x36);
    c.blockTabText = QColor(0xc4, 0xcc, 0xd6);
    c.minimapFrame = QColor(0x4a, 0x52, 0x5c);
    c.minimapFill = QColor(0x1e, 0x22, 0x27, 235);
    return c;
}

bool activeDark = false;

} // namespace

QColor CanvasColours::fill(OpCategory category) const
{
    const auto i = static_cast<std::size_t>(category);
    return i < categoryCount ? (dark ? darkFills : lightFills)[i] : background;
}

QColor CanvasColours::stroke(OpCategory category) const
{
    const auto i = static_cast<std::size_t>(category);
    return i < categoryCount ? (dark ? darkStrokes : lightStrokes)[i] : edge;
}

QColor CanvasColours::tint(const QColor &colour, qreal amount) const
{
    // Opaque (pre-blended with the background): overlapping shapes of one region show no seams.
    // The dark canvas needs more of the colour for the same visible tint.
    const qreal a = dark ? std::min<qreal>(1, amount * 1.6) : amount;
    const QColor base = dark ? background : QColor(Qt::white);
    return QColor::fromRgbF(static_cast<float>(base.redF() * (1 - a) + colour.redF() * a),
                            static_cast<float>(base.greenF() * (1 - a) + colour.greenF() * a),
                            static_cast<float>(base.blueF() * (1 - a) + colour.blueF() * a));
}

QColor CanvasColours::partitionText(const QColor &colour) const
{
    return dark ? colour.lighter(165) : colour.darker(135);
}

const CanvasColours &lightCanvasColours()
{
    static const CanvasColours colours = makeLight();
    return colours;
}

const CanvasColours &darkCanvasColours()
{
    static const CanvasColours colours = makeDark();
    return colours;
}

const CanvasColours &canvasColours()
{
    return activeDark ? darkCanvasColours() : lightCanvasColours();
}

void setCanvasDark(bool dark)
{
    activeDark = dark;
}

bool isDarkPalette(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

LightCanvasScope::LightCanvasScope()
    : m_wasDark(activeDark)
{
    activeDark = false;
}

LightCanvasScope::~LightCanvasScope()
{
    activeDark = m_wasDark;
}

} // namespace cleave::ui
