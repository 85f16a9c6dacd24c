// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Layering probe: ui/commands sits below the docks, so this must not compile.
#include "ui/docks/PartitionsDock.h"
