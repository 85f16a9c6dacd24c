// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Layering probe: core/graph sits below core/partition, so this must not compile.
#include "core/partition/PartitionPlan.h"
