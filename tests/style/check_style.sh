#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
#
# Cleave's style checks, as CI runs them (docs/STYLE.md §6: "checked, not hoped"):
#   1. clang-format --dry-run -Werror on every tracked C++ file (.clang-format);
#   2. core/ includes no Qt header;
#   3. clang-tidy with the repo's .clang-tidy on every core/, ui/ and app/ source: no finding
#      beyond the recorded baseline (tests/style/tidy-baseline.txt, which only goes down).
# Usage: tests/style/check_style.sh [BUILD_DIR]   (BUILD_DIR holds compile_commands.json; without
# it, step 3 is skipped with a message). Exits non-zero on the first failing step.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-}
jobs=$(nproc 2>/dev/null || echo 2)

mapfile -t cpp < <(git ls-files '*.cpp' '*.h')
echo "style: clang-format on ${#cpp[@]} files"
clang-format --dry-run -Werror "${cpp[@]}"

echo "style: core/ includes no Qt"
if grep -rnE '#include\s*<Q' core; then
    echo "style: core/ must stay Qt-free (the lines above include Qt)" >&2
    exit 1
fi

if [[ -z "$build" ]]; then
    echo "style: no build folder given, clang-tidy skipped"
    exit 0
fi
if [[ ! -f "$build/compile_commands.json" ]]; then
    echo "style: $build/compile_commands.json is missing (configure first)" >&2
    exit 1
fi
mapfile -t sources < <(git ls-files 'core/*.cpp' 'ui/*.cpp' 'app/*.cpp')
echo "style: clang-tidy on ${#sources[@]} core, ui and app sources ($jobs at a time)"
# Findings are compared with tests/style/tidy-baseline.txt (a ratchet): a file may not gain a
# finding of any check; the baseline lists what is still to fix and only ever goes down.
printf '%s\n' "${sources[@]}" \
    | xargs -P "$jobs" -n 4 clang-tidy -p "$build" --quiet 2>/dev/null \
    | python3 tests/style/tidy_ratchet.py
echo "style: all checks passed"
