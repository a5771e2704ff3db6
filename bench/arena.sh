#!/usr/bin/env bash
# The HttpArena profiles at this machine's scale, tachy next to h2o and nginx.
#
#   bench/arena.sh [--rounds N] [--duration S] [--profiles a,b] [--servers a,b] [--build DIR]
#                  [--jar PATH] [--no-install]
#
#   profiles: static-ka static-pipe16 static-1m static-app baseline pipelined json json-comp
#             json-tls 8gbit async echo-ws (default: all)
#   servers:  tachy-arena tachy-fileserver h2o nginx tachy-java (default: all that exist;
#             h2o and nginx only where they can serve a profile: static files, and
#             baseline/pipeline as constant plaintext)
#   --build DIR   a tachy CMake build dir with examples/tachy-arena and tachy-fileserver
#                 (default: configure and build a release build into bench/build/arena-tachy)
#   --fs-before REV  also measure tachy-fileserver as it was at git revision REV
#                 ("tachy-fs-before", built against the same libtachy)
#   --jar PATH    the tachy provider jar for the Java twin (examples/httparena/java);
#                 without one (java/target/tachy-httpserver-*.jar is tried) it is left out
#
# Server on core 0, load on core 1 (wrk, h2load --h1, bench/wsload), alternating rounds,
# medians. Output: bench/results/runs/arena-<UTC timestamp>/ with table.md and raw/ (every
# load output and server log, results.json, chart.png, env.txt); git ignores runs/.
# Only 127.0.0.1 is used; every server started is stopped when the run ends. On the machine
# that ran it, `bench/lib/arena_bench.py --render --out DIR` rewrites DIR/table.md and
# DIR/raw/chart.png from DIR/raw/results.json.
set -euo pipefail
BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
ROUNDS=3 DURATION=3 PROFILES= SERVERS= BUILD= JAR= INSTALL=1 FS_BEFORE=
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift ;;
    --duration) DURATION="$2"; shift ;;
    --profiles) PROFILES="$2"; shift ;;
    --servers) SERVERS="$2"; shift ;;
    --build) BUILD="$(cd "$2" && pwd)"; shift ;;
    --jar) JAR="$(readlink -f "$2")"; shift ;;
    --fs-before) FS_BEFORE="$2"; shift ;;
    --no-install) INSTALL=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "arena.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
say() { printf '%s arena.sh: %s\n' "$(date -u +%H:%M:%S)" "$*"; }

if [ "$INSTALL" = 1 ] && [ "$(id -u)" = 0 ]; then
  need=()
  for p in wrk:wrk h2load:nghttp2-client nginx:nginx h2o:h2o openssl:openssl taskset:util-linux; do
    command -v "${p%%:*}" >/dev/null || need+=("${p#*:}")
  done
  /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || need+=(python3-matplotlib)
  if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

WORK="$BENCH/build"
mkdir -p "$WORK"
if [ -z "$BUILD" ]; then
  BUILD="$WORK/arena-tachy"
  say "building tachy-arena and tachy-fileserver into $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTACHY_BUILD_JNI=OFF >/dev/null
  cmake --build "$BUILD" -j 2 --target tachy-arena tachy-fileserver >/dev/null
fi
WSLOAD="$WORK/wsload"
if [ ! -x "$WSLOAD" ] || [ "$BENCH/wsload.c" -nt "$WSLOAD" ]; then
  cc -O2 -o "$WSLOAD" "$BENCH/wsload.c" -lpthread || WSLOAD=
fi

FS_BEFORE_BIN=
if [ -n "$FS_BEFORE" ]; then
  FS_BEFORE_BIN="$WORK/tachy-fileserver-$FS_BEFORE"
  git -C "$ROOT" show "$FS_BEFORE:examples/fileserver.c" > "$WORK/fileserver-$FS_BEFORE.c"
  cc -O2 -D_GNU_SOURCE -DTACHY_STATIC -I "$ROOT/native/include" -o "$FS_BEFORE_BIN" \
    "$WORK/fileserver-$FS_BEFORE.c" "$BUILD/libtachy.a" -lz -lpthread -ldl
fi

STAMP="$(date -u +%Y%m%d-%H%M%S)"
OUT="$BENCH/results/runs/arena-$STAMP"
mkdir -p "$OUT/raw"
CERT="$WORK/arena-cert"
mkdir -p "$CERT"
[ -f "$CERT/server.crt" ] || openssl req -x509 -newkey rsa:2048 -nodes -keyout "$CERT/server.key" \
  -out "$CERT/server.crt" -days 365 -subj /CN=localhost >/dev/null 2>&1

JAVA_CMD=
[ -z "$JAR" ] && JAR="$(ls "$ROOT"/java/target/tachy-httpserver-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -1 || true)"
if [ -n "$JAR" ] && [ -f "$JAR" ]; then
  JCLS="$WORK/arena-java"
  mkdir -p "$JCLS"
  if javac -d "$JCLS" -cp "$JAR" "$ROOT"/examples/httparena/java/*.java 2>"$OUT/raw/javac.log"; then
    JAVA_CMD="java -Xss512k -cp $JCLS:$JAR TachyArena --port {port} --tls-port {tls_port} --cert $CERT/server.crt --key $CERT/server.key --data {data}"
  else
    say "the Java twin did not compile (raw/javac.log): left out"
  fi
fi

(
  cd "$ROOT"
  {
    echo "date: $(date -u)"; echo "host: $(uname -a)"; echo "cpus: $(nproc)"
    echo "load average: $(cat /proc/loadavg)"
    echo "git: $(git rev-parse --short HEAD 2>/dev/null) $(git status --porcelain 2>/dev/null | wc -l) changed files"
    echo "h2o: $(h2o --version 2>&1 | head -1)"; echo "nginx: $(nginx -v 2>&1)"; echo "wrk: $(wrk -v 2>&1 | head -1)"
    echo "h2load: $(h2load --version 2>&1 | head -1)"
  } > "$OUT/raw/env.txt"
)

ARGS=(--build "$BUILD" --out "$OUT" --rounds "$ROUNDS" --duration "$DURATION" --cert "$CERT/server.crt"
      --key "$CERT/server.key")
[ -n "$PROFILES" ] && ARGS+=(--profiles "$PROFILES")
[ -n "$SERVERS" ] && ARGS+=(--servers "$SERVERS")
[ -n "$WSLOAD" ] && ARGS+=(--wsload "$WSLOAD")
[ -n "$JAVA_CMD" ] && ARGS+=(--java-cmd "$JAVA_CMD")
[ -n "$FS_BEFORE_BIN" ] && ARGS+=(--fs-before "$FS_BEFORE_BIN")
/usr/bin/python3 "$BENCH/lib/arena_bench.py" "${ARGS[@]}"
echo "load average after: $(cat /proc/loadavg)" >> "$OUT/raw/env.txt"
say "results: $OUT/table.md (chart, data, logs: $OUT/raw/)"
cat "$OUT/table.md"
