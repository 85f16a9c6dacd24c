#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
#
# Installs npm's dagre (0.8.5, the release Netron's layout was ported from) into DIR for
# bench_quality (default: build/dagre). Benchmarks only: nothing in the product uses it.
set -euo pipefail
dir=${1:-build/dagre}
mkdir -p "$dir"
if [[ -f "$dir/node_modules/dagre/package.json" ]]; then
    echo "dagre is in $dir"
    exit 0
fi
npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$dir" dagre@0.8.5
echo "dagre installed in $dir"
