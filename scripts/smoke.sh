#!/usr/bin/env bash
# scripts/smoke.sh HELLO_BINARY - starts tachy-hello on a free port and checks it under
# real clients: curl (GET, HEAD, POST fixed and chunked), wrk keep-alive load and
# h2load --h1 -m 16 pipelined load, each with zero errors; then the same binary over HTTPS
# (-c/-k with a throwaway self-signed certificate): curl with --cacert, keep-alive, a
# chunked POST, and h2load pipelining over TLS. Bounded: a few seconds.
set -euo pipefail
HELLO=${1:?usage: smoke.sh path/to/tachy-hello}
LOG=$(mktemp)
"$HELLO" -p 0 -b 127.0.0.1 >"$LOG" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -f "$LOG"' EXIT
for _ in $(seq 50); do grep -q "listening on" "$LOG" && break; sleep 0.1; done
URL=$(sed -n 's/^listening on //p' "$LOG")
[ -n "$URL" ] || { echo "tachy-hello did not start"; cat "$LOG"; exit 1; }
pass=0 fail=0
check() { # name expected actual
    if [ "$2" = "$3" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1: expected [$2] got [$3]"; fi
}
check "curl GET" "Hello, World!" "$(curl -sS "$URL")"
check "curl HEAD" "200" "$(curl -sS -o /dev/null -w '%{http_code}' -I "$URL")"
check "curl POST fixed" "abc123" "$(curl -sS --data-binary abc123 "${URL}echo")"
check "curl POST chunked" "chunky" "$(printf chunky | curl -sS -H 'Transfer-Encoding: chunked' --data-binary @- "${URL}echo")"
WRK=$(wrk -t1 -c64 -d2s "$URL" 2>&1)
check "wrk errors" "" "$(echo "$WRK" | grep -E 'Socket errors|Non-2xx' || true)"
check "wrk ran" "yes" "$(echo "$WRK" | grep -q 'requests in' && echo yes || echo no)"
H2=$(h2load --h1 -n 64000 -c 64 -m 16 "$URL" 2>&1)
check "h2load" "requests: 64000 total, 64000 started, 64000 done, 64000 succeeded, 0 failed, 0 errored, 0 timeout" \
    "$(echo "$H2" | grep '^requests:')"

# HTTPS: tachy-hello -c CERT -k KEY, verified by curl against the certificate itself.
TLSDIR=$(mktemp -d)
TPID=
trap 'kill $PID $TPID 2>/dev/null; wait $PID $TPID 2>/dev/null; rm -rf "$LOG" "$TLSDIR"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
    -keyout "$TLSDIR/key.pem" -out "$TLSDIR/cert.pem" 2>/dev/null
"$HELLO" -p 0 -b 127.0.0.1 -c "$TLSDIR/cert.pem" -k "$TLSDIR/key.pem" >"$TLSDIR/log" 2>&1 &
TPID=$!
for _ in $(seq 50); do grep -q "listening on" "$TLSDIR/log" && break; sleep 0.1; done
SURL=$(sed -n 's/^listening on //p' "$TLSDIR/log")
check "https url" "https://127.0.0.1" "${SURL%:*}"
CURL_TLS=(curl -sS --cacert "$TLSDIR/cert.pem")
check "curl https GET" "Hello, World!" "$("${CURL_TLS[@]}" "$SURL")"
check "curl https keep-alive (2 requests, 1 connection)" "Hello, World!1 Hello, World!0 " \
    "$("${CURL_TLS[@]}" -w '%{num_connects} ' "$SURL" "$SURL")"
check "curl https POST chunked" "chunky" \
    "$(printf chunky | "${CURL_TLS[@]}" -H 'Transfer-Encoding: chunked' --data-binary @- "${SURL}echo")"
check "curl to https with plain http fails" "000" "$(curl -sS -o /dev/null -w '%{http_code}' "${SURL/https/http}" 2>/dev/null || true)"
H2S=$(h2load --h1 -n 8000 -c 8 -m 16 "$SURL" 2>&1)
check "h2load https" "requests: 8000 total, 8000 started, 8000 done, 8000 succeeded, 0 failed, 0 errored, 0 timeout" \
    "$(echo "$H2S" | grep '^requests:')"

echo "smoke: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
