// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// Layering probe, the control: ui/document sees its own headers, the layers below it and core,
// so this compiles (the probes that must fail fail for their include alone).
#include "core/partition/PartitionPlan.h"
#include "ui/document/Document.h"
#include "ui/geometry/RegionGeometry.h"
#include "ui/support/WorkerThreads.h"
#include "ui/widgets/LayoutOverlay.h"
