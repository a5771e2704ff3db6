#!/usr/bin/env bash
# Latency at a fixed rate, in one command (issue 28; see bench/README.md).
#
#   bench/paced.sh [--quick|--full] [options]
#
#   (a) paced: HttpArena's latency-10k shape, 1,024 keep-alive connections at fixed rates
#       (GET /, 13-byte body): server CPU µs per request, mean, p50, p99, p99.9, max
#   (b) sweep: 64 connections at rising rates; each server's highest rate with p99 < 10 ms,
#       no errors and the achieved rate within 1 % of the asked one
#   Both with bench/paced.c (open loop: latency from each request's intended send time), the
#   client's own ceiling printed beside the figures. Server on core 0, client on core 1;
#   every server in every round, alternating; medians and ranges.
#
#   --quick              2 rounds; paced 10k for 2 s after 1 s; sweep steps of 1.5 s after 0.5 s
#                        (default; about 4-5 minutes with every server)
#   --full               3 rounds; paced 10k and 20k for 8 s after 2 s; sweep steps of 3 s after 1 s
#   --rounds N           alternating rounds
#   --paced-rates a,b    rates of the 1,024-connection runs (req/s)
#   --paced-duration S   measured seconds of each paced run (its warm-up: --paced-warmup S)
#   --sweep-rates a,b    the sweep's steps (req/s, rising)
#   --sweep-duration S   measured seconds of each step (its warm-up: --sweep-warmup S)
#   --parts paced,sweep  only one of the two
#   --servers a,b        among nginx h2o tachy-c tachy-java-none tachy-java-fixed tachy-java-vt
#                        jdk-vt jdk-none robaho-vt robaho-fixed jetty-none jetty-vt
#                        (default: nginx h2o tachy-c tachy-java-none tachy-java-fixed
#                        tachy-java-vt jdk-vt robaho-vt jetty-none)
#   --build DIR          a tachy CMake build dir (DIR/examples/tachy-hello) instead of building one
#   --jar PATH           the tachy provider jar instead of building one from this tree
#   --no-install         do not apt-get / mvn anything
#   --no-priority        leave the servers and clients at the autogroup priority they get (by
#                        default, as root, each runs in its own autogroup at nice -19: on a
#                        machine shared with other sessions a plain nice does not keep it from
#                        waiting behind their compilers; bench/README.md)
#
# The servers are started exactly as bench/run.sh starts them (bench/lib/servers.sh,
# bench/lib/bench.py); nginx and h2o from Debian (nginx-light / h2o installed when missing,
# as root). Output: bench/results/runs/paced-<UTC timestamp>/table.md and raw/ (every client
# output, server logs, results.json, chart.png; git ignores runs/), copied to
# bench/results/paced-latest.md and paced-latest.png, which git keeps. Only 127.0.0.1 is used; every server
# started is stopped on exit.
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
MODE=quick BUILD= JAR= INSTALL=1 PRIO=()
[ "$(id -u)" = 0 ] && PRIO=(--priority)
OPTS=()
CMDLINE="bench/paced.sh $*"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) MODE=quick ;;
    --full) MODE=full ;;
    --rounds|--paced-rates|--paced-duration|--paced-warmup|--sweep-rates|--sweep-duration|--sweep-warmup|--parts|--servers|--warmup)
      OPTS+=("$1" "$2"); shift ;;
    --build) BUILD="$(cd "$2" && pwd)"; shift ;;
    --jar) JAR="$(readlink -f "$2")"; shift ;;
    --no-install) INSTALL=0 ;;
    --no-priority) PRIO=() ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "paced.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if [ "$MODE" = full ]; then
  DEFAULTS=(--rounds 3 --paced-rates 10000,20000 --paced-warmup 2 --paced-duration 8
            --sweep-warmup 1 --sweep-duration 3 --warmup 10)
else
  DEFAULTS=(--rounds 2 --paced-rates 10000 --paced-warmup 1 --paced-duration 2
            --sweep-warmup 0.5 --sweep-duration 1.5 --warmup 5)
fi

# ---- tools; everything we start is stopped, whatever happens --------------------------------
source "$BENCH/lib/servers.sh"  # bench_start, apt_install, need_cmd, servers_setup
bench_start paced.sh paced-  # say, WORK, STAMP, OUT (+ raw/), SKIP; the traps
export PATH="$PATH:/usr/sbin:/sbin"
need_cmd taskset util-linux || { echo "paced.sh: taskset is required" >&2; exit 1; }
need_cmd cc gcc || { echo "paced.sh: a C compiler is required" >&2; exit 1; }
need_cmd nginx nginx-light || { say "nginx missing"; SKIP+=(--skip-note "nginx=nginx not installed"); }
H2O=()
if need_cmd h2o h2o; then H2O=(--h2o); else SKIP+=(--skip-note "h2o=h2o not installed"); fi
PY=/usr/bin/python3
[ -x "$PY" ] || PY="$(command -v python3)"
"$PY" -c 'import matplotlib' 2>/dev/null || apt_install python3-matplotlib || true

servers_setup

if ! cc -O2 -Wall -o "$WORK/paced" "$BENCH/paced.c" 2>"$OUT/raw/build-paced.log"; then
  echo "paced.sh: bench/paced.c did not build (raw/build-paced.log)" >&2; exit 1
fi
STATIC="$WORK/www/static"  # nginx's /static/ alias needs a directory; the runs only GET /
mkdir -p "$STATIC"

{
  echo "command: $CMDLINE"; date -u; uname -a; nproc; cat /proc/loadavg
  grep -m1 'model name' /proc/cpuinfo || true
  nginx -v 2>&1 || true; h2o --version 2>&1 | head -1 || true
  [ -x "$JAVA_HOME25/bin/java" ] && "$JAVA_HOME25/bin/java" -version 2>&1
  (cd "$ROOT" && git rev-parse HEAD 2>/dev/null && git status --short 2>/dev/null | head -20) || true
  echo "tachy build: ${BUILD:-none}"; echo "tachy jar: ${JAR:-none}"
} >"$OUT/raw/env.txt" 2>&1

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
REV="$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)"
(cd "$ROOT" && [ -n "$(git status --porcelain -- native examples jni java 2>/dev/null)" ]) && REV="$REV + uncommitted changes"
say "results -> ${OUT#$ROOT/}"
"$PY" "$BENCH/lib/paced.py" --outdir "$OUT" --workdir "$WORK" --static-dir "$STATIC" --paced "$WORK/paced" \
  --command "$CMDLINE" --tachy-rev "$REV" "${DEFAULTS[@]}" "${OPTS[@]}" "${H2O[@]}" \
  "${JAVA_ARGS[@]}" "${TACHY_ARGS[@]}" "${SKIP[@]}" "${PRIO[@]}" &
PYPID=$!
wait "$PYPID"
PYPID=
"$PY" "$BENCH/lib/paced.py" --render "$OUT" >/dev/null || say "chart failed"
cp "$OUT/table.md" "$BENCH/results/paced-latest.md"
if [ -f "$OUT/raw/chart.png" ]; then  # beside the run's table, and the copy git keeps
  cp "$OUT/raw/chart.png" "$OUT/chart.png"; cp "$OUT/raw/chart.png" "$BENCH/results/paced-latest.png"
fi
say "done: ${OUT#$ROOT/}/table.md"
