#!/bin/bash
# bench/slowbody.sh [TACHY_HELLO] [PORT] - ordinary GET latency while a slow-body flood runs.
#
# Starts tachy-hello on 127.0.0.1:PORT, then runs slowhttptest's slow-body attack
# (-B -c 1000 -r 200 -i 10 -s 8192 -l 30: 1,000 connections opened at 200/s, each POSTing
# an 8 KiB body to /echo a few bytes every 10 s, for 30 s) while a client opens a new
# connection every 20 ms and times one GET / on it (5 s timeout). Prints the GET latency
# percentiles and the server's thread count at the end. Needs slowhttptest (Debian package)
# and python3. Takes about 35 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-$HERE/../build/release/examples/tachy-hello}
PORT=${2:-18480}
DUR=30
command -v slowhttptest >/dev/null || { echo "slowhttptest not installed (apt-get install slowhttptest)"; exit 2; }
ulimit -n 8192
"$BIN" -p "$PORT" -b 127.0.0.1 >/dev/null 2>&1 &
SRV=$!
trap 'kill $SRV 2>/dev/null; wait $SRV 2>/dev/null' EXIT
for _ in $(seq 50); do
    curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break
    sleep 0.1
done
slowhttptest -B -c 1000 -r 200 -i 10 -s 8192 -l $DUR -u "http://127.0.0.1:$PORT/echo" \
    -o /tmp/slowbody.$PORT >/tmp/slowbody.$PORT.log 2>&1 &
SHT=$!
sleep 1
python3 - "$PORT" $((DUR - 3)) "$HERE/../tests/support" <<'PY'
import socket, sys, time
port, dur = int(sys.argv[1]), float(sys.argv[2])
sys.path.insert(0, sys.argv[3])
from netutil import recv_all
lat, failed = [], 0
end = time.monotonic() + dur
while time.monotonic() < end:
    t0 = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        got = recv_all(s)
        s.close()
        if not got.startswith(b"HTTP/1.1 200"):
            raise OSError("bad response")
        lat.append((time.monotonic() - t0) * 1000)
    except OSError:
        failed += 1
    time.sleep(max(0, 0.02 - (time.monotonic() - t0)))
lat.sort()
def pct(p):
    return lat[min(len(lat) - 1, int(len(lat) * p / 100))] if lat else float("nan")
print("GET / under the slow-body flood: %d answered, %d failed; p50 %.1f ms, p99 %.1f ms, max %.1f ms"
      % (len(lat), failed, pct(50), pct(99), lat[-1] if lat else float("nan")))
PY
echo "server threads at the end: $(ls /proc/$SRV/task | wc -l)"
wait $SHT
# slowhttptest's last status, without its colours
sed 's/\x1b\[[0-9;]*m//g' /tmp/slowbody.$PORT.log | grep -E "^(pending|connected|error|closed):" |
    tail -4 | tr -s ' ' | paste -sd ' '
