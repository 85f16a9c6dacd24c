// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/RandomOps.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace cleave {

bool drawsRandomNumbers(std::string_view op)
{
    std::string lower(op);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower.find("random") != std::string::npos || lower.find("bernoulli") != std::string::npos
        || lower.find("multinomial") != std::string::npos;
}

} // namespace cleave
