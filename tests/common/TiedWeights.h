// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Test fixture: ALBERT-style weight tying in Relay text.
#pragma once

namespace cleave::test {

/// One transposed, scaled weight `%1 = multiply(transpose(%w), %s)` read by three dense layers
/// (`%2`, `%4`, `%6`) with relus `%3` and `%5` between them; every tensor is float32, the
/// activations 1x8 (32 B), the tied weight 8x8 (256 B).
inline const char *const tiedWeightsRelay = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8), float32], %w: Tensor[(8, 8), float32], %s: Tensor[(8), float32]) {
  %0 = transpose(%w) /* ty=Tensor[(8, 8), float32] */;
  %1 = multiply(%0, %s) /* ty=Tensor[(8, 8), float32] */;
  %2 = nn.dense(%x, %1) /* ty=Tensor[(1, 8), float32] */;
  %3 = nn.relu(%2) /* ty=Tensor[(1, 8), float32] */;
  %4 = nn.dense(%3, %1) /* ty=Tensor[(1, 8), float32] */;
  %5 = nn.relu(%4) /* ty=Tensor[(1, 8), float32] */;
  %6 = nn.dense(%5, %1) /* ty=Tensor[(1, 8), float32] */;
  %6
}
)";

} // namespace cleave::test
