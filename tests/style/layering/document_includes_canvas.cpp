// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Layering probe: ui/document sits below the canvas, so this must not compile.
#include "ui/canvas/CanvasWidget.h"
