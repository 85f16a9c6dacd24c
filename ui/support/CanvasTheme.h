// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "ui/support/OpCategory.h"

#include <QColor>

class QPalette;

namespace cleave::ui {

/// The colours the canvas draws with, one set per theme. Items read the active set when they
/// paint (nothing is stored per item), so switching the theme is one repaint.
struct CanvasColours
{
    bool dark = false;
    QColor background; ///< The canvas behind everything.
    QColor edge; ///< An ordinary edge.
    QColor edgeHover; ///< An ordinary edge under the mouse.
    QColor edgeLabel; ///< The tensor shape written on an edge when zoomed in.
    QColor nodeText; ///< Op names on category fills.
    QColor nodeSubtitle; ///< Output shapes on category fills.
    QColor inputText; ///< Names on input nodes (their fill inverts the canvas).
    QColor inputSubtitle;
    QColor structuralFill; ///< Tuples, projections: the grey pills.
    QColor structuralStroke;
    QColor badgeFill; ///< Behind boundary badges.
    QColor blockFrame; ///< The dashed frame of a fused block.
    QColor blockTabFill; ///< The name tab of a fused block.
    QColor blockTabText;
    QColor minimapFrame;
    QColor minimapFill;

    /// Fill of a category's nodes.
    [[nodiscard]] QColor fill(OpCategory category) const;
    /// Border and accent of a category's nodes.
    [[nodiscard]] QColor stroke(OpCategory category) const;
    /// A partition's tint: `amount` of `colour` over the canvas background.
    [[nodiscard]] QColor tint(const QColor &colour, qreal amount) const;
    /// A partition's name and its badges' text: readable on the background.
    [[nodiscard]] QColor partitionText(const QColor &colour) const;
};

/// How much of a partition's colour its region's tint takes (CanvasColours::tint): at 100 % zoom
/// and closer, below half zoom (the far picture too), and added when the partition is
/// highlighted. Strong enough that no tint is mistaken for a node fill: every partition colour's
/// tint differs from every category's fill by a CIE76 colour difference of 8 or more in both
/// themes, and edge labels keep a contrast of 4.5 on every tint (tst_appearance); at 0.16 a
/// green stage read as batch-norm or pooling nodes (ΔE 4.3).
inline constexpr qreal regionTintNear = 0.32;
inline constexpr qreal regionTintFar = 0.40;
inline constexpr qreal regionTintHighlight = 0.14;

/// The light colours (white canvas), the ones exports always use.
const CanvasColours &lightCanvasColours();
/// The dark colours (near-black canvas).
const CanvasColours &darkCanvasColours();
/// The colours the canvas paints with now.
const CanvasColours &canvasColours();
/// Switches the canvas colours (the caller repaints).
void setCanvasDark(bool dark);
/// True when `palette` is a dark one (its window colour is darker than mid-grey).
bool isDarkPalette(const QPalette &palette);

/// Paints with the light colours while it lives (image exports read well on paper), then
/// restores the colours that were active.
class LightCanvasScope
{
public:
    LightCanvasScope();
    ~LightCanvasScope();
    LightCanvasScope(const LightCanvasScope &) = delete;
    LightCanvasScope &operator=(const LightCanvasScope &) = delete;

private:
    bool m_wasDark;
};

} // namespace cleave::ui
