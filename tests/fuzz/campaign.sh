#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
#
# A long local fuzz campaign (not run by CI; CI runs run_fuzzers.sh for 30 s a harness):
#   1. builds the harnesses with UBSan alone at -O2 into build-fuzz-fast/ (about twice the
#      executions per second of the ASan build);
#   2. runs each chosen harness for a fixed number of executions (-runs), inputs up to
#      CLEAVE_FUZZ_MAX_LEN bytes (default 4096), growing the same corpus folders as
#      run_fuzzers.sh (build-fuzz/corpus/<harness>);
#   3. replays every input of those corpora once under the ASan + UBSan build (build-fuzz/), so a
#      memory error the fast build cannot see in what it found still fails the campaign;
#   4. prints one line per harness: executions, seconds, executions per second, corpus size,
#      coverage, and the replay's verdict.
# Any crash, leak, timeout (> 20 s per input), out-of-memory or sanitizer report stops the
# campaign with a non-zero status; the reproducer is left in build-fuzz/artifacts/.
#
# Usage: tests/fuzz/campaign.sh [EXECUTIONS_PER_HARNESS [HARNESS...]]
#   EXECUTIONS_PER_HARNESS  default 10000000
#   HARNESS                 default: relay relax graphjson onnx (the importers)
# CLEAVE_FUZZ_MAX_SECONDS caps each harness' time as well (whichever comes first; default none).
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$(pwd)
runs=${1:-10000000}
shift || true
harnesses=("$@")
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=(relay relax graphjson onnx)
corpus=${CLEAVE_CORPUS_DIR:-$root/../shared/corpus}
fast=${CLEAVE_FUZZ_FAST_BUILD:-$root/build-fuzz-fast}
asan=${CLEAVE_FUZZ_BUILD:-$root/build-fuzz}
max_len=${CLEAVE_FUZZ_MAX_LEN:-4096}

launcher=()
if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
for build in "$fast" "$asan"; do
    sanitizers=address,undefined
    opt=-O1
    if [[ "$build" == "$fast" ]]; then
        sanitizers=undefined
        opt=-O2
    fi
    cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 "${launcher[@]}" \
        -DCLEAVE_FUZZ_SANITIZERS="$sanitizers" -DCLEAVE_FUZZ_OPT="$opt" >/dev/null
    nice -n 10 cmake --build "$build" -j "${CLEAVE_FUZZ_JOBS:-2}" \
        --target "${harnesses[@]/#/fuzz_}"
done

seeds_for() {
    case "$1" in
    relay) echo samples tests/data/malformed "$corpus/relay" ;;
    relax) echo tests/fuzz/seeds/relax "$corpus/relax" ;;
    graphjson) echo tests/data/map "$corpus/graph_json" ;;
    onnx) echo samples ;;
    plan) echo tests/fuzz/seeds/plan tests/data/hostile ;;
    project) echo tests/fuzz/seeds/project tests/data/hostile ;;
    tables) echo tests/fuzz/seeds/tables ;;
    esac
}
dict_for() {
    case "$1" in
    relay) echo -dict=tests/fuzz/relay.dict ;;
    relax) echo -dict=tests/fuzz/relax.dict ;;
    onnx) ;;
    *) echo -dict=tests/fuzz/json.dict ;;
    esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:malloc_context_size=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$asan/artifacts"
printf '%-10s %12s %8s %8s %8s %8s  %s\n' harness executions seconds exec/s corpus cov replay
for harness in "${harnesses[@]}"; do
    work="$asan/corpus/$harness"
    mkdir -p "$work"
    read -r -a seeds <<<"$(seeds_for "$harness")"
    existing=()
    for d in "${seeds[@]}"; do [[ -d "$d" ]] && existing+=("$d"); done
    log="$fast/campaign_$harness.log"
    start=$(date +%s)
    # shellcheck disable=SC2046 # the dictionary flag is one word or none
    nice -n 10 "$fast/fuzz_$harness" -runs="$runs" -max_total_time="${CLEAVE_FUZZ_MAX_SECONDS:-0}" \
        -timeout=20 -rss_limit_mb=2560 \
        -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$asan/artifacts/$harness-" \
        $(dict_for "$harness") "$work" "${existing[@]}" >"$log" 2>&1 || {
        echo "fuzz_$harness FAILED: see $log and $asan/artifacts/" >&2
        tail -n 40 "$log" >&2
        exit 1
    }
    seconds=$(($(date +%s) - start))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    replay_log="$asan/replay_$harness.log"
    if nice -n 10 "$asan/fuzz_$harness" -runs=0 -timeout=20 -rss_limit_mb=2560 \
        -max_len="$max_len" -artifact_prefix="$asan/artifacts/$harness-" "$work" \
        >"$replay_log" 2>&1; then
        replay="clean under ASan+UBSan"
    else
        replay="FAILED (see $replay_log)"
    fi
    printf '%-10s %12s %8s %8s %8s %8s  %s\n' "$harness" "$execs" "$seconds" \
        "$((execs / (seconds > 0 ? seconds : 1)))" "$(find "$work" -type f | wc -l)" "$cov" "$replay"
    [[ "$replay" == clean* ]] || exit 1
done
