#!/usr/bin/env bash
# Profile tachy-hello against nginx on a fixed request count (bench/README.md, "Profiling").
#
#   bench/profile.sh [--build DIR] [--n N] [--servers tachy-c,nginx] [--modes ka64,pipe16,ka1024,close]
#                    [--no-callgrind] [--no-perf]
#
# For each server (pinned to core 0; the load pinned to core 1) and mode - keep-alive with 64
# or 1,024 connections and pipelined x16 (h2load --h1, exact request counts), Connection:
# close (wrk, 16 connections, for N/20000 seconds) - :
#   cpu      server utime+stime from /proc/PID/stat over N requests -> µs/request
#   perf     perf stat (task-clock, context switches, migrations, faults) -> per request
#   strace   strace -c -f over N/5 requests -> syscalls per request, by syscall
#   callgrind instructions per request (callgrind_control -z / -d around the load) and the top
#            functions (tachy-c and nginx, keep-alive only, N/10 requests: valgrind is slow)
#   perf record -e cpu-clock -g: where the CPU goes (kernel vs user, top symbols)
# Writes bench/results/runs/profile-<timestamp>/summary.txt (the raw outputs in its raw/; git
# ignores runs/) and bench/results/profile-latest.txt, the copy git keeps.
set -euo pipefail
BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
BUILD="$BENCH/build/tachy" N=200000 SERVERS="tachy-c,nginx" CALLGRIND=1 PERF=1 MODES="ka64,pipe16"
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD="$(cd "$2" && pwd)"; shift ;;
    --n) N="$2"; shift ;;
    --servers) SERVERS="$2"; shift ;;
    --modes) MODES="$2"; shift ;;
    --no-callgrind) CALLGRIND=0 ;;
    --no-perf) PERF=0 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "profile.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
export PATH="$PATH:/usr/sbin:/sbin"
for t in h2load strace taskset; do command -v $t >/dev/null || { echo "profile.sh: $t missing (run bench/run.sh once, or apt-get install nghttp2-client strace)" >&2; exit 1; }; done
if [ "$BUILD" = "$BENCH/build/tachy" ]; then  # our own build dir: bring it up to date
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACHY_BUILD_TESTS=OFF \
        -DTACHY_BUILD_JNI=OFF -DTACHY_WERROR=OFF >/dev/null
  cmake --build "$BUILD" -j2 --target tachy-hello >/dev/null
fi
HELLO="$BUILD/examples/tachy-hello"
OUT="$BENCH/results/runs/profile-$(date -u +%Y%m%d-%H%M%S)"
RAW="$OUT/raw" # raw outputs (perf data, callgrind, strace, h2load, server logs): not committed
mkdir -p "$RAW"
NG="$BENCH/build/nginx-profile"
mkdir -p "$NG" "$BENCH/build/www/static"
[ -f "$BENCH/build/www/static/1m.bin" ] || head -c 1048576 /dev/urandom >"$BENCH/build/www/static/1m.bin"
PORT=18600
SRVPID= SRVPGID= AUXPID=
stop_server() {
  if [ -n "$SRVPGID" ]; then
    kill -TERM -- "-$SRVPGID" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 -- "-$SRVPGID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$SRVPGID" 2>/dev/null || true
  fi
  SRVPID= SRVPGID=
}
cleanup() { [ -n "$AUXPID" ] && kill "$AUXPID" 2>/dev/null; stop_server; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

ticks() { awk '{ s=$0; sub(/.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }

# start_server NAME [wrapper...]: sets SRVPID (the PID to measure) and SRVPGID
start_server() {
  local name="$1"; shift
  local log="$RAW/server-$name-$RANDOM.log"
  case "$name" in
    tachy-c)
      local idle=(); "$HELLO" -h 2>&1 | grep -q -- '-i MAX_IDLE' && idle=(-i 100000)
      setsid taskset -c 0 "$@" "$HELLO" -p $PORT -b 127.0.0.1 "${idle[@]}" >"$log" 2>&1 & ;;
    nginx|nginx-single)
      local mp=on; [ "$name" = nginx-single ] && mp=off
      sed -e "s#@PORT@#$PORT#; s#@PREFIX@#$NG#g; s#@STATIC@#$BENCH/build/www/static#" \
          -e "s#^master_process on;#master_process $mp;#" "$BENCH/servers/nginx.conf.in" >"$NG/nginx.conf"
      setsid taskset -c 0 "$@" nginx -p "$NG" -c "$NG/nginx.conf" >"$log" 2>&1 & ;;
  esac
  SRVPGID=$!
  for _ in $(seq 300); do
    (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1
  done
  SRVPID=$SRVPGID
  # the process to measure: nginx's worker; under valgrind/setsid the real PID
  sleep 0.5
  local kids; kids="$(cat /proc/$SRVPGID/task/*/children 2>/dev/null | tr ' ' '\n' | grep . || true)"
  if [ "$name" = nginx ]; then SRVPID="$(echo "$kids" | head -1)"; fi
}

load() {  # load N MODE -> the tool's output, then "DONE <requests> <req/s>"
  local n="$1" mode="$2" out
  case "$mode" in
    ka64)   out=$(taskset -c 1 timeout 300 h2load --h1 -t 1 -c 64 -n "$n" "http://127.0.0.1:$PORT/") ;;
    ka1024) out=$(taskset -c 1 timeout 300 h2load --h1 -t 1 -c 1024 -n "$n" "http://127.0.0.1:$PORT/") ;;
    pipe16) out=$(taskset -c 1 timeout 300 h2load --h1 -t 1 -c 64 -m 16 -n "$n" "http://127.0.0.1:$PORT/") ;;
    close)
      local secs=$(( n / 20000 )); [ "$secs" -lt 1 ] && secs=1
      out=$(BENCH_LUA_DIR="$BENCH/lua" taskset -c 1 timeout 300 wrk -t1 -c16 -d${secs}s -s "$BENCH/lua/close.lua" "http://127.0.0.1:$PORT/") ;;
  esac
  echo "$out"
  if [ "$mode" = close ]; then
    echo "$out" | awk '/requests in/ {n=$1} /^Requests\/sec/ {r=$2} END {print "DONE", n, r}'
  else
    echo "$out" | awk '/^requests:/ {n=$8} /^finished in/ {r=$4} END {print "DONE", n, r}'
  fi
}

summary="$OUT/summary.txt"
: >"$summary"
IFS=, read -ra SV <<<"$SERVERS"
for s in "${SV[@]}"; do
  for mode in ${MODES//,/ }; do
    echo "== $s $mode" | tee -a "$summary"
    start_server "$s"
    load 20000 "$mode" >/dev/null   # warm-up
    # 1. CPU per request from /proc + perf stat
    t0=$(ticks "$SRVPID")
    if [ "$PERF" = 1 ]; then
      perf stat -e task-clock,context-switches,cpu-migrations,page-faults -p "$SRVPID" \
        -o "$RAW/perfstat-$s-$mode.txt" & AUXPID=$!
      sleep 0.3
    fi
    load "$N" "$mode" >"$RAW/h2load-$s-$mode.txt"
    t1=$(ticks "$SRVPID")
    if [ "$PERF" = 1 ]; then kill -INT "$AUXPID"; wait "$AUXPID" 2>/dev/null || true; AUXPID=; fi
    done_n=$(awk '/^DONE/ {print $2}' "$RAW/h2load-$s-$mode.txt")
    rps=$(awk '/^DONE/ {print $3}' "$RAW/h2load-$s-$mode.txt")
    cs=$(awk '/context-switches/ {gsub(",","",$1); print $1}' "$RAW/perfstat-$s-$mode.txt" 2>/dev/null || echo 0)
    tc=$(awk '/task-clock/ {gsub(",","",$1); print $1}' "$RAW/perfstat-$s-$mode.txt" 2>/dev/null || echo 0)
    thr=$(ls "/proc/$SRVPID/task" | wc -l)
    awk -v t0="$t0" -v t1="$t1" -v n="$done_n" -v rps="$rps" -v cs="$cs" -v tc="$tc" -v thr="$thr" 'BEGIN {
      printf "requests %d, %s req/s, cpu %.2f us/req (/proc), task-clock %.2f us/req, context switches %.3f /req, %d threads after\n",
             n, rps, (t1 - t0) * 10000.0 / n, tc * 1000.0 / n, cs / n, thr }' | tee -a "$summary"
    # 2. perf record: where the CPU goes
    if [ "$PERF" = 1 ]; then
      perf record -q -e cpu-clock -F 2000 -g -p "$SRVPID" -o "$RAW/perf-$s-$mode.data" >/dev/null 2>&1 & AUXPID=$!
      sleep 0.3
      load "$((N / 2))" "$mode" >/dev/null
      kill -INT "$AUXPID"; wait "$AUXPID" 2>/dev/null || true; AUXPID=
      perf report -i "$RAW/perf-$s-$mode.data" --no-children -g none --sort dso,sym --stdio 2>/dev/null \
        | grep -v '^$' | grep -E '^ +[0-9]' | head -40 >"$RAW/perf-top-$s-$mode.txt" || true
      perf report -i "$RAW/perf-$s-$mode.data" --no-children -g none --sort dso --stdio 2>/dev/null \
        | grep -E '^ +[0-9]' | head -8 >"$RAW/perf-dso-$s-$mode.txt" || true
      echo "cpu by dso:" | tee -a "$summary"; sed 's/^/   /' "$RAW/perf-dso-$s-$mode.txt" | tee -a "$summary"
      echo "top symbols:" | tee -a "$summary"; head -15 "$RAW/perf-top-$s-$mode.txt" | sed 's/^/   /' | tee -a "$summary"
    fi
    # 3. strace -c: syscalls per request
    ns=$((N / 5))
    strace -c -f -q -p "$SRVPID" -o "$RAW/strace-$s-$mode.txt" & AUXPID=$!
    sleep 1
    load "$ns" "$mode" >"$RAW/h2load-strace-$s-$mode.txt"
    sleep 0.3; kill -INT "$AUXPID"; wait "$AUXPID" 2>/dev/null || true; AUXPID=
    sdone=$(awk '/^DONE/ {print $2}' "$RAW/h2load-strace-$s-$mode.txt")
    awk -v n="$sdone" '
      $NF != "total" && /^[ ]*[0-9.]+[ ]+[0-9.]+[ ]+[0-9]+[ ]+[0-9]+/ { calls = ($5 ~ /^[0-9]+$/) ? $4 : $4; name = $NF
        printf "   %-16s %8.3f /req\n", name, calls / n }
      /total$/ { printf "   %-16s %8.3f /req\n", "TOTAL", $4 / n }' "$RAW/strace-$s-$mode.txt" \
      | awk '$2 + 0 >= 0.001 || $1 == "TOTAL"' \
      | { echo "syscalls per request (strace -c -f over $sdone requests; < 0.001/req left out):"; cat; } | tee -a "$summary"
    stop_server
  done
done

# 4. callgrind: instructions per request, keep-alive (and pipelined) on a fixed count
if [ "$CALLGRIND" = 1 ] && command -v valgrind >/dev/null; then
  NC=$((N / 10))
  for s in "${SV[@]}"; do
    name=$s; [ "$s" = nginx ] && name=nginx-single   # one process under valgrind
    for mode in ${MODES//,/ }; do
      [ "$mode" = ka64 ] || [ "$mode" = pipe16 ] || continue   # valgrind: the two main modes only
      echo "== callgrind $s $mode ($NC requests)" | tee -a "$summary"
      start_server "$name" valgrind --tool=callgrind --trace-children=no \
        --callgrind-out-file="$RAW/callgrind-$s-$mode.out"
      vpid=$(pgrep -P "$SRVPGID" | head -1 || true); [ -n "$vpid" ] || vpid=$SRVPGID
      # valgrind runs the server in the same PID as taskset exec'd into
      load 2000 "$mode" >/dev/null
      callgrind_control -z "$SRVPGID" >/dev/null 2>&1 || callgrind_control -z >/dev/null 2>&1 || true
      load "$NC" "$mode" >"$RAW/h2load-callgrind-$s-$mode.txt"
      callgrind_control -d "$SRVPGID" >/dev/null 2>&1 || callgrind_control -d >/dev/null 2>&1 || true
      sleep 1
      stop_server
      sleep 1
      f=$(grep -l '^desc: Trigger: dump' "$RAW"/callgrind-$s-$mode.out* 2>/dev/null | head -1 || true)
      if [ -n "$f" ]; then
        callgrind_annotate --threshold=100 --auto=no "$f" 2>/dev/null | grep -v -e "clone.S:clone" -e "start_thread" -e "(below main)" -e "libc-start.c" | head -60 >"$RAW/callgrind-top-$s-$mode.txt" || true
        tot=$(grep -m1 '^summary:' "$f" | awk '{print $2}')
        awk -v t="$tot" -v n="$NC" 'BEGIN { printf "instructions per request: %.0f (%s Ir / %d)\n", t / n, t, n }' | tee -a "$summary"
        grep -E '^ *[0-9,]+ +\(' "$RAW/callgrind-top-$s-$mode.txt" | head -15 | sed 's/^/   /' | tee -a "$summary"
      fi
    done
  done
fi
cp "$summary" "$BENCH/results/profile-latest.txt"
echo "profile: ${OUT#$ROOT/}/summary.txt and bench/results/profile-latest.txt"
