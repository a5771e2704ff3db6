#!/usr/bin/env bash
# tachy side-by-side benchmark: one command, see bench/README.md.
#
#   bench/run.sh [--quick|--full] [options]
#
#   --quick              keep-alive 64 + pipelined x16 (wrk batches), 3 rounds x 3 s (default; < 5 min)
#   --full               every profile, 5 rounds x 8 s
#   --rounds N           override the number of alternating rounds
#   --duration S         override seconds of load per server, profile and round
#   --profiles a,b       only these profiles (ka64 ka1024 pipe16 pipe16h close post64k static1m ws-echo
#                        ws-tick10k idle4096)
#   --servers a,b        only these servers (nginx tachy-c tachy-c-fs jdk-none jdk-vt robaho-vt
#                        robaho-fixed jetty-none jetty-vt tachy-java-none tachy-java-vt tachy-java-fixed
#                        (fixed: newFixedThreadPool(4)); tick-floor tick-floor-uring: the
#                        ws-tick10k floor, bench/tickfloor.c, always run with that profile)
#   --build DIR          reuse a tachy CMake build dir (DIR/examples/tachy-hello); default:
#                        configure and build into bench/build/tachy
#   --jar PATH           the tachy provider jar (default: built from this tree into
#                        bench/build/jarsrc with mvn; java/target/tachy-httpserver-*.jar if that fails)
#   --no-install         do not apt-get/mvn anything; use what is there
#   --update-readme      put this run's table into bench/README.md (a --full run always does)
#
# Needs: wrk, h2load (nghttp2-client), nginx, python3 + matplotlib (python3-matplotlib),
# taskset, cmake + cc, the JDK 25 (/usr/lib/jvm/temurin-25-jdk-amd64 or $JAVA25_HOME), maven
# (for robaho/httpserver, fetched from Maven Central into ~/.m2 and copied to bench/build;
# for Jetty's jetty-http-spi, its jars copied into bench/build/jetty/lib).
# Missing Debian packages are installed with apt-get when run as root.
# Only 127.0.0.1 is used; every server started is stopped on exit.
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
MODE=quick
ROUNDS= DURATION= PROFILES= SERVERS= BUILD= JAR= INSTALL=1 UPDATE_README=0
EXTRA=()
CMDLINE="bench/run.sh $*"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) MODE=quick ;;
    --full) MODE=full ;;
    --rounds) ROUNDS="$2"; shift ;;
    --duration) DURATION="$2"; shift ;;
    --profiles) PROFILES="$2"; shift ;;
    --servers) SERVERS="$2"; shift ;;
    --build) BUILD="$(cd "$2" && pwd)"; shift ;;
    --jar) JAR="$(readlink -f "$2")"; shift ;;
    --no-install) INSTALL=0 ;;
    --update-readme) UPDATE_README=1 ;;
    --warmup) EXTRA+=(--warmup "$2"); shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# ---- tools; everything we start is stopped, whatever happens --------------------------------
source "$BENCH/lib/servers.sh"  # bench_start, apt_install, need_cmd, servers_setup
bench_start run.sh ""  # say, WORK, STAMP, OUT (+ raw/), SKIP; the traps
export PATH="$PATH:/usr/sbin:/sbin"
need_cmd wrk wrk || { echo "run.sh: wrk is required" >&2; exit 1; }
need_cmd taskset util-linux || { echo "run.sh: taskset is required" >&2; exit 1; }
need_cmd h2load nghttp2-client || say "h2load missing (only used by bench/profile.sh)"
need_cmd nginx nginx || { say "nginx missing: no native anchor"; SKIP+=(--skip-note "nginx=nginx not installed"); }
# chart: Debian's python3-matplotlib for /usr/bin/python3
CHART_PY=/usr/bin/python3
if ! "$CHART_PY" -c 'import matplotlib' 2>/dev/null; then
  apt_install python3-matplotlib || true
fi
PY=/usr/bin/python3
[ -x "$PY" ] || PY="$(command -v python3)"

# ---- servers (bench/lib/servers.sh: the JDK, robaho, Jetty, the provider jar, tachy-hello) ----
servers_setup

# ---- the WebSocket load client ------------------------------------------------------------------
WS_ARGS=()
if cc -O2 -o "$WORK/wsload" "$BENCH/wsload.c" 2>"$OUT/raw/build-wsload.log"; then
  WS_ARGS+=(--wsload "$WORK/wsload")
else
  say "bench/wsload.c did not build (raw/build-wsload.log): WebSocket profiles skipped"
fi
# the ws-tick10k floor (bench/tickfloor.c): rows tick-floor and tick-floor-uring beside tachy-c
if [ -f "$BENCH/tickfloor.c" ] && cc -O2 -o "$WORK/tickfloor" "$BENCH/tickfloor.c" 2>"$OUT/raw/build-tickfloor.log"; then
  WS_ARGS+=(--tickfloor "$WORK/tickfloor")
else
  say "bench/tickfloor.c did not build (raw/build-tickfloor.log): no floor rows in ws-tick10k"
fi

# ---- the 1 MiB static file -------------------------------------------------------------------
# www/static/1m.bin: nginx and the Java servers map /static/ to www/static; tachy-fileserver
# serves www as its root, so the same URL works for every server
STATIC="$WORK/www/static"
mkdir -p "$STATIC"
[ -f "$STATIC/1m.bin" ] || head -c 1048576 /dev/urandom >"$STATIC/1m.bin"

# ---- environment record ------------------------------------------------------------------------
{
  echo "command: $CMDLINE"; date -u; uname -a; nproc; cat /proc/loadavg
  grep -m1 'model name' /proc/cpuinfo || true
  wrk --version 2>&1 | head -1 || true
  h2load --version 2>&1 | head -1 || true
  nginx -v 2>&1 || true
  [ -x "$JAVA_HOME25/bin/java" ] && "$JAVA_HOME25/bin/java" -version 2>&1
  (cd "$ROOT" && git rev-parse HEAD 2>/dev/null && git status --short 2>/dev/null | head -20) || true
  echo "tachy build: ${BUILD:-none}"; echo "tachy jar: ${JAR:-none}"
} >"$OUT/raw/env.txt" 2>&1

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# ---- run -----------------------------------------------------------------------------------------
REV="$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)"
(cd "$ROOT" && [ -n "$(git status --porcelain -- native examples jni java 2>/dev/null)" ]) && REV="$REV + uncommitted changes"
ARGS=(--mode "$MODE" --outdir "$OUT" --workdir "$WORK" --static-dir "$STATIC" --command "$CMDLINE" --tachy-rev "$REV")
[ -n "$ROUNDS" ] && ARGS+=(--rounds "$ROUNDS")
[ -n "$DURATION" ] && ARGS+=(--duration "$DURATION")
[ -n "$PROFILES" ] && ARGS+=(--profiles "$PROFILES")
[ -n "$SERVERS" ] && ARGS+=(--servers "$SERVERS")
say "results -> ${OUT#$ROOT/}"
"$PY" "$BENCH/lib/bench.py" "${ARGS[@]}" "${JAVA_ARGS[@]}" "${TACHY_ARGS[@]}" "${WS_ARGS[@]}" "${SKIP[@]}" "${EXTRA[@]}" &
PYPID=$!
wait "$PYPID"
PYPID=

if "$CHART_PY" -c 'import matplotlib' 2>/dev/null; then
  "$CHART_PY" "$BENCH/lib/chart.py" "$OUT" || say "chart failed"
else
  say "no matplotlib: no chart"
fi
cp "$OUT/table.md" "$BENCH/results/latest.md"
[ -f "$OUT/raw/chart.png" ] && cp "$OUT/raw/chart.png" "$BENCH/results/latest.png"
sed -i "s#^Raw outputs: .*#&\n\nChart: ![chart](latest.png)#" "$BENCH/results/latest.md" 2>/dev/null || true
# a --full run (or --update-readme) refreshes the table in bench/README.md
if [ "$MODE" = full ] || [ "$UPDATE_README" = 1 ]; then
  "$PY" - "$BENCH/README.md" "$OUT/table.md" "${OUT#$BENCH/}" <<'PYEOF' || say "README not updated"
import sys, re
readme, table, rel = sys.argv[1], sys.argv[2], sys.argv[3]
t = open(table).read()
t = re.sub(r"^# (.*)$", r"#### \1", t, count=1, flags=re.M)          # demote the title
t = re.sub(r"^## ", "#### ", t, flags=re.M)
t = t.replace("`bench/results/", "`results/")
t += "\nChart: `results/latest.png` while no later run has replaced it (this run's own: `" + rel + "/raw/chart.png`, local)\n"
r = open(readme).read()
a, b = "<!-- bench:latest:start -->", "<!-- bench:latest:end -->"
i, j = r.index(a) + len(a), r.index(b)
open(readme, "w").write(r[:i] + "\n" + t + r[j:])
PYEOF
fi
say "done: bench/results/latest.md, bench/results/latest.png, ${OUT#$ROOT/}/"
