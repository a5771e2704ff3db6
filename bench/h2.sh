#!/usr/bin/env bash
# bench/h2.sh - the HTTP/2 benchmark in one command: h2load -c16 -m32 and -c64 -m100, over h2c
# (prior knowledge) and over TLS (ALPN h2), against h2o (1 thread), nginx (1 worker) and
# tachy-hello, all serving the same 13-byte body; server CPU per request and p99 side by
# side (bench/README.md, "HTTP/2"). tachy-hello is skipped, with the reason, while it does
# not answer HTTP/2.
#
#   bench/h2.sh [--rounds N] [--duration S] [--profiles a,b] [--servers a,b] [--build DIR]
#               [--no-install]
#
#   --profiles   h2c-c16m32 h2c-c64m100 tls-c16m32 tls-c64m100 (default: all four)
#   --servers    h2o nginx tachy-c (default: all three)
#   --rounds N   alternating rounds (default 3); --duration S: seconds per run (default 4)
#   --build DIR  reuse a tachy CMake build dir (DIR/examples/tachy-hello); default: build
#                into bench/build/tachy as bench/run.sh does
# Output: bench/results/runs/h2-<UTC stamp>/table.md (+ raw/: every h2load output, server logs,
# results.json; git ignores runs/) and its copy bench/results/h2-latest.md, which git keeps.
# Only 127.0.0.1; every server started is stopped on exit.
set -euo pipefail
BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
ROUNDS=3 DURATION=4 PROFILES= SERVERS=h2o,nginx,tachy-c BUILD= INSTALL=1 JAR=
CMDLINE="bench/h2.sh $*"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift ;;
    --duration) DURATION=$2; shift ;;
    --profiles) PROFILES=$2; shift ;;
    --servers) SERVERS=$2; shift ;;
    --build) BUILD="$(cd "$2" && pwd)"; shift ;;
    --no-install) INSTALL=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "h2.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
source "$BENCH/lib/servers.sh"  # bench_start, apt_install, need_cmd
source "$ROOT/tests/h2/lib.sh"  # h2_cert, h2_ref_conf (the reference servers' configuration)
bench_start h2.sh h2-
export PATH="$PATH:/usr/sbin:/sbin"
need_cmd h2load nghttp2-client || { echo "h2.sh: h2load is required" >&2; exit 1; }
need_cmd taskset util-linux || { echo "h2.sh: taskset is required" >&2; exit 1; }
need_cmd curl curl || { echo "h2.sh: curl is required" >&2; exit 1; }
need_cmd h2o h2o || say "h2o missing: no h2o rows"
need_cmd nginx nginx || say "nginx missing: no nginx rows"

# tachy-hello, built as bench/run.sh builds it (or --build DIR)
HELLO=
if [[ ",$SERVERS," == *",tachy-c,"* ]]; then
  if [ -z "$BUILD" ]; then
    BUILD="$WORK/tachy"
    say "building tachy-hello into ${BUILD#$ROOT/} (log: raw/build-tachy.log)"
    { cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACHY_BUILD_TESTS=OFF \
        -DTACHY_BUILD_JNI=OFF -DTACHY_WERROR=OFF && cmake --build "$BUILD" -j2 --target tachy-hello
    } >"$OUT/raw/build-tachy.log" 2>&1 || say "tachy build failed (raw/build-tachy.log)"
  fi
  [ -x "$BUILD/examples/tachy-hello" ] && HELLO="$BUILD/examples/tachy-hello"
fi
mkdir -p "$WORK/h2"
h2_cert "$WORK/h2"
{
  echo "command: $CMDLINE"; date -u; uname -a; nproc; cat /proc/loadavg
  h2load --version 2>&1 | head -1; h2o --version 2>&1 | head -1; nginx -v 2>&1
  (cd "$ROOT" && git rev-parse HEAD && git status --short | head -20) 2>/dev/null || true
  echo "tachy-hello: ${HELLO:-none}"
} >"$OUT/raw/env.txt" 2>&1
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
ARGS=(--outdir "$OUT" --workdir "$WORK/h2" --cert "$WORK/h2/cert.pem" --key "$WORK/h2/key.pem"
      --servers "$SERVERS" --rounds "$ROUNDS" --duration "$DURATION" --command "$CMDLINE" --stamp "$STAMP")
[ -n "$PROFILES" ] && ARGS+=(--profiles "$PROFILES")
[ -n "$HELLO" ] && ARGS+=(--tachy-hello "$HELLO")
say "results -> ${OUT#$ROOT/}"
python3 "$BENCH/lib/h2bench.py" "${ARGS[@]}" &
PYPID=$!
wait "$PYPID"
PYPID=
cp "$OUT/table.md" "$BENCH/results/h2-latest.md"
say "done: bench/results/h2-latest.md, ${OUT#$ROOT/}/"
