#!/usr/bin/env bash
# What observing an exchange costs (issue 26): server CPU per keep-alive request of
# tachy-hello with neither metrics nor access log (a -DTACHY_BENCH_NO_OBSERVER=ON build),
# with the metrics counters, and with both (--access-log), in alternating rounds; see
# bench/README.md "What observing costs".
#
#   bench/observe.sh [--rounds 7] [--seconds 4]     # CPU per request, same-round ratios
#   bench/observe.sh --callgrind [--n1 2000 --n2 12000]  # instructions per request
#
# Builds the two tachy-hello variants into bench/build/observe-{normal,baseline} (Release).
# Only 127.0.0.1; server on core 0, wrk on core 1.
set -euo pipefail
BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
OUT="$BENCH/build"
mkdir -p "$OUT"
for v in normal baseline; do
    flag=OFF
    [ $v = baseline ] && flag=ON
    cmake -S "$ROOT" -B "$OUT/observe-$v" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTACHY_BUILD_JNI=OFF \
        -DTACHY_BUILD_TESTS=OFF -DTACHY_BENCH_NO_OBSERVER=$flag >/dev/null
    nice -n 10 cmake --build "$OUT/observe-$v" -j2 --target tachy-hello >/dev/null
done
exec python3 "$BENCH/lib/observe_cost.py" --hello "$OUT/observe-normal/examples/tachy-hello" \
    --baseline "$OUT/observe-baseline/examples/tachy-hello" "$@"
