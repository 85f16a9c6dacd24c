// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

// SetPartitionTarget is ChangePartitionValue over one property (see ChangePartitionValue.h).
#include "ui/commands/ChangePartitionValue.h"
