#!/usr/bin/env bash
# tests/h2/smoke.sh - real HTTP/2 clients against a running server: curl, nghttp, h2load and
# headless Chromium.
#
#   tests/h2/smoke.sh --h2c HOST:PORT [--tls HOST:PORT] [--echo PATH|--echo=] [--no-upgrade]
#                     [--body TEXT] [--no-chromium] [--no-jdk]
#
# --h2c: the plain port (prior knowledge, and Upgrade: h2c unless --no-upgrade); --tls: the
# TLS port (ALPN h2, certificate not verified); --echo: a POST path that sends the body back
# (default /echo; --echo= when there is none); --body: what GET / answers (default
# "Hello, World!"). The JDK's java.net.http.HttpClient (JdkH2Client.java: GET, 1 MiB echo, 200
# concurrent GETs) runs on both ports when a JDK is there ($JAVA_HOME, else javac on the PATH).
# Prints PASS/FAIL per check and "N passed, M failed"; exit 1 on a failure.
set -uo pipefail
H2C= TLS= ECHO=/echo UPGRADE=1 BODY="Hello, World!" CHROMIUM=1 JDK=1
while [ $# -gt 0 ]; do
  case "$1" in
    --h2c) H2C=$2; shift ;;
    --tls) TLS=$2; shift ;;
    --echo) ECHO=$2; shift ;;
    --echo=*) ECHO=${1#--echo=} ;;
    --no-upgrade) UPGRADE=0 ;;
    --body) BODY=$2; shift ;;
    --no-chromium) CHROMIUM=0 ;;
    --no-jdk) JDK=0 ;;
    *) echo "smoke.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$H2C" ] || { sed -n '2,13p' "$0"; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
passed=0 failed=0
pass() { echo "  PASS $1"; passed=$((passed + 1)); }
fail() { echo "  FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "  SKIP $1: $2"; }
t0() { T0=$(date +%s.%N); }
dt() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f s", b - a }'; }

# curl_check NAME EXPECT_VERSION CURL-ARGS...: 200, the body, and the protocol version
curl_check() {
  local name=$1 want=$2; shift 2
  t0
  local out
  out=$(curl -sS --max-time 10 -o "$W/body" -w '%{http_code} %{http_version}' "$@" 2>&1)
  if [ "$out" = "200 $want" ] && [ "$(cat "$W/body")" = "$BODY" ]; then
    pass "$name ($(dt))"
  else
    fail "$name" "got '$out', body '$(head -c 60 "$W/body" 2>/dev/null)'"
  fi
}

echo "curl $(curl --version | head -1 | cut -d' ' -f2), $(nghttp --version 2>&1 | head -1)"
curl_check "curl --http2-prior-knowledge GET /" 2 --http2-prior-knowledge "http://$H2C/"
if [ "$UPGRADE" = 1 ]; then
  curl_check "curl --http2 (Upgrade: h2c) GET /" 2 --http2 "http://$H2C/"
else
  skip "curl --http2 (Upgrade: h2c) GET /" "--no-upgrade"
fi
if [ -n "$TLS" ]; then
  curl_check "curl --http2 over TLS (ALPN h2) GET /" 2 --http2 -k "https://$TLS/"
  curl_check "curl --http1.1 over TLS still served" 1.1 --http1.1 -k "https://$TLS/"
fi
if [ -n "$ECHO" ]; then
  head -c 1048576 /dev/urandom >"$W/1m"
  for mode in h2c tls; do
    if [ $mode = h2c ]; then args=(--http2-prior-knowledge "http://$H2C$ECHO"); else
      [ -n "$TLS" ] || continue
      args=(--http2 -k "https://$TLS$ECHO")
    fi
    t0
    out=$(curl -sS --max-time 20 -o "$W/back" -w '%{http_code} %{http_version}' \
      -H 'Content-Type: application/octet-stream' --data-binary "@$W/1m" "${args[@]}" 2>&1)
    if [ "$out" = "200 2" ] && cmp -s "$W/1m" "$W/back"; then
      pass "curl POST 1 MiB echo over $mode ($(dt))"
    else
      fail "curl POST 1 MiB echo over $mode" "got '$out', $(stat -c %s "$W/back" 2>/dev/null) bytes back"
    fi
  done
else
  skip "curl POST 1 MiB echo" "no --echo"
fi

# nghttp: the frames exchanged, -n (do not print the body); status 200 and a DATA frame
nghttp_check() {
  local name=$1; shift
  t0
  if timeout 15 nghttp -nv "$@" >"$W/nghttp" 2>&1 && grep -q ':status: 200' "$W/nghttp" &&
     grep -q 'recv DATA frame' "$W/nghttp"; then
    pass "$name ($(dt))"
  else
    fail "$name" "$(grep -m3 -e ':status' -e 'GOAWAY' -e 'ERROR' -e 'rror' "$W/nghttp" | tr '\n' ' ')"
  fi
}
nghttp_check "nghttp GET / (h2c prior knowledge)" "http://$H2C/"
if [ "$UPGRADE" = 1 ]; then
  nghttp_check "nghttp -u GET / (h2c Upgrade)" -u "http://$H2C/"
fi
[ -n "$TLS" ] && nghttp_check "nghttp GET / over TLS" "https://$TLS/"

# h2load: 10,000 requests, 4 connections, 10 streams each; every one 2xx, none failed
h2load_check() {
  local name=$1; shift
  t0
  timeout 120 h2load -n 10000 -c 4 -m 10 "$@" >"$W/h2load" 2>&1
  local line codes proto
  line=$(grep '^requests:' "$W/h2load")
  codes=$(grep '^status codes:' "$W/h2load")
  proto=$(grep -m1 'Application protocol:' "$W/h2load" | awk '{print $3}')
  if echo "$line" | grep -q '10000 succeeded, 0 failed, 0 errored, 0 timeout' &&
     echo "$codes" | grep -q '10000 2xx' && [ "$proto" = h2 -o "$proto" = h2c ]; then
    pass "$name: $(grep '^finished in' "$W/h2load" | cut -d, -f2 | xargs) ($(dt))"
  else
    fail "$name" "$line / $codes / protocol ${proto:-none}"
  fi
}
h2load_check "h2load -n 10000 -c 4 -m 10 h2c" "http://$H2C/"
[ -n "$TLS" ] && h2load_check "h2load -n 10000 -c 4 -m 10 TLS" "https://$TLS/"

# the JDK's HttpClient: h2c by Upgrade (it has no prior knowledge; skipped with --no-upgrade)
# and h2 over TLS
if [ "$JDK" = 1 ]; then
  JAVAC=${JAVA_HOME:+$JAVA_HOME/bin/}javac
  JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java
  HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  if ! command -v "$JAVAC" >/dev/null 2>&1; then
    skip "JDK HttpClient" "no javac"
  elif ! "$JAVAC" -d "$W/jdk" "$HERE/JdkH2Client.java" 2>"$W/javac.log"; then
    fail "JDK HttpClient" "JdkH2Client.java did not compile: $(head -3 "$W/javac.log" | tr '\n' ' ')"
  else
    urls=()
    [ "$UPGRADE" = 1 ] && urls+=("http://$H2C")
    [ -n "$TLS" ] && urls+=("https://$TLS")
    for u in "${urls[@]}"; do
      t0
      timeout 120 "$JAVA" -Djdk.internal.httpclient.disableHostnameVerification=true \
        -cp "$W/jdk" JdkH2Client "$u" "${ECHO:--}" >"$W/jdk.out" 2>&1
      while read -r verdict rest; do
        case "$verdict" in
          PASS) pass "$rest" ;;
          FAIL) fail "${rest%%: *}" "${rest#*: }" ;;
        esac
      done < <(grep -E '^  (PASS|FAIL) ' "$W/jdk.out")
      grep -qE '^[0-9]+ passed' "$W/jdk.out" || fail "JDK HttpClient $u" "$(tail -2 "$W/jdk.out" | tr '\n' ' ')"
      echo "    (JDK HttpClient against $u: $(dt))"
    done
  fi
fi

# Chromium over TLS: the page's text, and the net-log shows an HTTP/2 session that got DATA
if [ -n "$TLS" ] && [ "$CHROMIUM" = 1 ]; then
  CHR=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
  if [ -z "$CHR" ]; then
    skip "headless Chromium over TLS" "no chromium"
  else
    t0
    timeout 60 "$CHR" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --ignore-certificate-errors --user-data-dir="$W/chromium" --log-net-log="$W/netlog.json" \
      --dump-dom "https://$TLS/" >"$W/dom" 2>"$W/chromium.err"
    verdict=$(python3 - "$W/netlog.json" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"no net-log ({e})"); sys.exit()
names = {v: k for k, v in d["constants"]["logEventTypes"].items()}
h2 = [e for e in d["events"] if names.get(e["type"]) == "HTTP2_SESSION_INITIALIZED"]
data = [e for e in d["events"] if names.get(e["type"]) == "HTTP2_SESSION_RECV_DATA"]
protos = {e.get("params", {}).get("protocol") for e in h2}
print("ok" if "h2" in protos and data else f"HTTP/2 sessions {protos or 'none'}, {len(data)} DATA frames")
EOF
)
    if grep -qF "$BODY" "$W/dom" && [ "$verdict" = ok ]; then
      pass "headless Chromium over TLS: the page over an h2 session ($(dt))"
    else
      fail "headless Chromium over TLS" "$verdict; DOM: $(head -c 120 "$W/dom")"
    fi
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
