#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
#
# Builds the libFuzzer harnesses of tests/fuzz (clang, ASan + UBSan) into build-fuzz/ and runs
# each one for a bounded time, one after the other, niced, over the committed minimised corpus
# (tests/fuzz/corpus/<harness>, grown by campaign.sh) and the seeds. Any crash, leak, hang
# (> 20 s per input) or sanitizer report fails the script; the reproducer is left in
# build-fuzz/artifacts/.
#
# Usage: tests/fuzz/run_fuzzers.sh [SECONDS_PER_HARNESS [CORPUS_DIR]]
#   SECONDS_PER_HARNESS  default 45 (ten harnesses: under 9 minutes with the build cached)
#   CORPUS_DIR           real model dumps (relay/, graph_json/, relax/); default ../shared/corpus.
#                        Its files seed the corpora in place; nothing is copied.
# Environment, for long local campaigns:
#   CLEAVE_FUZZ_HARNESSES  space-separated subset to run (default: all ten)
#   CLEAVE_FUZZ_MAX_LEN    largest input in bytes (default 64 KiB, the committed corpus' cap):
#                          larger seeds such as the 2 MB rnnt dump are read truncated, so no
#                          rnnt-sized input is in the hot loop and small inputs dominate, as they
#                          do in the bugs fuzzing finds.
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$(pwd)
seconds=${1:-45}
corpus=${2:-${CLEAVE_CORPUS_DIR:-$root/../shared/corpus}}
build=${CLEAVE_FUZZ_BUILD:-$root/build-fuzz}
cxx=${CLEAVE_FUZZ_CXX:-clang++-14}
cc=${CLEAVE_FUZZ_CC:-clang-14}

if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "run_fuzzers.sh: $cxx not found (packaging/deps.sh installs clang-14 and libfuzzer-14-dev)" >&2
    exit 1
fi

launcher=()
if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" >/dev/null
nice -n 10 cmake --build "$build" -j "${CLEAVE_FUZZ_JOBS:-2}"

if [[ ! -x "$build/fuzz_relay" ]]; then
    echo "run_fuzzers.sh: the compiler cannot build libFuzzer harnesses; nothing was run" >&2
    exit 1
fi

# Seed directories per harness: the committed minimised corpus (tests/fuzz/corpus/<harness>, grown
# by campaign.sh), the tree's samples and test data, and the shared corpus.
seeds_for() {
    local dirs=("tests/fuzz/corpus/$1")
    case "$1" in
    relay) dirs+=(samples tests/data/malformed "$corpus/relay") ;;
    relax) dirs+=(tests/fuzz/seeds/relax "$corpus/relax") ;;
    graphjson) dirs+=(tests/data/map "$corpus/graph_json") ;;
    onnx) dirs+=(samples) ;;
    plan) dirs+=(tests/fuzz/seeds/plan tests/data/hostile) ;;
    project) dirs+=(tests/fuzz/seeds/project tests/data/hostile) ;;
    *) dirs+=("tests/fuzz/seeds/$1") ;;
    esac
    for d in "${dirs[@]}"; do
        [[ -d "$d" ]] && echo "$d"
    done
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/artifacts"
status=0
all="relay relax graphjson onnx plan project tables auto diff render"
for harness in ${CLEAVE_FUZZ_HARNESSES:-$all}; do
    work="$build/corpus/$harness"
    mkdir -p "$work"
    dict=()
    case "$harness" in
    relay | diff) dict=(-dict=tests/fuzz/relay.dict) ;;
    relax) dict=(-dict=tests/fuzz/relax.dict) ;;
    onnx) ;;
    *) dict=(-dict=tests/fuzz/json.dict) ;;
    esac
    mapfile -t seeds < <(seeds_for "$harness")
    echo "== fuzz_$harness: ${seconds}s, seeds: ${seeds[*]}"
    log="$build/fuzz_$harness.log"
    if nice -n 10 "$build/fuzz_$harness" -max_total_time="$seconds" -timeout=20 \
        -rss_limit_mb=2560 -max_len="${CLEAVE_FUZZ_MAX_LEN:-65536}" -print_final_stats=1 \
        -artifact_prefix="$build/artifacts/${harness}-" "${dict[@]}" \
        "$work" "${seeds[@]}" >"$log" 2>&1; then
        grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log" | sed 's/^/   /'
    else
        status=1
        echo "   FAILED: see $log and $build/artifacts/" >&2
        tail -n 40 "$log" >&2
    fi
done
exit $status
