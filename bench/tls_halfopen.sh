#!/bin/bash
# bench/tls_halfopen.sh [TACHY_HELLO] [N] [PORT] - memory held by half-open TLS handshakes.
#
# Makes a throwaway self-signed certificate, starts tachy-hello with it on 127.0.0.1:PORT,
# reads the server's VmRSS from /proc, then opens N TCP connections in each of two modes and
# reads VmRSS again while they are held open:
#   silent  - the TCP connection is open, nothing is sent;
#   partial - the first half of a real ClientHello is sent, never the rest (the server
#             has seen a TLS record header and waits for the rest of the record);
#   hello   - a whole ClientHello is sent, then nothing (the server has answered with its
#             flight and waits for the client's): these are real handshakes in progress, which
#             tachy_tls_config_set_max_handshakes caps (1024 by default; beyond the cap the
#             server closes the connection, counted as "closed").
# Prints, per mode, the RSS before/after and (after - before) / N in KB per connection, then
# checks that a real client (curl) is still served while the N connections are held.
# Then the lock-out check:
#   flood   - N connections, each sending a whole ClientHello and then nothing, held for
#             FLOOD_S seconds (8); each one the server closes is opened again at once, as an
#             attacker would. Meanwhile a real client (curl, 2 s limit) asks for / every
#             0.3 s; prints how many of its requests were served and the server's peak RSS.
# Needs openssl, curl and python3. N defaults to 2000 (ulimit -n is raised to fit).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-$HERE/../build/release/examples/tachy-hello}
N=${2:-2000}
PORT=${3:-18481}
TMP=$(mktemp -d)
ulimit -n $((N * 2 + 256))
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
    -keyout "$TMP/key.pem" -out "$TMP/cert.pem" >/dev/null 2>&1 || { echo "openssl failed"; exit 2; }
"$BIN" -p "$PORT" -b 127.0.0.1 -c "$TMP/cert.pem" -k "$TMP/key.pem" >/dev/null 2>&1 &
SRV=$!
trap 'kill $SRV 2>/dev/null; wait $SRV 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do
    curl -sk -o /dev/null "https://127.0.0.1:$PORT/" && break
    sleep 0.1
done
# Warm up: a few full handshakes so OpenSSL's lazily built tables are already in the RSS.
for _ in 1 2 3 4 5; do curl -sk -o /dev/null "https://127.0.0.1:$PORT/"; done
python3 - "$SRV" "$PORT" "$N" <<'PY'
import socket, subprocess, sys, time
pid, port, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

def rss_kb():
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

def client_hello():
    # The first flight of a real TLS client (Python's ssl module over memory BIOs).
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_hostname="localhost")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return out.read()

# Half of a real ClientHello: the server has the record header and waits for the rest.
full = client_hello()
hello = full[: len(full) // 2]

def settle():
    time.sleep(1.5)
    return rss_kb()

for mode in ("silent", "partial", "hello"):
    before = settle()
    socks = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        if mode == "partial":
            s.sendall(hello)
        elif mode == "hello":
            s.sendall(full)
        socks.append(s)
    after = settle()
    closed = 0
    for s in socks:
        s.setblocking(False)
        try:
            while True:
                b = s.recv(65536)
                if not b:
                    closed += 1
                    break
        except (BlockingIOError, ConnectionResetError) as e:
            if isinstance(e, ConnectionResetError):
                closed += 1
    ok = subprocess.run(["curl", "-sk", "-m", "5", "-o", "/dev/null", "-w", "%{http_code}",
                         f"https://127.0.0.1:{port}/"], capture_output=True, text=True).stdout
    print(f"{mode:8s} N={n}  RSS {before} -> {after} KB  = {(after - before) / n:.1f} KB per connection"
          f", {closed} closed by the server  (a real client meanwhile: HTTP {ok or 'none'})")
    for s in socks:
        s.close()
    time.sleep(0.5)

# The lock-out check: stalled whole-ClientHello handshakes, reopened as the server closes
# them, while a real client keeps asking.
import selectors, threading
flood_s = float(__import__("os").environ.get("FLOOD_S", "8"))
before = settle()
sel = selectors.DefaultSelector()
def open_one():
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(full)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        return 1
    except OSError:
        return 0
opened = sum(open_one() for _ in range(n))
stop = threading.Event()
served = [0, 0]
def real_client():
    while not stop.is_set():
        code = subprocess.run(["curl", "-sk", "-m", "2", "-o", "/dev/null", "-w", "%{http_code}",
                               f"https://127.0.0.1:{port}/"], capture_output=True,
                              text=True).stdout
        served[1] += 1
        served[0] += code == "200"
        stop.wait(0.3)
th = threading.Thread(target=real_client)
th.start()
peak, reopened, end = rss_kb(), 0, time.monotonic() + flood_s
while time.monotonic() < end:
    for key, _ in sel.select(timeout=0.05):
        s = key.fileobj
        try:
            if s.recv(65536):
                continue  # the server's flight: never answered
        except BlockingIOError:
            continue
        except OSError:
            pass
        sel.unregister(s)
        s.close()
        reopened += open_one()
    peak = max(peak, rss_kb())
stop.set()
th.join()
print(f"flood    N={n} for {flood_s:.0f} s: real client served {served[0]}/{served[1]}"
      f", {reopened} reopened after the server closed them, RSS {before} -> peak {peak} KB")
for key in list(sel.get_map().values()):
    key.fileobj.close()
PY
