#!/usr/bin/env bash
# tests/autobahn/run.sh [--ci|--all|--full] [c|java ...] - the Autobahn|Testsuite case
# files, run natively by kosoku (PyPI), against tachy-hello's /ws (examples/hello.c) and
# the Java twin's /ws (examples/java, dev.tachy.examples.Hello on the tachy provider).
#
#   --ci    (default) sections 1-7, 9 (performance, up to 16 MiB messages: ~10 s) and 10
#           in full; of 12 and 13 (permessage-deflate, every parameter combination, where
#           kosoku itself is slow: ~15 min per server in full) the cases with the smallest
#           messages (12.*.1-4, 13.*.1-4: up to 1 KiB). About 40 s per server.
#   --all   sections 1-13 without 9 (12 and 13 in full: a few minutes per server)
#   --full  sections 1-13, 9 (performance: up to 16 MiB messages) included
#   --cases GLOB  only these cases (repeatable, kosoku's -i syntax, e.g. '9.*')
#
# Servers: tachy-hello from $TACHY_HELLO or build/release/examples/tachy-hello; the Java
# twin from $TACHY_JAR (default java/target/tachy-httpserver-*.jar) and
# examples/java/target/tachy-examples-*.jar. A missing server is skipped (counted as a
# failure with TACHY_AUTOBAHN_REQUIRE_ALL=1, as CI sets it). kosoku is installed with pip
# into build/autobahn/venv when missing. Reports go to build/autobahn/<server>/; the
# summary (tests/autobahn/summarize.py) ends with "N passed, M failed, K skipped", where
# skipped are cases kosoku itself could not run (listed by name, never counted as passes).
# TACHY_AUTOBAHN_SUMMARY=FILE also writes the summary as Markdown.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT=${TACHY_AUTOBAHN_OUT:-$ROOT/build/autobahn}
KOSOKU_VERSION=0.1.0

MODE=ci
SERVERS=()
CASES=()
while [ $# -gt 0 ]; do
    a=$1
    shift
    case "$a" in
        --cases) MODE=cases; CASES+=(-i "$1"); shift ;;
        --ci) MODE=ci ;;
        --all) MODE=all ;;
        --full) MODE=full ;;
        c | java) SERVERS+=("$a") ;;
        *) echo "usage: tests/autobahn/run.sh [--ci|--all|--full|--cases GLOB] [c|java ...]" >&2; exit 2 ;;
    esac
done
[ ${#SERVERS[@]} -gt 0 ] || SERVERS=(c java)

case "$MODE" in
    ci)
        SEL=()
        for s in 1 2 3 4 5 6 7 9 10; do SEL+=(-i "$s.*"); done
        for s in 12.1 12.2 12.3 12.4 12.5 13.1 13.2 13.3 13.4 13.5 13.6 13.7; do
            for y in 1 2 3 4; do SEL+=(-i "$s.$y"); done
        done
        ;;
    all) SEL=(-x '9.*') ;;
    full) SEL=() ;;
    cases) SEL=("${CASES[@]}") ;;
esac

mkdir -p "$OUT"
KOSOKU="$OUT/venv/bin/kosoku"
if [ ! -x "$KOSOKU" ]; then
    echo "installing kosoku $KOSOKU_VERSION into $OUT/venv"
    PY=$(command -v python3) || { echo "run.sh: no python3"; echo "0 passed, 1 failed"; exit 1; }
    "$PY" -m venv "$OUT/venv" >/dev/null 2>&1 || {
        # Debian's python3 needs python3-venv for ensurepip
        [ "$(id -u)" -eq 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
        "$PY" -m venv --clear "$OUT/venv"
    }
    "$OUT/venv/bin/pip" install -q "kosoku==$KOSOKU_VERSION" ||
        { echo "run.sh: pip install kosoku failed"; echo "0 passed, 1 failed"; exit 1; }
fi

# How many cases the selection names (kosoku's own index, its include/exclude globs), so a
# run that stops early cannot pass on the cases it did report.
EXPECT=$("$OUT/venv/bin/python" - "${SEL[@]}" <<'PY'
import fnmatch, sys
import kosoku.cases as c
inc, exc, a = [], [], sys.argv[1:]
for flag, glob in zip(a[::2], a[1::2]):
    (inc if flag == "-i" else exc).append(glob)
ids = [i for i in c.CASES if (not inc or any(fnmatch.fnmatchcase(i, g) for g in inc))
       and not any(fnmatch.fnmatchcase(i, g) for g in exc)]
print(len(ids))
PY
) || EXPECT=0

PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
}
trap cleanup EXIT

# start NAME COMMAND...: starts a server that prints "listening on http://HOST:PORT/";
# sets PORT (empty when it did not come up within 20 s)
start() {
    local name=$1
    shift
    "$@" >"$OUT/$name.server.out" 2>"$OUT/$name.server.err" &
    PIDS+=($!)
    PORT=""
    for _ in $(seq 1 200); do
        PORT="$(sed -n 's|^listening on http://.*:\([0-9][0-9]*\)/$|\1|p' "$OUT/$name.server.out")"
        [ -n "$PORT" ] && return 0
        kill -0 "${PIDS[-1]}" 2>/dev/null || break
        sleep 0.1
    done
    echo "run.sh: $name did not start: $(tail -5 "$OUT/$name.server.err")"
    PORT=""
}

RUNS=()
MISSING=0
for s in "${SERVERS[@]}"; do
    case "$s" in
        c)
            HELLO=${TACHY_HELLO:-$ROOT/build/release/examples/tachy-hello}
            if [ ! -x "$HELLO" ]; then
                echo "SKIP c: no tachy-hello at $HELLO (build it or set TACHY_HELLO)"
                MISSING=$((MISSING + 1))
                continue
            fi
            start c "$HELLO" -p 0 -b 127.0.0.1
            ;;
        java)
            JAR=${TACHY_JAR:-$(ls "$ROOT"/java/target/tachy-httpserver-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -1)}
            EX=$(ls "$ROOT"/examples/java/target/tachy-examples-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -1)
            JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java
            if [ -z "$JAR" ] || [ -z "$EX" ] || ! command -v "$JAVA" >/dev/null 2>&1; then
                echo "SKIP java: needs java and the jars (mvn -pl java,examples/java -am package)"
                MISSING=$((MISSING + 1))
                continue
            fi
            NA=()
            "$JAVA" --enable-native-access=ALL-UNNAMED -version >/dev/null 2>&1 && NA=(--enable-native-access=ALL-UNNAMED)
            start java "$JAVA" "${NA[@]}" -cp "$JAR:$EX" dev.tachy.examples.Hello -p 0 -b 127.0.0.1
            ;;
    esac
    if [ -z "$PORT" ]; then
        MISSING=$((MISSING + 1))
        continue
    fi
    rm -rf "$OUT/$s"
    t0=$(date +%s)
    echo "== $s: kosoku ($MODE) against ws://127.0.0.1:$PORT/ws"
    "$KOSOKU" "127.0.0.1:$PORT/ws" "${SEL[@]}" -p 2 -o "$OUT/$s" >"$OUT/$s.kosoku.log" 2>&1
    echo "   kosoku exited $? after $(( $(date +%s) - t0 )) s (log: $OUT/$s.kosoku.log)"
    if ! kill -0 "${PIDS[-1]}" 2>/dev/null; then
        echo "FAIL $s: the server died during the run: $(tail -5 "$OUT/$s.server.err")"
        MISSING=$((MISSING + 1))
    fi
    RUNS+=("$s=$OUT/$s")
done

MD=(--expect "$EXPECT" --note "kosoku $KOSOKU_VERSION (the Autobahn|Testsuite case files run natively), mode --$MODE, $(date -u +%Y-%m-%d).")
[ -n "${TACHY_AUTOBAHN_SUMMARY:-}" ] && MD+=(--markdown "$TACHY_AUTOBAHN_SUMMARY")
if [ ${#RUNS[@]} -gt 0 ]; then
    python3 "$HERE/summarize.py" "${MD[@]}" "${RUNS[@]}" | tee "$OUT/summary.txt"
    rc=${PIPESTATUS[0]}
else
    echo "0 passed, 0 failed"
    rc=0
fi
if [ "$MISSING" -gt 0 ]; then
    echo "$MISSING server(s) not run"
    if [ "${TACHY_AUTOBAHN_REQUIRE_ALL:-0}" = "1" ]; then
        echo "0 passed, $MISSING failed"
        rc=1
    fi
fi
exit "$rc"
