#!/usr/bin/env python3
"""Open N keep-alive connections to 127.0.0.1:PORT, send one GET / on each, read the
response, then hold them idle until SIGTERM/SIGINT or HOLD seconds pass.

Writes READY_FILE (JSON) once all connections are established and answered, and
prints a final JSON line: how many were opened, answered, and still open at the end
(servers such as the JDK built-in close idle connections beyond maxIdleConnections).
Bounded: gives up after --setup-timeout seconds.
"""
import argparse, errno, json, os, selectors, signal, socket, sys, time

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("n", type=int)
    ap.add_argument("--hold", type=float, default=120.0)
    ap.add_argument("--ready-file", required=True)
    ap.add_argument("--setup-timeout", type=float, default=60.0)
    a = ap.parse_args()

    stop = {"flag": False}
    def on_sig(*_):
        stop["flag"] = True
    signal.signal(signal.SIGTERM, on_sig)
    signal.signal(signal.SIGINT, on_sig)

    req = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    sel = selectors.DefaultSelector()
    socks, state = [], {}
    t0 = time.monotonic()
    opened = failed = 0
    # connect in batches so the listen backlog is never the bottleneck
    batch = 256
    i = 0
    answered = 0
    while (i < a.n or state) and time.monotonic() - t0 < a.setup_timeout and not stop["flag"]:
        while i < a.n and len(state) < batch:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            rc = s.connect_ex(("127.0.0.1", a.port))
            if rc not in (0, errno.EINPROGRESS):
                failed += 1; s.close(); i += 1; continue
            state[s] = {"sent": False, "buf": b""}
            sel.register(s, selectors.EVENT_WRITE)
            i += 1
        for key, ev in sel.select(timeout=0.5):
            s = key.fileobj; st = state[s]
            if not st["sent"]:
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    failed += 1; sel.unregister(s); s.close(); del state[s]; continue
                s.send(req); st["sent"] = True; opened += 1
                sel.modify(s, selectors.EVENT_READ)
                continue
            try:
                d = s.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                d = b""
            if not d:
                failed += 1; sel.unregister(s); s.close(); del state[s]; continue
            st["buf"] += d
            b = st["buf"]
            h = b.find(b"\r\n\r\n")
            if h >= 0:
                head = b[:h].decode("latin-1").lower()
                clen = 0
                for line in head.split("\r\n"):
                    if line.startswith("content-length:"):
                        clen = int(line.split(":", 1)[1])
                if len(b) >= h + 4 + clen:
                    answered += 1
                    sel.unregister(s); del state[s]; socks.append(s)
    setup_s = time.monotonic() - t0
    info = {"requested": a.n, "opened": opened, "answered": answered, "failed": failed,
            "setup_s": round(setup_s, 3)}
    with open(a.ready_file + ".tmp", "w") as f:
        json.dump(info, f)
    os.rename(a.ready_file + ".tmp", a.ready_file)

    end = time.monotonic() + a.hold
    while not stop["flag"] and time.monotonic() < end:
        time.sleep(0.1)

    alive = 0
    for s in socks:
        try:
            d = s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            if d:
                alive += 1
        except (BlockingIOError, InterruptedError):
            alive += 1
        except OSError:
            pass
    info["alive_at_end"] = alive
    for s in socks:
        s.close()
    print(json.dumps(info))
    sys.stdout.flush()

if __name__ == "__main__":
    main()
