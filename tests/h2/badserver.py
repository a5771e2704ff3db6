#!/usr/bin/env python3
"""A small HTTP/2 server with flaws to order: the harness's own test. Every check of
client.py must fail against the flaw it exists to catch (tests/h2/README.md, "Can each check
fail?").

    badserver.py --port P [--tls-port Q --cert C --key K] [--flaw NAME]...

h2c by prior knowledge only (no HTTP/1.1, no Upgrade) and h2 by ALPN; GET / -> 200
"Hello, World!", POST /echo -> the body back; a thread per connection. Built on the Python
`h2` package, which is strict by default; the flaws undo that:

  lax-headers   accept malformed requests (no header validation: TE, Connection, CR/LF,
                uppercase names, pseudo-header rules)
  no-limits     no header list limit (HPACK bomb, CONTINUATION flood accepted)
  no-flow       ignore the client's flow-control windows (writes whole bodies at once)
  one-thread    one thread for every connection, blocked while a stream waits for window
  die-on-reset  exit the process on a client's RST_STREAM
  no-max-streams  advertise no SETTINGS_MAX_CONCURRENT_STREAMS (unbounded)
"""
import argparse
import os
import socket
import ssl
import struct
import sys
import threading

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

FLAWS = set()
BIG_LOCK = threading.Lock()  # one-thread: every connection's work under one lock


def respond(conn, sock, sid, status, body, hdrs=()):
    conn.send_headers(sid, [(":status", str(status)), ("content-length", str(len(body)))] +
                      list(hdrs), end_stream=not body)
    view = memoryview(body)
    while view:
        if "no-flow" in FLAWS:  # DATA frames straight onto the wire, windows ignored
            n = min(len(view), 16384)
            last = n == len(view)
            sock.sendall(struct.pack(">BHBBI", 0, n, 0, 1 if last else 0, sid) + bytes(view[:n]))
            view = view[n:]
            continue
        n = min(len(view), conn.local_flow_control_window(sid), conn.max_outbound_frame_size)
        if n <= 0:
            sock.sendall(conn.data_to_send())
            if not pump(conn, sock, wait_for=sid):
                return
            continue
        conn.send_data(sid, bytes(view[:n]), end_stream=n == len(view))
        view = view[n:]
    sock.sendall(conn.data_to_send())


def pump(conn, sock, wait_for=None):
    """Reads once and handles what came (used while waiting for window)."""
    data = sock.recv(65536)
    if not data:
        return False
    for ev in conn.receive_data(data):
        if isinstance(ev, h2.events.StreamReset) and ev.stream_id == wait_for:
            return False
    sock.sendall(conn.data_to_send())
    return True


def serve(sock):
    cfg = h2.config.H2Configuration(client_side=False,
                                    validate_inbound_headers="lax-headers" not in FLAWS,
                                    normalize_inbound_headers="lax-headers" not in FLAWS)
    conn = h2.connection.H2Connection(config=cfg)
    if "no-limits" in FLAWS:
        conn.decoder.max_header_list_size = 1 << 40
        conn.max_inbound_frame_size = 16384
    settings = {h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 100}
    if "no-max-streams" in FLAWS:
        settings = {h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 2**31 - 1}
    conn.update_settings(settings)
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    reqs = {}
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return
            lock = BIG_LOCK if "one-thread" in FLAWS else threading.Lock()
            with lock:
                try:
                    events = conn.receive_data(data)
                except h2.exceptions.ProtocolError:
                    sock.sendall(conn.data_to_send())
                    return
                for ev in events:
                    if isinstance(ev, h2.events.RequestReceived):
                        reqs[ev.stream_id] = (dict((k.decode() if isinstance(k, bytes) else k,
                                                    v.decode() if isinstance(v, bytes) else v)
                                                   for k, v in ev.headers), bytearray())
                    elif isinstance(ev, h2.events.DataReceived):
                        if ev.stream_id in reqs:
                            reqs[ev.stream_id][1].extend(ev.data)
                        conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                    elif isinstance(ev, h2.events.StreamEnded) and ev.stream_id in reqs:
                        hdrs, body = reqs.pop(ev.stream_id)
                        if hdrs.get(":method") == "POST" and hdrs.get(":path") == "/echo":
                            respond(conn, sock, ev.stream_id, 200, bytes(body))
                        elif hdrs.get(":method") in ("GET", "HEAD"):
                            b = b"Hello, World!"
                            if hdrs.get(":method") == "HEAD":
                                conn.send_headers(ev.stream_id, [(":status", "200"),
                                                                 ("content-length", "13")],
                                                  end_stream=True)
                            else:
                                respond(conn, sock, ev.stream_id, 200, b,
                                        [("content-type", "text/plain")])
                        else:
                            respond(conn, sock, ev.stream_id, 405, b"")
                    elif isinstance(ev, h2.events.StreamReset):
                        reqs.pop(ev.stream_id, None)
                        if "die-on-reset" in FLAWS:
                            os._exit(3)
                    elif isinstance(ev, h2.events.ConnectionTerminated):
                        sock.sendall(conn.data_to_send())
                        return
                sock.sendall(conn.data_to_send())
    except (OSError, h2.exceptions.H2Error):
        return
    finally:
        sock.close()


def listen(port, ctx):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(512)

    def loop():
        while True:
            s, _ = ls.accept()
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if ctx:
                try:
                    s = ctx.wrap_socket(s, server_side=True)
                except (OSError, ssl.SSLError):
                    s.close()
                    continue
            threading.Thread(target=serve, args=(s,), daemon=True).start()
    t = threading.Thread(target=loop, daemon=True)
    t.start()
    print(f"listening on {'https' if ctx else 'http'}://127.0.0.1:{ls.getsockname()[1]}/", flush=True)
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--tls-port", type=int)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--flaw", action="append", default=[])
    a = ap.parse_args()
    FLAWS.update(a.flaw)
    t = listen(a.port, None)
    if a.tls_port:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.cert, a.key)
        ctx.set_alpn_protocols(["h2"])
        listen(a.tls_port, ctx)
    t.join()


if __name__ == "__main__":
    sys.exit(main())
