#!/usr/bin/env python3
"""HTTP/2 client checks against a running server: real frames over real sockets.

    client.py --h2c HOST:PORT [--tls HOST:PORT] [--echo PATH] [--big PATH] [--trailers PATH]
              [--no-upgrade] [--no-h1] [--pid PID] [--only a,b] [--skip a,b] [--list]

--h2c: the plain port, spoken to with prior knowledge (RFC 9113 section 3.3); --tls: the TLS
port, ALPN "h2" (section 3.2; certificate not verified). --echo: a path that answers POST
with the request body (default /echo; "" when the server has none: the echo and flow-control
checks then use --big or are skipped). --big: a GET path with a body of at least 256 KiB
(for servers without an echo). --trailers: a GET path whose response ends with trailers.
--no-upgrade: the server does not do `Upgrade: h2c` (nginx); --no-h1: the plain port does not
speak HTTP/1.1 (nginx with `listen ... http2`). --pid: the server's process; every attack
check also requires it to be alive afterwards.

Each check prints PASS, FAIL (with why) or SKIP (with why); the last line is
"N passed, M failed" (skips are not counted), exit status 1 when anything failed.

The protocol is spoken by hand here (frames packed with struct, header blocks by the `hpack`
package that comes with `h2`) so that the attacks can send what a correct client never
would: floods, malformed header blocks, window overflows.
"""
import argparse
import base64
import os
import socket
import ssl
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "support"))
from netutil import recv_all  # noqa: E402

try:
    import hpack
except ImportError:  # pragma: no cover
    sys.exit("client.py: needs the Python package h2 (pip install h2), which brings hpack")

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, \
    CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIO = 0x1, 0x1, 0x4, 0x8, 0x20
S_HEADER_TABLE_SIZE, S_ENABLE_PUSH, S_MAX_CONCURRENT_STREAMS, S_INITIAL_WINDOW_SIZE, \
    S_MAX_FRAME_SIZE, S_MAX_HEADER_LIST_SIZE = range(1, 7)
ERR = {0: "NO_ERROR", 1: "PROTOCOL_ERROR", 2: "INTERNAL_ERROR", 3: "FLOW_CONTROL_ERROR",
       4: "SETTINGS_TIMEOUT", 5: "STREAM_CLOSED", 6: "FRAME_SIZE_ERROR", 7: "REFUSED_STREAM",
       8: "CANCEL", 9: "COMPRESSION_ERROR", 10: "CONNECT_ERROR", 11: "ENHANCE_YOUR_CALM",
       12: "INADEQUATE_SECURITY", 13: "HTTP_1_1_REQUIRED"}
MAX_WINDOW = 2**31 - 1


def frame(ftype, flags, sid, payload=b""):
    n = len(payload)
    return struct.pack(">BHBBI", n >> 16, n & 0xFFFF, ftype, flags, sid) + payload


def settings_frame(pairs=(), ack=False):
    return frame(SETTINGS, ACK if ack else 0, 0, b"".join(struct.pack(">HI", k, v) for k, v in pairs))


def window_update(sid, inc):
    return frame(WINDOW_UPDATE, 0, sid, struct.pack(">I", inc))


def rst(sid, code):
    return frame(RST_STREAM, 0, sid, struct.pack(">I", code))


def hpack_int(value, prefix_bits, first=0):
    """RFC 7541 section 5.1 integer, first byte's high bits from `first`."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = [first | limit]
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def hpack_literal(name, value, indexing=False):
    """A literal field with a literal name, no Huffman (RFC 7541 section 6.2.1 / 6.2.2)."""
    name = name.encode() if isinstance(name, str) else name
    value = value.encode() if isinstance(value, str) else value
    return (b"\x40" if indexing else b"\x00") + hpack_int(len(name), 7) + name + \
        hpack_int(len(value), 7) + value


def err_name(code):
    return ERR.get(code, str(code))


class Stream:
    def __init__(self, sid, window):
        self.sid = sid
        self.status = None
        self.headers = []
        self.trailers = None
        self.data = bytearray()
        self.ended = False      # END_STREAM received
        self.reset = None       # RST_STREAM error code received
        self.send_window = window
        self.informational = []

    @property
    def done(self):
        return self.ended or self.reset is not None


class Conn:
    """One HTTP/2 connection spoken frame by frame.

    auto_window: every DATA frame received is given back at once (WINDOW_UPDATE for the
    connection and the stream); otherwise the caller decides (slow readers)."""

    def __init__(self, addr, tls=False, settings=((S_ENABLE_PUSH, 0),), timeout=10,
                 auto_window=True, preface=True, conn_window=None, sock=None):
        host, port = addr
        self.authority = f"{host}:{port}"
        self.scheme = "https" if tls else "http"
        s = sock or socket.create_connection((host, port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls:
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            ctx.set_alpn_protocols(["h2"])
            s = ctx.wrap_socket(s, server_hostname="localhost")
            self.alpn = s.selected_alpn_protocol()
        else:
            self.alpn = None
        self.s = s
        self.timeout = timeout
        self.buf = bytearray()
        self.enc = hpack.Encoder()
        self.dec = hpack.Decoder()
        self.dec.max_header_list_size = 1 << 24
        self.streams = {}
        self.next_sid = 1
        self.peer = {S_INITIAL_WINDOW_SIZE: 65535, S_MAX_FRAME_SIZE: 16384}
        self.peer_settings_seen = False
        self.conn_send_window = 65535
        self.goaway = None          # (last_stream_id, code, debug)
        self.closed = False
        self.auto_window = auto_window
        self.pings_acked = 0
        self.settings_acked = 0
        self.frames_in = 0
        self._hdr_sid = None
        self._hdr_block = bytearray()
        self._hdr_end_stream = False
        self.my_initial_window = dict(settings).get(S_INITIAL_WINDOW_SIZE, 65535)
        if preface:
            out = PREFACE + settings_frame(settings)
            if conn_window:
                out += window_update(0, conn_window)
            self.send(out)

    # ---- output ---------------------------------------------------------------------------
    def send(self, data):
        self.s.sendall(data)

    def reply(self, data):
        """A frame the protocol owes the peer (ACKs, window): a peer that has closed just
        marks the connection closed, for the check to judge."""
        try:
            self.s.sendall(data)
        except OSError:
            self.closed = True

    def new_sid(self):
        sid = self.next_sid
        self.next_sid += 2
        return sid

    def block(self, headers):
        return self.enc.encode(headers)

    def req_headers(self, method, path, extra=()):
        return [(":method", method), (":scheme", self.scheme), (":path", path),
                (":authority", self.authority)] + list(extra)

    def send_headers(self, sid, block, end_stream, max_frame=16384):
        """HEADERS (+ CONTINUATION) carrying an already encoded block."""
        self.streams.setdefault(sid, Stream(sid, self.peer[S_INITIAL_WINDOW_SIZE]))
        first, rest = block[:max_frame], block[max_frame:]
        flags = (END_STREAM if end_stream else 0) | (0 if rest else END_HEADERS)
        out = [frame(HEADERS, flags, sid, first)]
        while rest:
            part, rest = rest[:max_frame], rest[max_frame:]
            out.append(frame(CONTINUATION, 0 if rest else END_HEADERS, sid, part))
        self.send(b"".join(out))
        return self.streams[sid]

    def request(self, method="GET", path="/", extra=(), end_stream=True):
        sid = self.new_sid()
        self.send_headers(sid, self.block(self.req_headers(method, path, extra)), end_stream)
        return self.streams[sid]

    def send_body(self, st, body, end=True, deadline=None):
        """Sends body on stream st within the peer's windows, reading while it waits."""
        deadline = deadline or time.time() + self.timeout
        view = memoryview(body)
        while view:
            if st.reset is not None or self.closed or self.goaway:
                return False
            n = min(len(view), st.send_window, self.conn_send_window, self.peer[S_MAX_FRAME_SIZE])
            if n <= 0:
                if time.time() > deadline:
                    raise TimeoutError("no window to send the body in")
                self.pump(0.2)
                continue
            last = n == len(view)
            self.send(frame(DATA, END_STREAM if (last and end) else 0, st.sid, bytes(view[:n])))
            st.send_window -= n
            self.conn_send_window -= n
            view = view[n:]
            self.pump(0)  # drain what has come in meanwhile (the echo going back)
        if not body and end:
            self.send(frame(DATA, END_STREAM, st.sid))
        return True

    # ---- input ----------------------------------------------------------------------------
    def _read_exact(self, n, timeout):
        while len(self.buf) < n:
            self.s.settimeout(timeout)
            try:
                d = self.s.recv(1 << 18)
            except socket.timeout:
                raise  # the caller's to judge (an OSError too, so before the next clause)
            except (ConnectionError, ssl.SSLError, OSError):
                d = b""
            if not d:
                self.closed = True
                raise EOFError
            self.buf += d
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def read_frame(self, timeout=None):
        """(type, flags, sid, payload); EOFError when the peer closed; socket.timeout."""
        t = self.timeout if timeout is None else timeout
        h = self._read_exact(9, t)
        n = (h[0] << 16) | (h[1] << 8) | h[2]
        ftype, flags, sid = h[3], h[4], struct.unpack(">I", h[5:9])[0] & 0x7FFFFFFF
        payload = self._read_exact(n, t) if n else b""
        self.frames_in += 1
        return ftype, flags, sid, payload

    def pump(self, timeout=None):
        """Reads and handles one frame; False on timeout or EOF."""
        try:
            if timeout == 0:
                self.s.setblocking(False)
                try:
                    d = self.s.recv(1 << 18)
                    if not d:
                        self.closed = True
                        return False
                    self.buf += d
                except (BlockingIOError, ssl.SSLWantReadError):
                    pass
                except (ConnectionError, OSError):
                    self.closed = True
                    return False
                finally:
                    self.s.setblocking(True)
                if len(self.buf) < 9:
                    return False
                n = (self.buf[0] << 16) | (self.buf[1] << 8) | self.buf[2]
                if len(self.buf) < 9 + n:
                    return False
                f = self.read_frame(1)
            else:
                f = self.read_frame(timeout)
        except (socket.timeout, TimeoutError):
            return False
        except EOFError:
            return False
        self.handle(*f)
        return True

    def handle(self, ftype, flags, sid, payload):
        if ftype == SETTINGS:
            if flags & ACK:
                self.settings_acked += 1
                return
            delta_iws = None
            for i in range(0, len(payload) - 5, 6):
                k, v = struct.unpack(">HI", payload[i:i + 6])
                if k == S_INITIAL_WINDOW_SIZE:
                    delta_iws = v - self.peer[S_INITIAL_WINDOW_SIZE]
                self.peer[k] = v
            if delta_iws:
                for st in self.streams.values():
                    st.send_window += delta_iws
            self.peer_settings_seen = True
            self.reply(settings_frame(ack=True))
        elif ftype == PING:
            if flags & ACK:
                self.pings_acked += 1
            else:
                self.reply(frame(PING, ACK, 0, payload))
        elif ftype == WINDOW_UPDATE:
            inc = struct.unpack(">I", payload[:4])[0] & 0x7FFFFFFF
            if sid == 0:
                self.conn_send_window += inc
            elif sid in self.streams:
                self.streams[sid].send_window += inc
        elif ftype == GOAWAY:
            last, code = struct.unpack(">II", payload[:8])
            self.goaway = (last & 0x7FFFFFFF, code, payload[8:])
        elif ftype == RST_STREAM:
            st = self.streams.setdefault(sid, Stream(sid, 0))
            st.reset = struct.unpack(">I", payload[:4])[0]
        elif ftype in (HEADERS, CONTINUATION):
            if ftype == HEADERS:
                p = payload
                if flags & PADDED:
                    pad = p[0]
                    p = p[1:len(p) - pad]
                if flags & PRIO:
                    p = p[5:]
                self._hdr_sid, self._hdr_block = sid, bytearray(p)
                self._hdr_end_stream = bool(flags & END_STREAM)
            else:
                self._hdr_block += payload
            if flags & END_HEADERS:
                hdrs = self.dec.decode(bytes(self._hdr_block))
                st = self.streams.setdefault(sid, Stream(sid, 0))
                status = dict(hdrs).get(":status")
                if st.status is None and status is not None and status.startswith("1"):
                    st.informational.append(hdrs)
                elif st.status is None:
                    st.status = int(status) if status else None
                    st.headers = hdrs
                else:
                    st.trailers = hdrs
                if self._hdr_end_stream:
                    st.ended = True
        elif ftype == DATA:
            p = payload
            if flags & PADDED:
                p = p[1:len(p) - p[0]]
            st = self.streams.setdefault(sid, Stream(sid, 0))
            st.data += p
            if flags & END_STREAM:
                st.ended = True
            if self.auto_window and len(payload):
                self.reply(window_update(0, len(payload)) +
                          (window_update(sid, len(payload)) if not st.ended else b""))
        elif ftype == PUSH_PROMISE:
            pass

    def wait(self, cond, timeout=None):
        """Pumps frames until cond() or the peer closes/goes away; returns cond()."""
        deadline = time.time() + (self.timeout if timeout is None else timeout)
        while not cond():
            left = deadline - time.time()
            if left <= 0 or self.closed:
                break
            self.pump(min(left, 1.0))
        return cond()

    def wait_streams(self, streams, timeout=None):
        return self.wait(lambda: all(s.done for s in streams) or self.goaway is not None,
                         timeout)

    def drain(self, timeout):
        """Reads until the peer is quiet for `timeout` s or closes."""
        while not self.closed and self.pump(timeout):
            pass

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


# ---- the checks --------------------------------------------------------------------------

class Ctx:
    def __init__(self, a):
        self.a = a
        self.h2c = parse_addr(a.h2c) if a.h2c else None
        self.tls = parse_addr(a.tls) if a.tls else None
        self.echo = a.echo or None
        self.big = a.big or None

    def conn(self, tls=False, **kw):
        return Conn(self.tls if tls else self.h2c, tls=tls, **kw)

    def alive(self):
        """The server process still runs (when --pid was given) and answers a fresh GET."""
        if self.a.pid:
            try:
                os.kill(self.a.pid, 0)
            except ProcessLookupError:
                return False, "the server process is gone"
        try:
            c = self.conn(timeout=5)
            st = c.request()
            ok = c.wait_streams([st], 5) and st.status == 200
            c.close()
            return ok, "" if ok else f"a fresh connection's GET / got {st.status} reset={st.reset}"
        except OSError as e:
            return False, f"a fresh connection failed: {e}"


def parse_addr(s):
    h, p = s.rsplit(":", 1)
    return h, int(p)


CHECKS = []


def check(name, needs=()):
    def deco(fn):
        CHECKS.append((name, fn, needs))
        return fn
    return deco


class Skip(Exception):
    pass


def expect(cond, why):
    if not cond:
        raise AssertionError(why)


def outcome(c, st):
    """A short description of how a stream (and its connection) ended."""
    parts = []
    if st is not None:
        if st.status is not None:
            parts.append(f"status {st.status}")
        if st.reset is not None:
            parts.append(f"RST_STREAM {err_name(st.reset)}")
    if c.goaway:
        parts.append(f"GOAWAY {err_name(c.goaway[1])}")
    if c.closed:
        parts.append("closed")
    return ", ".join(parts) or "no answer"


def refused(c, st, statuses=(400,), codes=(1,), conn_codes=(1,)):
    """The request was refused as malformed: one of `statuses`, RST_STREAM with one of `codes`
    or GOAWAY with one of `conn_codes` (RFC 9113 section 5.4.1: a stream error may be
    treated as a connection error)."""
    if st.status is not None and st.status in statuses:
        return True
    if st.reset is not None and st.reset in codes:
        return True
    if c.goaway is not None and c.goaway[1] in conn_codes:
        return True
    return False


# ---- basic --------------------------------------------------------------------------------

def get_ok(c, path="/"):
    st = c.request("GET", path)
    expect(c.wait_streams([st]), f"GET {path}: no complete answer ({outcome(c, st)})")
    expect(st.status == 200, f"GET {path}: {outcome(c, st)}")
    return st


@check("preface: server SETTINGS first, ACKs ours")
def t_preface(x):
    c = x.conn()
    ftype, flags, sid, payload = c.read_frame()
    expect(ftype == SETTINGS and not flags & ACK and sid == 0,
           f"first frame type {ftype} flags {flags}: not SETTINGS (RFC 9113 3.4)")
    c.handle(ftype, flags, sid, payload)
    expect(c.wait(lambda: c.settings_acked >= 1, 5), "our SETTINGS never ACKed")
    c.close()


@check("GET / over h2c prior knowledge: 200 with a body")
def t_get(x):
    c = x.conn()
    st = get_ok(c)
    expect(len(st.data) > 0, "empty body")
    cl = dict(st.headers).get("content-length")
    expect(cl is None or int(cl) == len(st.data), f"content-length {cl} but {len(st.data)} bytes")
    names = [k for k, _ in st.headers]
    for bad in ("connection", "transfer-encoding", "keep-alive", "upgrade", "proxy-connection"):
        expect(bad not in names, f"connection-specific header {bad} sent (RFC 9113 8.2.2)")
    c.close()


@check("HEAD /: 200, no DATA", needs=())
def t_head(x):
    c = x.conn()
    st = c.request("HEAD", "/")
    expect(c.wait_streams([st]), f"no complete answer ({outcome(c, st)})")
    expect(st.status == 200, outcome(c, st))
    expect(len(st.data) == 0, f"{len(st.data)} body bytes in a HEAD response")
    c.close()


@check("GET / over TLS: ALPN h2, 200", needs=("tls",))
def t_tls_get(x):
    c = x.conn(tls=True)
    expect(c.alpn == "h2", f"ALPN selected {c.alpn!r}")
    get_ok(c)
    c.close()


@check("HTTP/1.1 still served on the plain port", needs=("h1",))
def t_h1(x):
    s = socket.create_connection(x.h2c, timeout=5)
    s.sendall(f"GET / HTTP/1.1\r\nHost: {x.a.h2c}\r\nConnection: close\r\n\r\n".encode())
    d = recv_all(s)
    s.close()
    expect(d.startswith(b"HTTP/1.1 200"), f"got {d[:40]!r}")


@check("Upgrade: h2c on the plain port: 101, then the response on stream 1", needs=("upgrade",))
def t_upgrade(x):
    s = socket.create_connection(x.h2c, timeout=5)
    hs = base64.urlsafe_b64encode(struct.pack(">HI", S_ENABLE_PUSH, 0)).rstrip(b"=").decode()
    s.sendall((f"GET / HTTP/1.1\r\nHost: {x.a.h2c}\r\nConnection: Upgrade, HTTP2-Settings\r\n"
               f"Upgrade: h2c\r\nHTTP2-Settings: {hs}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        expect(b, f"closed during the 101: {head!r}")
        head += b
    expect(head.startswith(b"HTTP/1.1 101"), f"got {head.splitlines()[0]!r}")
    c = Conn(x.h2c, preface=False, sock=s)  # the same socket goes on as h2 (RFC 7540 3.2)
    c.send(PREFACE + settings_frame([(S_ENABLE_PUSH, 0)]))
    st = c.streams.setdefault(1, Stream(1, 65535))
    c.next_sid = 3
    expect(c.wait_streams([st]), f"stream 1: {outcome(c, st)}")
    expect(st.status == 200 and len(st.data) > 0, f"stream 1: {outcome(c, st)}")
    get_ok(c)  # and the connection goes on as h2
    c.close()


@check("POST 1 MiB echo: the same bytes back", needs=("echo",))
def t_echo(x):
    for tls in ([False, True] if x.tls else [False]):
        c = x.conn(tls=tls)
        body = os.urandom(1 << 20)
        st = c.request("POST", x.echo, [("content-length", str(len(body))),
                                        ("content-type", "application/octet-stream")],
                       end_stream=False)
        c.send_body(st, body)
        expect(c.wait_streams([st], 20), f"{'tls' if tls else 'h2c'}: {outcome(c, st)}")
        expect(st.status == 200, outcome(c, st))
        expect(bytes(st.data) == body, f"{len(st.data)} bytes back, not the same 1 MiB")
        c.close()


@check("POST echo without content-length (body of unknown length)", needs=("echo",))
def t_echo_nolen(x):
    c = x.conn()
    body = os.urandom(100_000)
    st = c.request("POST", x.echo, end_stream=False)
    c.send_body(st, body)
    expect(c.wait_streams([st], 20), outcome(c, st))
    expect(st.status == 200 and bytes(st.data) == body, f"{outcome(c, st)}, {len(st.data)} bytes")
    c.close()


@check("200 concurrent streams on one connection")
def t_concurrent(x):
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    limit = min(200, c.peer.get(S_MAX_CONCURRENT_STREAMS, 200))
    total, started, inflight, peak = 200, [], [], 0
    deadline = time.time() + 30
    while (len(started) < total or inflight) and time.time() < deadline:
        burst = []
        while len(started) < total and len(inflight) < limit:
            st = c.request("GET", "/")
            started.append(st)
            inflight.append(st)
            burst.append(st)
        peak = max(peak, len(inflight))
        c.pump(1)
        inflight = [s for s in inflight if not s.done]
        if c.goaway or c.closed:
            break
    bad = [s for s in started if s.status != 200 or not s.ended]
    expect(len(started) == total and not bad,
           f"{len(started)} started, {len(bad)} not 200 ({outcome(c, bad[0]) if bad else ''})")
    expect(peak >= limit, f"only {peak} in flight at once")
    print(f"    (server's MAX_CONCURRENT_STREAMS {c.peer.get(S_MAX_CONCURRENT_STREAMS, 'unlimited')},"
          f" {peak} streams in flight at once)")
    c.close()


@check("trailers: the response ends with a trailing HEADERS", needs=("trailers",))
def t_trailers(x):
    c = x.conn()
    st = get_ok(c, x.a.trailers)
    expect(st.trailers, "no trailers")
    expect(not any(k.startswith(":") for k, _ in st.trailers), "pseudo-header in trailers")
    c.close()


@check("client RST_STREAM on one stream, the others complete", needs=("echo",))
def t_client_reset(x):
    c = x.conn()
    victim = c.request("POST", x.echo, [("content-length", "100000")], end_stream=False)
    c.send(frame(DATA, 0, victim.sid, b"x" * 1000))
    others = [c.request("GET", "/") for _ in range(10)]
    c.send(rst(victim.sid, 8))
    more = [c.request("GET", "/") for _ in range(10)]
    expect(c.wait_streams(others + more), f"{outcome(c, others[-1])}")
    bad = [s for s in others + more if s.status != 200]
    expect(not bad, f"{len(bad)} of 20 failed: {outcome(c, bad[0]) if bad else ''}")
    expect(c.goaway is None, f"GOAWAY {err_name(c.goaway[1]) if c.goaway else ''}")
    c.close()


def big_request(c, x, size):
    """A stream whose response is at least 256 KiB: the echo of `size` bytes or GET --big."""
    if x.echo:
        body = os.urandom(size)
        st = c.request("POST", x.echo, [("content-length", str(size))], end_stream=False)
        return st, body
    if x.big:
        return c.request("GET", x.big), None
    raise Skip("needs --echo or --big")


@check("flow control: a slow reader (1 KiB windows) still gets the whole body")
def t_slow_reader(x):
    c = x.conn(settings=[(S_ENABLE_PUSH, 0), (S_INITIAL_WINDOW_SIZE, 1024)], auto_window=False)
    size = 256 * 1024
    st, body = big_request(c, x, size)
    # the body goes out while the response trickles back, 1 KiB per WINDOW_UPDATE
    view = memoryview(body) if body is not None else memoryview(b"")
    got = 0
    deadline = time.time() + 60
    while not st.done and time.time() < deadline and not c.closed:
        if view:
            n = min(len(view), st.send_window, c.conn_send_window, 16384)
            if n > 0:
                c.send(frame(DATA, END_STREAM if n == len(view) else 0, st.sid, bytes(view[:n])))
                st.send_window -= n
                c.conn_send_window -= n
                view = view[n:]
        before = len(st.data)
        c.pump(0.2 if not view else 0.05)
        new = len(st.data) - before
        expect(len(st.data) - got <= 1024,
               f"server sent {len(st.data) - got} bytes into a 1024-byte stream window")
        if new and not st.ended:
            got = len(st.data)
            c.send(window_update(st.sid, new) + window_update(0, new))
    expect(st.ended and st.status == 200, f"{outcome(c, st)} after {len(st.data)} bytes")
    if body is not None:
        expect(bytes(st.data) == body, f"{len(st.data)} bytes, not the body sent")
    else:
        expect(len(st.data) >= 256 * 1024, f"only {len(st.data)} bytes")
    c.close()


@check("flow control: a 4 MiB request body through the server's windows", needs=("echo",))
def t_big_upload(x):
    c = x.conn()
    body = os.urandom(4 << 20)
    st = c.request("POST", x.echo, [("content-length", str(len(body)))], end_stream=False)
    t0 = time.time()
    c.send_body(st, body, deadline=time.time() + 60)
    expect(c.wait_streams([st], 60), outcome(c, st))
    expect(st.status == 200 and bytes(st.data) == body, f"{outcome(c, st)}, {len(st.data)} bytes")
    print(f"    (server's initial window {c.peer[S_INITIAL_WINDOW_SIZE]}, {time.time() - t0:.2f} s)")
    c.close()


@check("zero window held open: other streams and connections still served")
def t_zero_window(x):
    # The stalled stream: its window is 0 and never opened. Connection window stays open.
    c = x.conn(settings=[(S_ENABLE_PUSH, 0), (S_INITIAL_WINDOW_SIZE, 0)], auto_window=False,
               conn_window=1 << 24)
    c.wait(lambda: c.peer_settings_seen, 5)
    # a whole request (60,000 bytes fit the default windows): the server has all it needs
    # and 60,000 bytes to write into a window of 0, whether it streams or buffers the echo
    stalled, body = big_request(c, x, 60000)
    if body is not None:
        c.send_body(stalled, body)
    time.sleep(0.3)
    # same connection: a stream that is given window gets its answer
    st = c.request("GET", "/")
    c.send(window_update(st.sid, 1 << 20))
    ok = c.wait(lambda: st.done, 5)
    expect(ok and st.status == 200 and st.ended, f"same connection, another stream: {outcome(c, st)}")
    # other connections, several times over a few seconds while the stall is held
    t_end = time.time() + 2
    n = 0
    while time.time() < t_end:
        d = x.conn(timeout=3)
        s2 = get_ok(d)
        d.close()
        n += 1
    expect(not stalled.ended, "the stalled stream finished through a zero window")
    expect(len(stalled.data) == 0, f"{len(stalled.data)} bytes sent into a zero window")
    c.close()


# ---- limits and attacks ---------------------------------------------------------------------

def survives(x, what):
    ok, why = x.alive()
    expect(ok, f"after {what}: {why}")


@check("Rapid Reset: 1,000 streams opened and reset at once (CVE-2023-44487)")
def t_rapid_reset(x):
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    blk = c.block(c.req_headers("GET", "/"))
    out = []
    t0 = time.time()
    for _ in range(1000):
        sid = c.new_sid()
        out.append(frame(HEADERS, END_STREAM | END_HEADERS, sid, blk))
        out.append(rst(sid, 8))
    try:
        c.send(b"".join(out))
    except OSError:
        pass
    # usable afterwards, or told to go away
    st = None
    if not c.closed:
        try:
            st = c.request("GET", "/")
            c.wait(lambda: st.done or c.goaway is not None, 10)
        except OSError:
            pass
    usable = st is not None and st.status == 200 and st.ended
    expect(usable or c.goaway is not None,
           f"connection neither usable nor sent GOAWAY ({outcome(c, st)})")
    print(f"    ({'still usable' if usable else 'GOAWAY ' + err_name(c.goaway[1])}, "
          f"{time.time() - t0:.2f} s)")
    c.close()
    survives(x, "the rapid reset")


def flood(x, make, count, what, chunk=2000):
    """Sends `count` frames from make(i) without reading, while another connection must
    still be served; then the flood connection must be usable or gone away/closed."""
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    stop = threading.Event()
    errors = []

    def other():
        while not stop.is_set():
            try:
                d = x.conn(timeout=5)
                t0 = time.time()
                get_ok(d)
                d.close()
                if time.time() - t0 > 3:
                    errors.append(f"a GET on another connection took {time.time() - t0:.1f} s")
            except Exception as e:  # noqa: BLE001
                errors.append(f"another connection failed during the flood: {e!r}")
                return
            time.sleep(0.05)

    th = threading.Thread(target=other)
    th.start()
    sent = 0
    cut = False
    t0 = time.time()
    c.s.settimeout(10)
    try:
        for i in range(0, count, chunk):
            c.send(b"".join(make(c, j) for j in range(i, min(count, i + chunk))))
            sent = min(count, i + chunk)
    except (OSError, socket.timeout) as e:
        cut = True  # the server stopped reading or closed: what a server may do
        cause = type(e).__name__
    dt = time.time() - t0
    stop.set()
    th.join()
    expect(not errors, errors[0] if errors else "")
    # read what the server sent meanwhile (ACKs, GOAWAY)
    c.s.settimeout(2)
    c.drain(1)
    if not c.closed and c.goaway is None:
        st = None
        try:
            st = c.request("GET", "/")
            c.wait(lambda: st.done or c.goaway is not None, 10)
        except OSError:
            pass
        expect(c.goaway is not None or c.closed or (st and st.status == 200),
               f"after {sent} {what}: connection neither usable nor closed ({outcome(c, st)})")
    state = ("GOAWAY " + err_name(c.goaway[1])) if c.goaway else ("closed" if c.closed else "usable")
    print(f"    ({sent} of {count} {what} sent in {dt:.2f} s{', then the send was cut' if cut else ''};"
          f" connection: {state}; {c.pings_acked} PING ACKs, {c.settings_acked} SETTINGS ACKs read)")
    c.close()
    survives(x, what)


@check("PING flood: 200,000 PINGs unread (CVE-2019-9512)")
def t_ping_flood(x):
    flood(x, lambda c, i: frame(PING, 0, 0, struct.pack(">Q", i)), 200_000, "PINGs")


@check("SETTINGS flood: 100,000 SETTINGS unread (CVE-2019-9515)")
def t_settings_flood(x):
    flood(x, lambda c, i: settings_frame([(S_ENABLE_PUSH, 0)]), 100_000, "SETTINGS")


@check("empty DATA flood: 200,000 zero-length DATA frames (CVE-2019-9518)")
def t_empty_data_flood(x):
    path = x.echo or "/"
    holder = {}

    def make(c, i):
        if "sid" not in holder:
            st = c.request("POST", path, end_stream=False)
            holder["sid"] = st.sid
        return frame(DATA, 0, holder["sid"])

    flood(x, make, 200_000, "empty DATA frames")


@check("WINDOW_UPDATE flood: 200,000 connection increments of 1")
def t_wu_flood(x):
    flood(x, lambda c, i: window_update(0, 1), 200_000, "WINDOW_UPDATEs of 1")


@check("CONTINUATION flood: 16 MiB of headers over 16,000 CONTINUATION frames (CVE-2024-27316)")
def t_continuation_flood(x):
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    sid = c.new_sid()
    c.streams[sid] = st = Stream(sid, 0)
    field = hpack_literal("x-flood", "v" * 1000)
    t0 = time.time()
    sent, cut = 0, False
    c.s.settimeout(5)
    try:
        c.send(frame(HEADERS, END_STREAM, sid, c.block(c.req_headers("GET", "/"))))
        for i in range(0, 16000, 500):
            c.send(b"".join(frame(CONTINUATION, 0, sid, field) for _ in range(500)))
            sent += 500
        c.send(frame(CONTINUATION, END_HEADERS, sid, field))
        sent += 1
    except (OSError, socket.timeout):
        cut = True
    c.s.settimeout(5)
    c.wait(lambda: st.done or c.goaway is not None, 10)
    print(f"    ({sent} CONTINUATION frames sent in {time.time() - t0:.2f} s"
          f"{', then the send was cut' if cut else ''}: {outcome(c, st)})")
    expect(st.status is None or st.status in (400, 413, 431),
           f"16 MiB of headers accepted: {outcome(c, st)}")
    expect(st.status in (400, 413, 431) or st.reset is not None or c.goaway is not None
           or c.closed or cut, f"no refusal: {outcome(c, st)}")
    c.close()
    survives(x, "the CONTINUATION flood")


@check("CONTINUATION flood: 200,000 empty CONTINUATION frames, other connections served")
def t_empty_continuation(x):
    holder = {}

    def make(c, i):
        if "sid" not in holder:
            sid = c.new_sid()
            c.streams[sid] = Stream(sid, 0)
            holder["sid"] = sid
            return frame(HEADERS, END_STREAM, sid, c.block(c.req_headers("GET", "/")))
        return frame(CONTINUATION, 0, holder["sid"])

    flood(x, make, 200_000, "empty CONTINUATION frames")


@check("HPACK bomb: one 4 KiB entry referenced 16,000 times (64 MiB decoded)")
def t_hpack_bomb(x):
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    base = hpack.Encoder().encode([(":method", "GET"), (":scheme", "http"), (":path", "/"),
                                   (":authority", c.authority)])
    block = base + hpack_literal("x-bomb", "b" * 4000, indexing=True) + b"\xbe" * 16000
    sid = c.new_sid()
    st = c.send_headers(sid, block, True)
    c.wait(lambda: st.done or c.goaway is not None, 10)
    expect(st.status != 200, f"the 64 MiB header list was accepted: {outcome(c, st)}")
    expect(st.status in (400, 413, 431) or st.reset is not None or c.goaway is not None or c.closed,
           f"no refusal: {outcome(c, st)}")
    print(f"    ({outcome(c, st)})")
    c.close()
    survives(x, "the HPACK bomb")


@check("HPACK: a dynamic table size update above SETTINGS_HEADER_TABLE_SIZE -> COMPRESSION_ERROR")
def t_hpack_table(x):
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    limit = c.peer.get(S_HEADER_TABLE_SIZE, 4096)
    block = hpack_int(limit + 1, 5, 0x20) + hpack.Encoder().encode(
        [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", c.authority)])
    st = c.send_headers(c.new_sid(), block, True)
    c.wait(lambda: st.done or c.goaway is not None, 5)
    expect(c.goaway is not None and c.goaway[1] == 9, f"{outcome(c, st)}")
    c.close()


@check("window overflow: connection WINDOW_UPDATE past 2^31-1 -> GOAWAY FLOW_CONTROL_ERROR")
def t_conn_window_overflow(x):
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    c.send(window_update(0, MAX_WINDOW))
    c.wait(lambda: c.goaway is not None, 5)
    expect(c.goaway is not None and c.goaway[1] == 3, outcome(c, None))
    c.close()
    survives(x, "the window overflow")


@check("window overflow: stream WINDOW_UPDATE past 2^31-1 -> RST_STREAM FLOW_CONTROL_ERROR", needs=("echo",))
def t_stream_window_overflow(x):
    # a request whose body is not finished keeps the stream open, with the server's send
    # window at 65,535 less what it sent: one increment of 2^31-1 takes it past the limit
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    st = c.request("POST", x.echo or "/", end_stream=False)
    c.send(window_update(st.sid, MAX_WINDOW))
    c.wait(lambda: st.done or c.goaway is not None, 5)
    expect(st.reset == 3 or (c.goaway is not None and c.goaway[1] == 3), outcome(c, st))
    c.close()


@check("SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1 -> GOAWAY FLOW_CONTROL_ERROR")
def t_settings_window(x):
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    c.send(settings_frame([(S_INITIAL_WINDOW_SIZE, MAX_WINDOW + 1)]))
    c.wait(lambda: c.goaway is not None, 5)
    expect(c.goaway is not None and c.goaway[1] == 3, outcome(c, None))
    c.close()


@check("DATA beyond the server's window -> FLOW_CONTROL_ERROR", needs=("echo",))
def t_data_overrun(x):
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    c.wait(lambda: False, 0.3)  # the server's connection WINDOW_UPDATE, if it sends one
    st = c.request("POST", x.echo, end_stream=False)
    win = min(st.send_window, c.conn_send_window)
    chunk = b"z" * min(16384, c.peer[S_MAX_FRAME_SIZE])
    total = win + len(chunk)
    out = []
    sent = 0
    while sent < total + 65536:
        out.append(frame(DATA, 0, st.sid, chunk))
        sent += len(chunk)
    try:
        c.send(b"".join(out))
    except OSError:
        pass
    c.wait(lambda: st.reset is not None or c.goaway is not None, 5)
    expect(st.reset == 3 or (c.goaway is not None and c.goaway[1] == 3),
           f"{sent} bytes into a {win}-byte window: {outcome(c, st)}")
    c.close()


@check("MAX_CONCURRENT_STREAMS is bounded and enforced", needs=("echo",))
def t_max_streams(x):
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    mcs = c.peer.get(S_MAX_CONCURRENT_STREAMS)
    expect(mcs is not None and mcs <= 1000, f"SETTINGS_MAX_CONCURRENT_STREAMS {mcs}")
    # open one more than allowed, each waiting on its request body
    blk_path = x.echo or "/"
    streams = [c.request("POST", blk_path, end_stream=False) for _ in range(mcs + 1)]
    c.wait(lambda: any(s.reset is not None for s in streams) or c.goaway is not None, 5)
    refused_ = [s for s in streams if s.reset in (7, 1)]
    expect(refused_ or (c.goaway is not None and c.goaway[1] == 1),
           f"{mcs + 1} streams open at once, none refused (RFC 9113 5.1.2)")
    c.close()


# ---- smuggling through h2-to-h1 rules: each request must be refused as malformed ----------

MALFORMED = [
    ("transfer-encoding: chunked", [("transfer-encoding", "chunked")]),
    ("connection: keep-alive", [("connection", "keep-alive")]),
    ("keep-alive header", [("keep-alive", "timeout=5")]),
    ("proxy-connection header", [("proxy-connection", "keep-alive")]),
    ("upgrade header", [("upgrade", "websocket")]),
    ("te: gzip", [("te", "gzip")]),
    ("CR in a value", [("x-a", "a\rb")]),
    ("LF in a value", [("x-a", "a\nTransfer-Encoding: chunked")]),
    ("NUL in a value", [("x-a", "a\x00b")]),
    ("CRLF in a value (request splitting)", [("x-a", "a\r\n\r\nGET /admin HTTP/1.1")]),
    ("space at the start of a value", [("x-a", " a")]),
    ("uppercase header name", [("X-Upper", "a")]),
    ("colon inside a name", [("x:a", "b")]),
    ("space in a name", [("x a", "b")]),
]

PSEUDO = [
    ("no :method", [(":scheme", "http"), (":path", "/"), (":authority", "A")]),
    ("no :path", [(":method", "GET"), (":scheme", "http"), (":authority", "A")]),
    ("no :scheme", [(":method", "GET"), (":path", "/"), (":authority", "A")]),
    ("two :path", [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":path", "/x"),
                   (":authority", "A")]),
    ("unknown pseudo-header :foo", [(":method", "GET"), (":scheme", "http"), (":path", "/"),
                                     (":foo", "bar"), (":authority", "A")]),
    ("pseudo-header after a regular header", [(":method", "GET"), (":scheme", "http"),
                                               ("x-a", "b"), (":path", "/"), (":authority", "A")]),
    ("empty :path", [(":method", "GET"), (":scheme", "http"), (":path", ""), (":authority", "A")]),
    ("response pseudo-header :status in a request", [(":method", "GET"), (":scheme", "http"),
                                                      (":path", "/"), (":status", "200"),
                                                      (":authority", "A")]),
    ("space in :path", [(":method", "GET"), (":scheme", "http"), (":path", "/ HTTP/1.1\r\nX: y"),
                        (":authority", "A")]),
]


def malformed_check(name, fields, pseudo):
    def run(x):
        c = x.conn()
        c.wait(lambda: c.peer_settings_seen, 5)
        hdrs = [(k, c.authority if v == "A" else v) for k, v in fields] if pseudo else \
            c.req_headers("GET", "/") + fields
        st = c.send_headers(c.new_sid(), hpack.Encoder().encode(hdrs), True)
        c.wait(lambda: st.done or c.goaway is not None, 5)
        expect(refused(c, st), f"{outcome(c, st)} (wanted 400, RST_STREAM or GOAWAY PROTOCOL_ERROR)")
        c.close()
    CHECKS.append((("malformed: " if not pseudo else "pseudo-headers: ") + name, run, ()))


for _n, _f in MALFORMED:
    malformed_check(_n, _f, False)
for _n, _f in PSEUDO:
    malformed_check(_n, _f, True)


@check("malformed: content-length disagrees with the DATA sent")
def t_cl_mismatch(x):
    c = x.conn()
    c.wait(lambda: c.peer_settings_seen, 5)
    st = c.request("POST", x.echo or "/", [("content-length", "10")], end_stream=False)
    c.send(frame(DATA, END_STREAM, st.sid, b"0123456789abcdef"))
    c.wait(lambda: st.done or c.goaway is not None, 5)
    expect(refused(c, st), f"{outcome(c, st)} (RFC 9113 8.1.1: malformed)")
    c.close()


@check("server still up after everything")
def t_final(x):
    survives(x, "all checks")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--h2c", help="HOST:PORT of the plain port (prior knowledge)")
    ap.add_argument("--tls", help="HOST:PORT of the TLS port (ALPN h2)")
    ap.add_argument("--echo", default="/echo")
    ap.add_argument("--big", default="")
    ap.add_argument("--trailers", default="")
    ap.add_argument("--no-upgrade", action="store_true")
    ap.add_argument("--no-h1", action="store_true")
    ap.add_argument("--pid", type=int)
    ap.add_argument("--only", default="", help="comma-separated substrings of check names")
    ap.add_argument("--skip", default="", help="comma-separated substrings of check names")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        for name, _, _ in CHECKS:
            print(name)
        return 0
    if not a.h2c:
        ap.error("--h2c HOST:PORT is required")
    x = Ctx(a)
    have = {"tls": bool(a.tls), "echo": bool(a.echo), "upgrade": not a.no_upgrade,
            "h1": not a.no_h1, "trailers": bool(a.trailers)}
    only = [s for s in a.only.split(",") if s]
    skip = [s for s in a.skip.split(",") if s]
    passed = failed = skipped = 0
    for name, fn, needs in CHECKS:
        if only and not any(s in name for s in only):
            continue
        if any(s in name for s in skip):
            print(f"  SKIP {name}: --skip")
            skipped += 1
            continue
        missing = [n for n in needs if not have[n]]
        if missing:
            print(f"  SKIP {name}: the server has no {', '.join(missing)}")
            skipped += 1
            continue
        t0 = time.time()
        try:
            fn(x)
            print(f"  PASS {name} ({time.time() - t0:.2f} s)")
            passed += 1
        except Skip as e:
            print(f"  SKIP {name}: {e}")
            skipped += 1
        except AssertionError as e:
            print(f"  FAIL {name}: {e}")
            failed += 1
        except Exception as e:  # noqa: BLE001 - a crash of the check is a failure, said why
            print(f"  FAIL {name}: {type(e).__name__}: {e}")
            failed += 1
        sys.stdout.flush()
    print(f"h2 client checks: {skipped} skipped")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
