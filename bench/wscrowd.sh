#!/usr/bin/env bash
# bench/wscrowd.sh - the WebSocket crowd benchmark: CLIENTS clients ramped over RAMP seconds,
# each reading MESSAGES time stamps from tachy-hello's /ts (one every 500 ms per connection),
# |client clock - server stamp| in a histogram (bench/wsload.c, mode ts).
#
#   bench/wscrowd.sh [path/to/tachy-hello] [CLIENTS] [MESSAGES] [RAMP]
#                    (defaults: build/release/examples/tachy-hello 25000 120 30)
#
# The server runs on core 0 and the client on core 1 (taskset). Both need about CLIENTS + 100
# descriptors: the script raises `ulimit -n` itself and says so when it cannot. While the
# load runs it samples the server every 0.5 s and prints its CPU time (user + system), its
# peak RSS and its peak thread count. Loopback only. Takes about RAMP + MESSAGES/2 + 5 s.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
HELLO="${1:-$ROOT/build/release/examples/tachy-hello}"
CLIENTS="${2:-25000}"
MESSAGES="${3:-120}"
RAMP="${4:-30}"
PORT="${WSCROWD_PORT:-18777}"

if [ ! -x "$HELLO" ]; then
    echo "wscrowd.sh: $HELLO not found (build it: cmake --build build/release)" >&2
    exit 1
fi
mkdir -p "$HERE/build"
cc -O2 -Wall -Wextra -o "$HERE/build/wsload" "$HERE/wsload.c" || exit 1

NEED=$((CLIENTS + 256))
if [ "$(ulimit -n)" -lt "$NEED" ]; then
    if ulimit -n "$NEED" 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null; then
        echo "wscrowd.sh: raised ulimit -n to $(ulimit -n)"
    fi
    if [ "$(ulimit -n)" -lt "$NEED" ]; then
        echo "wscrowd.sh: cannot raise ulimit -n to $NEED (hard limit $(ulimit -Hn)):" \
             "connections beyond $(ulimit -n) will fail" >&2
    fi
fi

PIN_S="" PIN_C=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    PIN_S="taskset -c 0" PIN_C="taskset -c 1"
else
    echo "wscrowd.sh: taskset or a second CPU missing: not pinned" >&2
fi

LOG="$(mktemp -d)"
$PIN_S "$HELLO" -p "$PORT" >"$LOG/hello.out" 2>"$LOG/hello.err" &
SPID=$!
trap 'kill $SPID 2>/dev/null; wait $SPID 2>/dev/null; rm -rf "$LOG"' EXIT
for _ in $(seq 1 50); do
    grep -q "^listening" "$LOG/hello.out" && break
    sleep 0.1
done
grep -q "^listening" "$LOG/hello.out" || { echo "wscrowd.sh: server did not start" >&2; exit 1; }

TCK=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$SPID/stat"; }
CPU0=$(cpu_ticks)
$PIN_C "$HERE/build/wsload" ts -p "$PORT" -c "$CLIENTS" -m "$MESSAGES" -r "$RAMP" >"$LOG/load.out" &
LPID=$!
PEAK_RSS=0 PEAK_THR=0
while kill -0 $LPID 2>/dev/null; do
    RSS=$(awk '/^VmRSS/{print $2}' "/proc/$SPID/status")
    THR=$(awk '/^Threads/{print $2}' "/proc/$SPID/status")
    [ "${RSS:-0}" -gt "$PEAK_RSS" ] && PEAK_RSS=$RSS
    [ "${THR:-0}" -gt "$PEAK_THR" ] && PEAK_THR=$THR
    sleep 0.5
done
wait $LPID
RC=$?
CPU1=$(cpu_ticks)
grep -v '^  ' "$LOG/load.out"
CPU_S=$(awk -v a="$CPU0" -v b="$CPU1" -v t="$TCK" 'BEGIN{printf "%.2f", (b - a) / t}')
echo "server: CPU ${CPU_S} s (user+system) during the run, peak RSS $((PEAK_RSS / 1024)) MiB," \
     "peak threads $PEAK_THR"
echo "CROWDJSON {\"clients\":$CLIENTS,\"messages\":$MESSAGES,\"ramp_s\":$RAMP,\"server_cpu_s\":$CPU_S,\"peak_rss_kib\":$PEAK_RSS,\"peak_threads\":$PEAK_THR}"
exit $RC
