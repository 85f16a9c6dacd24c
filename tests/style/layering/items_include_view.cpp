// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Layering probe: the canvas' items sit below its view, so this must not compile.
#include "ui/canvas/view/CanvasView.h"
