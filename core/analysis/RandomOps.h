// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <string_view>

namespace cleave {

/// True when operator `op` draws random numbers, so that two copies of it compute different
/// values: its name contains, in any case, "random" (ONNX RandomNormal / RandomUniform /
/// RandomNormalLike, Relay `random.uniform`), "bernoulli" or "multinomial". Such a node is never
/// computed again in another stage, and never accepted in two modules of an export.
bool drawsRandomNumbers(std::string_view op);

} // namespace cleave
