#!/usr/bin/env bash
# tests/ws/run.sh - WebSocket conformance and real-client tests against tachy-hello's
# GET /ws echo endpoint. Installs nothing: a client whose tool is missing is reported as
# skipped (set TACHY_WS_REQUIRE_ALL=1 to count a skip as a failure, as CI should).
#
#   tests/ws/run.sh [path/to/tachy-hello]      (default: $TACHY_HELLO, then build*/examples/)
#
# Clients and what they need:
#   conformance.py      python3 (standard library only)
#   client_python.py    python3 with the `websockets` module (Debian: python3-websockets)
#   client_node.js      node and the npm package `ws` (found through NODE_PATH, `npm root -g`
#                       or tests/ws/node_modules)
#   WsClient.java       java 11 or later (java.net.http.WebSocket, single-file launch)
#   client_chromium.py  python3 and chromium (Debian: chromium)
#
# Prints each client's lines and a final "N passed, N failed, N skipped" line.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

HELLO="${1:-${TACHY_HELLO:-}}"
if [ -z "$HELLO" ]; then
    for c in "$ROOT"/build/examples/tachy-hello "$ROOT"/build-*/examples/tachy-hello; do
        if [ -x "$c" ]; then HELLO="$c"; break; fi
    done
fi
if [ -z "$HELLO" ] || [ ! -x "$HELLO" ]; then
    echo "run.sh: tachy-hello not found (pass its path or set TACHY_HELLO)" >&2
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi

LOG="$(mktemp -d)"
"$HELLO" -p 0 >"$LOG/hello.out" 2>"$LOG/hello.err" &
HELLO_PID=$!
cleanup() {
    kill "$HELLO_PID" 2>/dev/null
    wait "$HELLO_PID" 2>/dev/null
    rm -rf "$LOG"
}
trap cleanup EXIT

PORT=""
for _ in $(seq 1 50); do
    PORT="$(sed -n 's|^listening on http://.*:\([0-9][0-9]*\)/$|\1|p' "$LOG/hello.out")"
    [ -n "$PORT" ] && break
    sleep 0.1
done
if [ -z "$PORT" ]; then
    echo "run.sh: tachy-hello did not start: $(cat "$LOG/hello.err")" >&2
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
URL="ws://127.0.0.1:$PORT/ws"
echo "tachy-hello on port $PORT (pid $HELLO_PID)"

PASSED=0
FAILED=0
SKIPPED=0

skip() {
    echo "SKIP $1: missing $2"
    SKIPPED=$((SKIPPED + 1))
}

# run NAME TIMEOUT COMMAND... : runs a client, adds up its "N passed, N failed" line.
run() {
    local name="$1" limit="$2"
    shift 2
    echo "== $name"
    timeout "$limit" "$@" >"$LOG/$name.out" 2>&1
    local rc=$?
    cat "$LOG/$name.out"
    local summary
    summary="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOG/$name.out" | tail -1)"
    if [ -z "$summary" ]; then
        echo "FAIL $name: exited $rc without a summary line"
        FAILED=$((FAILED + 1))
        return
    fi
    local p f
    p="$(echo "$summary" | sed -E 's/^([0-9]+) passed.*/\1/')"
    f="$(echo "$summary" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')"
    PASSED=$((PASSED + p))
    FAILED=$((FAILED + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $name: exited $rc"
        FAILED=$((FAILED + 1))
    fi
}

# A python3 that has a module: the one on PATH first, then Debian's.
python_with() {
    for py in python3 /usr/bin/python3; do
        if command -v "$py" >/dev/null 2>&1 && "$py" -c "import $1" >/dev/null 2>&1; then
            command -v "$py"
            return 0
        fi
    done
    return 1
}

PY="$(command -v python3 || true)"
if [ -n "$PY" ]; then
    run conformance 600 "$PY" "$HERE/conformance.py" 127.0.0.1 "$PORT" /ws
else
    skip conformance python3
fi

if PYWS="$(python_with websockets)"; then
    run python-websockets 120 "$PYWS" "$HERE/client_python.py" "$URL"
else
    skip python-websockets "python3 module websockets (python3-websockets)"
fi

if command -v node >/dev/null 2>&1; then
    NP="$HERE/node_modules"
    if command -v npm >/dev/null 2>&1; then NP="$NP:$(npm root -g 2>/dev/null)"; fi
    export NODE_PATH="${NODE_PATH:+$NODE_PATH:}$NP"
    if node -e "require('ws')" >/dev/null 2>&1; then
        run node-ws 120 node "$HERE/client_node.js" "$URL"
    else
        skip node-ws "npm package ws (npm install -g ws)"
    fi
else
    skip node-ws node
fi

if command -v java >/dev/null 2>&1; then
    run jdk-websocket 180 java "$HERE/WsClient.java" "$URL"
else
    skip jdk-websocket "java (JDK 11+)"
fi

CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
if [ -n "$CHROMIUM" ] && [ -n "$PY" ]; then
    run chromium 120 "$PY" "$HERE/client_chromium.py" "$URL" "$CHROMIUM"
else
    skip chromium "chromium (Debian: chromium)"
fi

if [ "${TACHY_WS_REQUIRE_ALL:-0}" = "1" ] && [ "$SKIPPED" -gt 0 ]; then
    FAILED=$((FAILED + SKIPPED))
fi
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
