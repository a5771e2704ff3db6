#!/usr/bin/env bash
# bench/wsrss.sh - what a parked WebSocket costs tachy C (issue 13): RSS and threads of
# tachy-hello with N open, idle WebSocket clients on its /ws echo endpoint.
#
#   bench/wsrss.sh [--counts 5000,10000] [--hello PATH/tachy-hello] [--hold SECONDS]
#
# For each count: a fresh tachy-hello (pinned to core 0 when taskset and a second CPU are
# there), its RSS before any client, then bench/wsload.c `tick -u /ws` (on core 1) opens
# COUNT connections, upgrades them and only listens (nothing is sent, so every socket stays
# parked); once all have upgraded, the server's VmRSS and Threads are sampled every 0.5 s for
# --hold seconds (default 4) and the last sample is reported, with (RSS - RSS before) divided
# by the number of connections that upgraded.
# The script raises `ulimit -n` to the hard limit itself (and says so, or that it cannot);
# counts the limit does not allow (server and client need one descriptor per client each)
# are cut to what fits, with the reason printed. Every wait is bounded.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
COUNTS="5000,10000" HELLO="" HOLD=4
while [ $# -gt 0 ]; do
    case "$1" in
    --counts) COUNTS="$2"; shift 2 ;;
    --hello) HELLO="$2"; shift 2 ;;
    --hold) HOLD="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "wsrss.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
    esac
done
WORK="$HERE/build"
mkdir -p "$WORK"
cc -O2 -Wall -Wextra -o "$WORK/wsload" "$HERE/wsload.c" || exit 1
. "$HERE/lib/hello.sh"
tachy_hello_find "$WORK/wsrss-build.log" || { echo "wsrss.sh: cannot build tachy-hello ($WORK/wsrss-build.log)"; exit 1; }
HARD=$(ulimit -Hn)
if [ "$(ulimit -n)" != "$HARD" ]; then
    if ulimit -n "$HARD" 2>/dev/null; then echo "wsrss.sh: raised ulimit -n to $(ulimit -n) (the hard limit)"
    else echo "wsrss.sh: cannot raise ulimit -n above $(ulimit -n) (hard $HARD)"; fi
fi
LIMIT=$(ulimit -n)
PIN_S="" PIN_C=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then PIN_S="taskset -c 0" PIN_C="taskset -c 1"; fi
rss_of() { awk '/^VmRSS/{print $2}' "/proc/$1/status" 2>/dev/null; }
thr_of() { awk '/^Threads/{print $2}' "/proc/$1/status" 2>/dev/null; }
PORT="${WSRSS_PORT:-18977}"
SPID="" LPID=""
cleanup() {
    [ -n "$LPID" ] && kill "$LPID" 2>/dev/null && wait "$LPID" 2>/dev/null
    if [ -n "$SPID" ] && kill -0 "$SPID" 2>/dev/null; then
        kill -TERM "$SPID"; for _ in $(seq 1 50); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$SPID" 2>/dev/null
    fi
    [ -n "$SPID" ] && wait "$SPID" 2>/dev/null
    SPID="" LPID=""
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM
LOG="$(mktemp -d /tmp/wsrss.XXXXXX)"
printf '%-8s %12s %12s %14s %8s\n' clients "RSS before" "RSS parked" "per socket" threads
IFS=, read -r -a CS <<<"$COUNTS"
for n in "${CS[@]}"; do
    if [ $((LIMIT - 64)) -lt "$n" ]; then
        echo "wsrss.sh: $n clients do not fit RLIMIT_NOFILE $LIMIT (one descriptor per client in the server and in the client): running $((LIMIT - 64))"
        n=$((LIMIT - 64))
    fi
    PORT=$((PORT + 1))
    $PIN_S "$HELLO" -p "$PORT" >"$LOG/hello-$n.log" 2>&1 &
    SPID=$!
    for _ in $(seq 1 100); do grep -q "^listening" "$LOG/hello-$n.log" 2>/dev/null && break; sleep 0.1; done
    grep -q "^listening" "$LOG/hello-$n.log" || { echo "wsrss.sh: tachy-hello did not start ($LOG/hello-$n.log)"; exit 1; }
    sleep 0.3
    r0=$(rss_of "$SPID")
    $PIN_C "$WORK/wsload" tick -p "$PORT" -u /ws -c "$n" -w 60 -d $((HOLD + 2)) >"$LOG/wsload-$n.txt" 2>&1 &
    LPID=$!
    for _ in $(seq 1 1300); do
        grep -q "connections upgraded" "$LOG/wsload-$n.txt" 2>/dev/null && break
        kill -0 "$LPID" 2>/dev/null || break
        sleep 0.05
    done
    up=$(grep -o '[0-9]*/[0-9]* connections upgraded' "$LOG/wsload-$n.txt")
    ok=${up%%/*}
    if [ -z "$ok" ] || [ "$ok" -lt 1 ]; then echo "wsrss.sh: $n: no connection upgraded ($LOG)"; exit 1; fi
    r1=0 t1=0
    for _ in $(seq 1 $((HOLD * 2))); do sleep 0.5; r1=$(rss_of "$SPID"); t1=$(thr_of "$SPID"); done
    # per socket: over the connections that did upgrade (a connect() can fail when an
    # earlier run's TIME_WAIT sockets hold the client's ports; the line says how many)
    printf '%-8s %9.1f MiB %9.1f MiB %11.0f B %8s   (%s)\n' "$n" "$(echo "$r0/1024" | bc -l)" \
        "$(echo "$r1/1024" | bc -l)" "$(echo "($r1-$r0)*1024/$ok" | bc -l)" "$t1" "$up"
    wait "$LPID" 2>/dev/null; LPID=""
    cleanup
done
rm -rf "$LOG"
