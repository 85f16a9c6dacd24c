#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
#
# A long local fuzz campaign (not run by CI; CI runs run_fuzzers.sh for 30 s a harness over the
# committed corpus this script grows):
#   1. builds the harnesses with UBSan alone at -O2 into build-fuzz-fast/ (about twice the
#      executions per second of the ASan build) and with ASan + UBSan into build-fuzz/;
#   2. runs each chosen harness for a time budget (or until an execution count, whichever comes
#      first), inputs up to CLEAVE_FUZZ_MAX_LEN bytes (default 4096; onnx 64 KiB, graphjson
#      8 KiB, diff and render 8 KiB), growing the same working corpus folders as run_fuzzers.sh
#      (build-fuzz/corpus/<harness>), seeded from the committed corpus tests/fuzz/corpus/<harness>,
#      the tree's seeds and the shared real-model corpus;
#   3. merges what it found into the committed corpus: libFuzzer -merge=1 of the committed and
#      the working corpus into an empty folder (inputs cut to the size fuzzed, diff's to 2 KiB;
#      edges only, not hit counts, so the committed corpus stays small: about 2.5 MB for all),
#      which then replaces tests/fuzz/corpus/<harness> but for its repro-* files (reproducers
#      of fixed findings, kept by name). The shared corpus is never a merge input, so none of
#      its files is copied into the tree;
#   4. replays the merged corpus once under the ASan + UBSan build, so a memory error the fast
#      build cannot see still fails the campaign;
#   5. prints one line per harness: executions, seconds, executions per second, edges covered
#      (libFuzzer's cov:), features (ft:), committed corpus files and KiB, crashes, replay.
# A crash, leak, timeout (> 20 s per input), out-of-memory or sanitizer report ends that
# harness's run (the reproducer is left in build-fuzz/artifacts/, and is not merged); the other
# harnesses still run, and the script exits non-zero at the end.
#
# Usage: tests/fuzz/campaign.sh [options] [HARNESS...]
#   -t SECONDS   time budget per harness (default 600)
#   -r RUNS      stop a harness earlier after RUNS executions (default 10000000; 0: time only)
#   -c CORES     1 (default): one harness after the other; 2: two harnesses at a time, one
#                libFuzzer process per core (never -jobs/-workers)
#   -n           no merge: leave tests/fuzz/corpus untouched
#   -b           no build: use the harnesses already in the build folders (the replay is skipped
#                when the ASan build has not got the harness)
#   HARNESS      default: every harness of tests/fuzz (tests/fuzz/fuzz_<harness>.cpp)
# Environment: CLEAVE_FUZZ_MAX_LEN (input size for every harness), CLEAVE_CORPUS_DIR
# (shared real-model corpus, default ../shared/corpus), CLEAVE_FUZZ_JOBS (build jobs, default
# 2), CLEAVE_FUZZ_NICE (default 19).
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$(pwd)
seconds=600
runs=10000000
cores=1
merge=1
build_first=1
while getopts "t:r:c:nb" opt; do
    case "$opt" in
    t) seconds=$OPTARG ;;
    r) runs=$OPTARG ;;
    c) cores=$OPTARG ;;
    n) merge=0 ;;
    b) build_first=0 ;;
    *)
        sed -n '/^# Usage:/,/^# Environment/p' "$0" >&2
        exit 2
        ;;
    esac
done
shift $((OPTIND - 1))
harnesses=("$@")
if [[ ${#harnesses[@]} -eq 0 ]]; then
    for f in tests/fuzz/fuzz_*.cpp; do
        f=${f##*/fuzz_}
        harnesses+=("${f%.cpp}")
    done
fi
if [[ "$cores" != 1 && "$cores" != 2 ]]; then
    echo "campaign.sh: -c takes 1 or 2" >&2
    exit 2
fi
corpus=${CLEAVE_CORPUS_DIR:-$root/../shared/corpus}
fast=${CLEAVE_FUZZ_FAST_BUILD:-$root/build-fuzz-fast}
asan=${CLEAVE_FUZZ_BUILD:-$root/build-fuzz}
max_len=${CLEAVE_FUZZ_MAX_LEN:-4096}
niceness=${CLEAVE_FUZZ_NICE:-19}
committed_max_len=65536 # the largest input the replay and run_fuzzers.sh read whole

launcher=()
if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
for build in "$fast" "$asan"; do
    [[ $build_first == 1 ]] || break
    sanitizers=address,undefined
    opt=-O1
    if [[ "$build" == "$fast" ]]; then
        sanitizers=undefined
        opt=-O2
    fi
    cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 "${launcher[@]}" \
        -DCLEAVE_FUZZ_SANITIZERS="$sanitizers" -DCLEAVE_FUZZ_OPT="$opt" >/dev/null
    nice -n "$niceness" cmake --build "$build" -j "${CLEAVE_FUZZ_JOBS:-2}" \
        --target "${harnesses[@]/#/fuzz_}"
done

seeds_for() {
    echo "tests/fuzz/corpus/$1"
    case "$1" in
    relay) echo samples tests/data/malformed "$corpus/relay" ;;
    relax) echo tests/fuzz/seeds/relax "$corpus/relax" ;;
    graphjson) echo tests/data/map "$corpus/graph_json" ;;
    onnx) echo samples ;;
    plan) echo tests/fuzz/seeds/plan tests/data/hostile ;;
    project) echo tests/fuzz/seeds/project tests/data/hostile ;;
    *) echo "tests/fuzz/seeds/$1" ;;
    esac
}
dict_for() {
    case "$1" in
    relay | diff) echo -dict=tests/fuzz/relay.dict ;;
    relax) echo -dict=tests/fuzz/relax.dict ;;
    onnx) ;;
    *) echo -dict=tests/fuzz/json.dict ;;
    esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:malloc_context_size=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$asan/artifacts" "$fast/results"

# The bytes of the files under a folder, in KiB.
kib() {
    find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%d\n", s / 1024 }'
}

# Runs, merges and replays one harness; writes its table line to $fast/results/<harness>.
campaign_one() {
    local harness=$1 work="$asan/corpus/$1" committed="$root/tests/fuzz/corpus/$1"
    local log="$fast/campaign_$1.log" seeds existing=() d start took execs cov ft crashes
    mkdir -p "$work" "$committed"
    read -r -a seeds <<<"$(seeds_for "$harness" | tr '\n' ' ')"
    for d in "${seeds[@]}"; do [[ -d "$d" ]] && existing+=("$d"); done
    # Inputs that are whole models need more room than 4 KiB: an ONNX protobuf cut short is
    # only ever a truncated file, a cut graph.json a syntax error; a diff input holds two models.
    local len=$max_len
    if [[ -z ${CLEAVE_FUZZ_MAX_LEN:-} ]]; then
        case "$harness" in
        onnx) len=65536 ;;
        graphjson) len=8192 ;;
        diff | render) len=8192 ;;
        esac
    fi
    # The committed corpus keeps inputs of the size fuzzed; diff's, whose edges are mostly the
    # importers' (fuzzed by their own harnesses), are cut to 2 KiB: 10 % fewer edges, half the
    # bytes.
    local keep=$len
    [[ $harness == diff ]] && keep=2048
    local before
    before=$(find "$asan/artifacts" -name "$harness-*" | wc -l)
    start=$(date +%s)
    local status=ok
    # shellcheck disable=SC2046 # the dictionary flag is one word or none
    nice -n "$niceness" "$fast/fuzz_$harness" -runs="$((runs > 0 ? runs : -1))" \
        -max_total_time="$seconds" \
        -timeout=20 -rss_limit_mb=2560 -max_len="$len" -print_final_stats=1 \
        -artifact_prefix="$asan/artifacts/$harness-" $(dict_for "$harness") \
        "$work" "${existing[@]}" >"$log" 2>&1 || status=FAILED
    took=$(($(date +%s) - start))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [[ -z "$execs" ]]; then # a crash: the last status line has the count
        execs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    fi
    execs=${execs:-0}
    cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    crashes=$(($(find "$asan/artifacts" -name "$harness-*" | wc -l) - before))

    if [[ $merge == 1 ]]; then
        local merged="$fast/merge_$harness"
        rm -rf "$merged"
        mkdir -p "$merged"
        if nice -n "$niceness" "$fast/fuzz_$harness" -merge=1 -use_counters=0 -timeout=20 \
            -rss_limit_mb=2560 -max_len="$keep" "$merged" "$committed" "$work" \
            >"$fast/merge_$harness.log" 2>&1; then
            # Reproducers of fixed findings (repro-*) stay, whatever the merge chose.
            find "$committed" -type f ! -name 'repro-*' -delete
            find "$merged" -type f -exec mv -t "$committed" {} +
        else
            status=FAILED
            echo "fuzz_$harness: merge FAILED, see $fast/merge_$harness.log" >&2
        fi
    fi

    local replay_log="$asan/replay_$harness.log" replay
    if [[ ! -x "$asan/fuzz_$harness" ]]; then
        replay="skipped (no ASan build)"
    elif nice -n "$niceness" "$asan/fuzz_$harness" -runs=0 -timeout=20 -rss_limit_mb=2560 \
        -max_len="$committed_max_len" -artifact_prefix="$asan/artifacts/$harness-replay-" \
        "$committed" >"$replay_log" 2>&1; then
        replay="clean (ASan+UBSan)"
    else
        replay="FAILED ($replay_log)"
        status=FAILED
    fi
    if [[ $status != ok ]]; then
        echo "fuzz_$harness: FAILED, see $log and $asan/artifacts/" >&2
        grep -E "ERROR|runtime error|SUMMARY|Test unit written" "$log" | head -n 8 >&2 || true
    fi
    printf '%-10s %12s %7s %8s %7s %7s %6s %8s %7s  %s\n' "$harness" "$execs" "$took" \
        "$((execs / (took > 0 ? took : 1)))" "${cov:-?}" "${ft:-?}" \
        "$(find "$committed" -type f | wc -l)" "$(kib "$committed")" \
        "$crashes" \
        "$replay" >"$fast/results/$harness"
    [[ $status == ok ]]
}

header=$(printf '%-10s %12s %7s %8s %7s %7s %6s %8s %7s  %s' harness executions seconds exec/s \
    cov ft files KiB crashes replay)
rm -f "$fast/results/"*
failed=0
if [[ $cores == 1 ]]; then
    echo "$header"
    for harness in "${harnesses[@]}"; do
        campaign_one "$harness" || failed=1
        cat "$fast/results/$harness"
    done
else
    # Two queues, one libFuzzer process each at any time.
    queue() {
        local q=0 h
        for h in "${harnesses[@]}"; do
            if ((q % 2 == $1)); then campaign_one "$h" || echo "$h" >>"$fast/results/.failed"; fi
            q=$((q + 1))
        done
    }
    queue 0 &
    first=$!
    queue 1 &
    second=$!
    wait "$first" "$second"
    echo "$header"
    for harness in "${harnesses[@]}"; do cat "$fast/results/$harness"; done
    [[ -e "$fast/results/.failed" ]] && failed=1
fi
echo "committed corpus: $(kib tests/fuzz/corpus) KiB in" \
    "$(find tests/fuzz/corpus -type f | wc -l) files, largest" \
    "$(find tests/fuzz/corpus -type f -printf '%s\n' | sort -n | tail -1) bytes"
exit $failed
