#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] - builds the libFuzzer harnesses (tests/fuzz/, clang-14 with
# AddressSanitizer + UndefinedBehaviorSanitizer) and runs each one for SECONDS (default
# 20), after one pass over its seed corpus and committed regression inputs; JOBS (default 2)
# harnesses at a time, each on one core.
#
#   FUZZERS="fuzz_ws fuzz_inflate" scripts/fuzz.sh 600    only those harnesses
#
# New inputs that reach new code go to build/fuzz/work/<harness>/ (not into the tree).
# A crash or a failed property leaves the input in build/fuzz/artifacts/<harness>/: copy it
# into tests/fuzz/regressions/<harness>/ (and fix the bug) so every later run replays it.
# Installs clang-14 and libclang-rt-14-dev when missing and root (Debian 12).
# Prints "N passed, M failed" (one per harness) and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECS=${1:-20}
BUILD=${TACHY_FUZZ_BUILD:-$ROOT/build/fuzz}
FUZZERS=${FUZZERS:-fuzz_request fuzz_chunked fuzz_ws fuzz_inflate fuzz_server fuzz_proxy fuzz_h2}

need=()
for p in clang-14 libclang-rt-14-dev cmake ninja-build zlib1g-dev libssl-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "fuzz.sh: missing packages: ${need[*]} (apt-get install them)" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

CC=clang-14 cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTACHY_FUZZ=ON -DTACHY_BUILD_TESTS=OFF -DTACHY_BUILD_EXAMPLES=OFF -DTACHY_BUILD_JNI=OFF \
    >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
# only the harnesses (and the instrumented core they link), not the rest of the tree
cmake --build "$BUILD" -j "${JOBS:-2}" --target $FUZZERS >/dev/null ||
    { cmake --build "$BUILD" -j 1 --target $FUZZERS 2>&1 | tail -30; echo "0 passed, 1 failed"; exit 1; }

# One harness: replays its committed inputs, then fuzzes; prints one PASS or FAIL line.
fuzz_one() {
    local f=$1
    local bin="$BUILD/tests/fuzz/$f"
    local seeds="$ROOT/tests/fuzz/corpus/$f"
    local regs="$ROOT/tests/fuzz/regressions/$f"
    local work="$BUILD/work/$f"
    local art="$BUILD/artifacts/$f"
    mkdir -p "$work" "$art"
    local dirs=("$seeds")
    [ -d "$regs" ] && dirs+=("$regs")
    local log="$BUILD/$f.log"
    local start execs cov
    start=$(date +%s)
    # 1. replay the committed inputs; 2. fuzz for SECS seconds (work dir first: new units
    # are written there, the seed and regression folders are only read). -timeout: an input
    # that takes over 20 s counts as a hang.
    if "$bin" -runs=0 "${dirs[@]}" >"$log" 2>&1 &&
        timeout $((SECS + 120)) "$bin" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2048 \
            -max_len=4096 -print_final_stats=1 -artifact_prefix="$art/" \
            "$work" "${dirs[@]}" >>"$log" 2>&1; then
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
        echo "PASS $f: ${execs:-?} inputs in $(( $(date +%s) - start )) s (${cov:-cov: ?})"
    else
        echo "FAIL $f (log: $log, inputs in $art/):"
        grep -E "ERROR|property failed|fuzz_server:|fuzz_h2:|SUMMARY|Test unit written" "$log" | head -20
    fi
}

# JOBS harnesses at a time (each fuzzes on one core), then their lines in order.
for f in $FUZZERS; do
    while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-2}" ]; do
        wait -n || true
    done
    fuzz_one "$f" >"$BUILD/$f.result" 2>&1 &
done
wait
passed=0
failed=0
for f in $FUZZERS; do
    cat "$BUILD/$f.result"
    if grep -q "^PASS $f" "$BUILD/$f.result"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
