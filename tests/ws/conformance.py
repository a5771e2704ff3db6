#!/usr/bin/env python3
"""WebSocket protocol conformance cases for an echo endpoint, in the spirit of the
Autobahn|Testsuite sections (framing, ping/pong, reserved bits, opcodes, fragmentation,
UTF-8, close handling, limits, compression). Our own cases, written from RFC 6455 and
RFC 7692; each states the outcome the RFCs require.

Only the Python standard library: a raw-socket client that can send any byte sequence,
valid or not.

    conformance.py HOST PORT [PATH] [--max-message BYTES] [-v] [-k SUBSTRING]

The server at PATH must echo every text and binary message unchanged. Prints one line
per case and a final "N passed, N failed" line; exits 1 if any case failed.
"""
import base64
import hashlib
import os
import socket
import struct
import sys
import time
import zlib

TIMEOUT = 5.0
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class Fail(Exception):
    pass


class Closed(Exception):
    """The server closed TCP while we waited for a frame."""


class Conn:
    def __init__(self, host, port, path, extensions=None, headers=None):
        self.sock = socket.create_connection((host, port), timeout=TIMEOUT)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        if extensions:
            lines.append(f"Sec-WebSocket-Extensions: {extensions}")
        lines += headers or []
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = self._read_until(b"\r\n\r\n")
        status_line, *hdrs = head.decode("latin-1").split("\r\n")
        self.status = int(status_line.split()[1])
        self.headers = {}
        for h in hdrs:
            if ":" in h:
                k, v = h.split(":", 1)
                self.headers[k.strip().lower()] = v.strip()
        if self.status == 101:
            want = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
            if self.headers.get("sec-websocket-accept") != want:
                raise Fail("bad Sec-WebSocket-Accept")
        self.pmd = None
        ext = self.headers.get("sec-websocket-extensions")
        if ext and ext.startswith("permessage-deflate"):
            params = [p.strip() for p in ext.split(";")[1:]]
            self.pmd = {p.split("=")[0]: (p.split("=")[1] if "=" in p else True) for p in params}
            self.inflater = zlib.decompressobj(-15)
            self.deflater = zlib.compressobj(6, zlib.DEFLATED, -15)

    def _read_until(self, marker):
        deadline = time.monotonic() + TIMEOUT
        while marker not in self.buf:
            if time.monotonic() > deadline:
                raise Fail("timeout reading response head")
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Closed()
            self.buf += chunk
        i = self.buf.index(marker) + len(marker)
        head, self.buf = self.buf[:i - len(marker)], self.buf[i:]
        return head

    def _read_exact(self, n):
        while len(self.buf) < n:
            try:
                chunk = self.sock.recv(max(65536, n - len(self.buf)))
            except ConnectionResetError:
                raise Closed()
            if not chunk:
                raise Closed()
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    # -- frames --------------------------------------------------------------------------
    @staticmethod
    def encode(op, payload=b"", fin=True, rsv=0, mask=True, length_override=None):
        b0 = (0x80 if fin else 0) | (rsv << 4) | op
        n = len(payload) if length_override is None else length_override
        m = 0x80 if mask else 0
        if n < 126:
            head = struct.pack("!BB", b0, m | n)
        elif n < 65536:
            head = struct.pack("!BBH", b0, m | 126, n)
        else:
            head = struct.pack("!BBQ", b0, m | 127, n)
        if not mask:
            return head + payload
        key = os.urandom(4)
        masked = bytes(b ^ key[i & 3] for i, b in enumerate(payload)) if len(payload) < 4096 \
            else _xor(payload, key)
        return head + key + masked

    def send(self, op, payload=b"", fin=True, rsv=0, mask=True, chop=None):
        data = self.encode(op, payload, fin, rsv, mask)
        self.send_raw(data, chop)

    def send_raw(self, data, chop=None):
        try:
            if chop:
                for i in range(0, len(data), chop):
                    self.sock.sendall(data[i:i + chop])
            else:
                self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may already have failed the connection

    def send_compressed(self, op, payload, split=None):
        c = self.deflater.compress(payload) + self.deflater.flush(zlib.Z_SYNC_FLUSH)
        assert c.endswith(b"\x00\x00\xff\xff")
        c = c[:-4]
        if self.pmd and "client_no_context_takeover" in self.pmd:
            self.deflater = zlib.compressobj(6, zlib.DEFLATED, -15)
        if split is None:
            self.send(op, c, rsv=4)
        else:
            self.send(op, c[:split], fin=False, rsv=4)
            self.send(0, c[split:])

    def recv_frame(self):
        b0, b1 = self._read_exact(2)
        if b1 & 0x80:
            raise Fail("server frame is masked")
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._read_exact(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read_exact(8))[0]
        return b0 >> 7, (b0 >> 4) & 7, b0 & 0xF, self._read_exact(n)

    def recv_message(self):
        """Next data message (control frames other than close are returned as they come)."""
        fin, rsv, op, data = self.recv_frame()
        if op >= 8:
            return op, data
        compressed = rsv & 4
        parts = [data]
        while not fin:
            fin, rsv2, op2, data = self.recv_frame()
            if op2 >= 8:
                raise Fail(f"control frame {op2} inside a message (test does not expect it)")
            if op2 != 0:
                raise Fail("expected a continuation frame")
            parts.append(data)
        data = b"".join(parts)
        if compressed:
            if self.pmd is None:
                raise Fail("RSV1 without permessage-deflate")
            data = self.inflater.decompress(data + b"\x00\x00\xff\xff")
            if "server_no_context_takeover" in self.pmd:
                self.inflater = zlib.decompressobj(-15)
        return op, data

    def expect_close(self, codes, reply=True):
        """Reads until the server's close frame; its code must be in codes (None = no code).
        Then answers and checks that the server closes TCP."""
        for _ in range(1000):
            try:
                fin, rsv, op, data = self.recv_frame()
            except Closed:
                raise Fail(f"TCP closed without a close frame (wanted {codes})")
            if op == 8:
                break
        else:
            raise Fail("no close frame")
        code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 else None
        if code not in codes:
            raise Fail(f"close code {code}, wanted {codes}")
        if reply:
            self.send(8, data[:2])
        self.expect_eof()
        return code

    def expect_eof(self):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                return
            except socket.timeout:
                break
            if not chunk:
                return
        raise Fail("server did not close TCP")

    def close_normally(self):
        self.send(8, struct.pack("!H", 1000))
        op, data = self.recv_message()
        while op != 8:
            op, data = self.recv_message()
        if data[:2] != struct.pack("!H", 1000):
            raise Fail(f"close echo {data!r}")
        self.expect_eof()

    def close(self):
        self.sock.close()


def _xor(payload, key):
    k = int.from_bytes(key * 2, "little")
    n = len(payload)
    pad = (-n) % 8
    words = memoryview(payload + b"\0" * pad).cast("Q")
    out = bytearray(len(words) * 8)
    o = memoryview(out).cast("Q")
    for i, w in enumerate(words):
        o[i] = w ^ k
    return bytes(out[:n])


# ---- cases -------------------------------------------------------------------------------

CASES = []


def case(section, text):
    def deco(fn):
        CASES.append((section, text, fn))
        return fn
    return deco


def echo(c, op, payload, **kw):
    c.send(op, payload, **kw)
    rop, data = c.recv_message()
    if rop != op or data != payload:
        raise Fail(f"echo mismatch: op {rop} len {len(data)} (sent op {op} len {len(payload)})")


# 1 framing
for n in (0, 125, 126, 127, 128, 65535, 65536, 300000):
    for op, kind in ((1, "text"), (2, "binary")):
        def _f(c, n=n, op=op):
            payload = (b"*" * n) if op == 1 else os.urandom(n)
            echo(c, op, payload)
            c.close_normally()
        case("1 framing", f"{kind} message of {n} bytes is echoed")(_f)


@case("1 framing", "a frame written 1 byte at a time is echoed")
def _(c):
    echo(c, 1, b"Hello, chopped world!", chop=1)
    c.close_normally()


@case("1 framing", "a 70000-byte frame written in 997-byte pieces is echoed")
def _(c):
    echo(c, 2, os.urandom(70000), chop=997)
    c.close_normally()


@case("1 framing", "unmasked client frame -> close 1002")
def _(c):
    c.send(1, b"not masked", mask=False)
    c.expect_close({1002})


@case("1 framing", "non-minimal 16-bit length -> close 1002")
def _(c):
    c.send_raw(bytes([0x81, 0xFE, 0, 5]) + b"\0\0\0\0" + b"hello")
    c.expect_close({1002})


# 2 ping/pong
@case("2 ping/pong", "ping without payload -> pong without payload")
def _(c):
    c.send(9)
    op, data = c.recv_message()
    if (op, data) != (10, b""):
        raise Fail(f"got {op} {data!r}")
    c.close_normally()


@case("2 ping/pong", "ping with 125-byte binary payload -> identical pong")
def _(c):
    p = bytes(range(125))
    c.send(9, p)
    if c.recv_message() != (10, p):
        raise Fail("pong payload differs")
    c.close_normally()


@case("2 ping/pong", "ping with 126-byte payload -> close 1002")
def _(c):
    c.send(9, b"x" * 126)
    c.expect_close({1002})


@case("2 ping/pong", "unsolicited pong is ignored")
def _(c):
    c.send(10, b"unsolicited")
    echo(c, 1, b"still here")
    c.close_normally()


@case("2 ping/pong", "10 pings -> 10 pongs in order")
def _(c):
    for i in range(10):
        c.send(9, b"ping %d" % i)
    for i in range(10):
        if c.recv_message() != (10, b"ping %d" % i):
            raise Fail(f"pong {i}")
    c.close_normally()


@case("2 ping/pong", "fragmented ping -> close 1002")
def _(c):
    c.send(9, b"frag", fin=False)
    c.send(0, b"ment")
    c.expect_close({1002})


@case("2 ping/pong", "ping written 1 byte at a time -> pong")
def _(c):
    c.send(9, b"slowly", chop=1)
    if c.recv_message() != (10, b"slowly"):
        raise Fail("pong")
    c.close_normally()


# 3 reserved bits
for rsv in (1, 2, 3, 4, 5, 6, 7):
    for op, kind in ((1, "text"), (2, "binary"), (9, "ping")):
        def _r(c, rsv=rsv, op=op):
            echo(c, 1, b"before")
            c.send(op, b"rsv", rsv=rsv)
            c.expect_close({1002})
        case("3 reserved bits", f"{kind} frame with RSV={rsv} (no extension) -> close 1002")(_r)

# 4 opcodes
for op in (3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF):
    def _o(c, op=op):
        echo(c, 1, b"before")
        c.send(op, b"reserved opcode")
        c.expect_close({1002})
    case("4 opcodes", f"reserved opcode {op:#x} -> close 1002")(_o)


# 5 fragmentation
@case("5 fragmentation", "text in 3 fragments is echoed as one message")
def _(c):
    c.send(1, b"frag", fin=False)
    c.send(0, b"men", fin=False)
    c.send(0, b"ted")
    if c.recv_message() != (1, b"fragmented"):
        raise Fail("reassembly")
    c.close_normally()


@case("5 fragmentation", "binary in 100 one-byte fragments is echoed")
def _(c):
    data = os.urandom(100)
    c.send(2, data[:1], fin=False)
    for i in range(1, 99):
        c.send(0, data[i:i + 1], fin=False)
    c.send(0, data[99:])
    if c.recv_message() != (2, data):
        raise Fail("reassembly")
    c.close_normally()


@case("5 fragmentation", "ping between fragments is answered before the message")
def _(c):
    c.send(1, b"fra", fin=False)
    c.send(9, b"in between")
    c.send(0, b"gment")
    if c.recv_message() != (10, b"in between"):
        raise Fail("pong first")
    if c.recv_message() != (1, b"fragment"):
        raise Fail("message")
    c.close_normally()


@case("5 fragmentation", "empty fragments are fine")
def _(c):
    c.send(1, b"", fin=False)
    c.send(0, b"", fin=False)
    c.send(0, b"x", fin=False)
    c.send(0, b"")
    if c.recv_message() != (1, b"x"):
        raise Fail("message")
    c.close_normally()


@case("5 fragmentation", "continuation without a started message -> close 1002")
def _(c):
    c.send(0, b"orphan")
    c.expect_close({1002})


@case("5 fragmentation", "continuation with FIN after a complete message -> close 1002")
def _(c):
    echo(c, 1, b"complete")
    c.send(0, b"orphan", fin=True)
    c.expect_close({1002})


@case("5 fragmentation", "new text message inside a fragmented one -> close 1002")
def _(c):
    c.send(1, b"first", fin=False)
    c.send(1, b"second")
    c.expect_close({1002})


@case("5 fragmentation", "fragmented close -> close 1002")
def _(c):
    c.send(8, struct.pack("!H", 1000), fin=False)
    c.expect_close({1002})


# 6 UTF-8
VALID_TEXTS = [
    "Hello-µ@ßöäüàá-UTF-8!!",
    "κόσμε",
    "\U0001F600 grinning face",
    "\u0080\u07ff\u0800\uffff\U00010000\U0010ffff",
    "\ud7ff\ue000",
]
for t in VALID_TEXTS:
    def _v(c, t=t):
        b = t.encode("utf-8")
        echo(c, 1, b)
        c.close_normally()
    case("6 UTF-8", f"valid text {t.encode('unicode_escape').decode()[:30]} is echoed")(_v)


@case("6 UTF-8", "valid text split into 1-byte fragments is echoed")
def _(c):
    b = "κόσμε\U0001F600".encode()
    c.send(1, b[:1], fin=False)
    for i in range(1, len(b) - 1):
        c.send(0, b[i:i + 1], fin=False)
    c.send(0, b[-1:])
    if c.recv_message() != (1, b):
        raise Fail("message")
    c.close_normally()


INVALID = [
    b"\x80", b"\xbf", b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xe0\x9f\xbf",
    b"\xf0\x80\x80\xaf", b"\xf0\x8f\xbf\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf",
    b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xfe", b"\xff", b"\xc2", b"\xe2\x82",
    b"\xf0\x9f\x98", b"ok\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited",
]
for bad in INVALID:
    def _i(c, bad=bad):
        c.send(1, bad)
        c.expect_close({1007})
    case("6 UTF-8", f"invalid text {bad.hex()} -> close 1007")(_i)


@case("6 UTF-8", "invalid bytes in the first fragment -> close 1007 before the message ends")
def _(c):
    c.send(1, b"abc\xed\xa0\x80", fin=False)
    c.expect_close({1007})  # fail fast: we never send the rest


@case("6 UTF-8", "invalid bytes at the start of a 100 kB text frame -> close 1007 before its end")
def _(c):
    data = Conn.encode(1, b"ok \xed\xa0\x80" + b"x" * 99994)
    c.send_raw(data[:200])  # header, mask and the first bytes only
    fin, rsv, op, payload = c.recv_frame()
    if op != 8 or payload[:2] != struct.pack("!H", 1007):
        raise Fail(f"got op {op} {payload[:2]!r}")
    c.send_raw(data[200:])  # finish the frame so the server can read our close reply
    c.send(8, payload[:2])
    c.expect_eof()


@case("6 UTF-8", "message ending inside a character -> close 1007")
def _(c):
    c.send(1, b"abc\xe2\x82", fin=False)
    c.send(0, b"")
    c.expect_close({1007})


# 7 close handling
@case("7 close", "close without payload -> close without payload")
def _(c):
    c.send(8)
    fin, rsv, op, data = c.recv_frame()
    if op != 8 or data != b"":
        raise Fail(f"got op {op} {data!r}")
    c.expect_eof()


for code in (1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999):
    def _c(c, code=code):
        c.send(8, struct.pack("!H", code) + b"reason")
        fin, rsv, op, data = c.recv_frame()
        if op != 8 or data[:2] != struct.pack("!H", code):
            raise Fail(f"got op {op} {data!r}")
        c.expect_eof()
    case("7 close", f"close {code} is echoed")(_c)

for code in (0, 999, 1004, 1005, 1006, 1016, 1100, 2000, 2999, 5000, 65535):
    def _b(c, code=code):
        c.send(8, struct.pack("!H", code))
        c.expect_close({1002}, reply=False)
    case("7 close", f"close with invalid code {code} -> close 1002")(_b)


@case("7 close", "close with 1-byte payload -> close 1002")
def _(c):
    c.send(8, b"\x03")
    c.expect_close({1002}, reply=False)


@case("7 close", "close with 123-byte reason is accepted")
def _(c):
    c.send(8, struct.pack("!H", 1000) + b"r" * 123)
    fin, rsv, op, data = c.recv_frame()
    if op != 8 or data[:2] != struct.pack("!H", 1000):
        raise Fail("close echo")
    c.expect_eof()


@case("7 close", "close reason not UTF-8 -> close 1007")
def _(c):
    c.send(8, struct.pack("!H", 1000) + b"\xce\xba\xe1\xbd")
    c.expect_close({1007}, reply=False)


@case("7 close", "data after the client's close is not echoed; TCP closes")
def _(c):
    c.send_raw(c.encode(8, struct.pack("!H", 1000)) + c.encode(1, b"after close"))
    fin, rsv, op, data = c.recv_frame()
    if op != 8:
        raise Fail(f"expected close, got op {op}")
    c.expect_eof()


@case("7 close", "close in the middle of a fragmented message is honoured")
def _(c):
    c.send(1, b"part", fin=False)
    c.send(8, struct.pack("!H", 1000))
    fin, rsv, op, data = c.recv_frame()
    if op != 8:
        raise Fail("expected close")
    c.expect_eof()


# 9 limits (the server's message limit is --max-message, 16 MiB by default)
@case("9 limits", "1 MiB text message is echoed")
def _(c):
    echo(c, 1, b"x" * (1 << 20))
    c.close_normally()


@case("9 limits", "4 MiB binary message in 64 KiB fragments is echoed")
def _(c):
    data = os.urandom(4 << 20)
    step = 65536
    c.send(2, data[:step], fin=False)
    for i in range(step, len(data) - step, step):
        c.send(0, data[i:i + step], fin=False)
    c.send(0, data[-step:])
    if c.recv_message() != (2, data):
        raise Fail("reassembly")
    c.close_normally()


@case("9 limits", "frame header announcing more than the limit -> close 1009")
def _(c):
    c.send_raw(Conn.encode(2, b"", length_override=ARGS["max"] + 1))
    c.expect_close({1009})


@case("9 limits", "message over the limit in acceptable fragments -> close 1009")
def _(c):
    step = 1 << 20
    chunk = b"\0" * step
    c.send(2, chunk, fin=False)
    for _ in range(ARGS["max"] // step):
        c.send(0, chunk, fin=False)
    c.send(0, chunk)
    c.expect_close({1009})


# 12/13 compression
def pmd_case(offer, check):
    def deco(fn):
        def run(c):
            ext = c.headers.get("sec-websocket-extensions")
            if not check(ext):
                raise Fail(f"negotiated {ext!r} for offer {offer!r}")
            fn(c)
        run.extensions = offer
        return run
    return deco


def _accepts(ext):
    return ext is not None and ext.startswith("permessage-deflate")


OFFERS = [
    ("permessage-deflate", _accepts),
    ("permessage-deflate; client_max_window_bits", _accepts),
    ("permessage-deflate; server_no_context_takeover", lambda e: _accepts(e) and "server_no_context_takeover" in e),
    ("permessage-deflate; client_no_context_takeover", _accepts),
    ("permessage-deflate; server_max_window_bits=9", lambda e: _accepts(e) and "server_max_window_bits=9" in e),
    ("permessage-deflate; server_max_window_bits=12; client_max_window_bits=10", lambda e: _accepts(e) and "server_max_window_bits=12" in e),
    ("permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=15", _accepts),
]
for offer, check in OFFERS:
    for size in (16, 1000, 65536, 300000):
        for kind in ("text", "random"):
            def body(c, size=size, kind=kind):
                for i in range(3):
                    data = (b"compressible text %d " % i * (size // 20 + 1))[:size] if kind == "text" \
                        else os.urandom(size)
                    c.send_compressed(2, data)
                    op, got = c.recv_message()
                    if (op, got) != (2, data):
                        raise Fail(f"echo {i} differs")
                c.close_normally()
            fn = pmd_case(offer, check)(body)
            case("12 compression", f"offer '{offer}': 3 x {size} bytes {kind} echoed")(fn)


@case("13 compression", "offer with an unknown parameter is declined")
def _(c):
    if c.headers.get("sec-websocket-extensions"):
        raise Fail("accepted")
    echo(c, 1, b"plain")
    c.close_normally()
_.extensions = "permessage-deflate; no_such_param"


@case("13 compression", "offer asking for an 8-bit server window is declined, next offer taken")
def _(c):
    ext = c.headers.get("sec-websocket-extensions", "")
    if not ext.startswith("permessage-deflate") or "=8" in ext:
        raise Fail(repr(ext))
    c.close_normally()
_.extensions = "permessage-deflate; server_max_window_bits=8, permessage-deflate"


@case("13 compression", "compressed message split over two frames is echoed")
def _(c):
    data = b"split compressed message " * 100
    c.send_compressed(1, data, split=7)
    if c.recv_message() != (1, data):
        raise Fail("echo")
    c.close_normally()
_.extensions = "permessage-deflate"


@case("13 compression", "compressed text with invalid UTF-8 -> close 1007")
def _(c):
    c.send_compressed(1, b"bad \xed\xa0\x80 text")
    c.expect_close({1007})
_.extensions = "permessage-deflate"


@case("13 compression", "RSV1 on a continuation frame -> close 1002")
def _(c):
    c.send(1, b"plain", fin=False)
    c.send(0, b"x", rsv=4)
    c.expect_close({1002})
_.extensions = "permessage-deflate"


@case("13 compression", "decompression bomb (64 MiB of zeros) -> close 1009")
def _(c):
    c.send_compressed(2, b"\0" * (64 << 20))
    c.expect_close({1009})
_.extensions = "permessage-deflate"


@case("13 compression", "RSV1 without negotiation -> close 1002")
def _(c):
    d = zlib.compressobj(6, zlib.DEFLATED, -15)
    p = (d.compress(b"hello") + d.flush(zlib.Z_SYNC_FLUSH))[:-4]
    c.send(1, p, rsv=4)
    c.expect_close({1002})


# handshake
def handshake_case(text, request, status, header=None):
    def run(args):
        s = socket.create_connection((args["host"], args["port"]), timeout=TIMEOUT)
        s.sendall(request.replace("PATH", args["path"]).encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        s.close()
        line = data.split(b"\r\n", 1)[0].decode("latin-1")
        got = int(line.split()[1]) if len(line.split()) > 1 else 0
        if got != status:
            raise Fail(f"status {got}, wanted {status}")
        if header and header.lower().encode() not in data.lower():
            raise Fail(f"missing {header}")
    run.raw = True
    case("0 handshake", text)(run)


H = "Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
K = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
handshake_case("version 8 -> 426 with Sec-WebSocket-Version: 13",
               f"GET PATH HTTP/1.1\r\n{H}{K}Sec-WebSocket-Version: 8\r\n\r\n", 426,
               "Sec-WebSocket-Version: 13")
handshake_case("no key -> 400", f"GET PATH HTTP/1.1\r\n{H}Sec-WebSocket-Version: 13\r\n\r\n", 400)
handshake_case("key of 8 bytes -> 400",
               f"GET PATH HTTP/1.1\r\n{H}Sec-WebSocket-Key: AAAAAAAAAAA=\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n", 400)
handshake_case("no Upgrade header -> 400",
               f"GET PATH HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n{K}"
               "Sec-WebSocket-Version: 13\r\n\r\n", 400)
handshake_case("POST -> 405", f"POST PATH HTTP/1.1\r\n{H}{K}Sec-WebSocket-Version: 13\r\n"
               "Content-Length: 0\r\n\r\n", 405)


def main():
    argv = sys.argv[1:]
    verbose = "-v" in argv
    only = None
    if "-k" in argv:
        i = argv.index("-k")
        only = argv[i + 1]
        del argv[i:i + 2]
    mx = 16 << 20
    if "--max-message" in argv:
        i = argv.index("--max-message")
        mx = int(argv[i + 1])
        del argv[i:i + 2]
    argv = [a for a in argv if a != "-v"]
    if len(argv) < 2:
        print(__doc__)
        return 2
    ARGS.update(host=argv[0], port=int(argv[1]), path=argv[2] if len(argv) > 2 else "/ws",
                max=mx)
    passed = failed = 0
    for section, text, fn in CASES:
        name = f"[{section}] {text}"
        if only and only not in name:
            continue
        t0 = time.monotonic()
        try:
            if getattr(fn, "raw", False):
                fn(ARGS)
            else:
                c = Conn(ARGS["host"], ARGS["port"], ARGS["path"],
                         extensions=getattr(fn, "extensions", None))
                try:
                    if c.status != 101:
                        raise Fail(f"handshake status {c.status}")
                    fn(c)
                finally:
                    c.close()
            passed += 1
            if verbose:
                print(f"PASS {name} ({time.monotonic() - t0:.2f}s)")
        except (Fail, Closed, OSError, AssertionError) as e:
            failed += 1
            print(f"FAIL {name}: {type(e).__name__} {e}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


ARGS = {}

if __name__ == "__main__":
    sys.exit(main())
