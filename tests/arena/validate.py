#!/usr/bin/env python3
"""Local validation of the HttpArena entry: what HttpArena's scripts/validate.sh checks for
the profiles tachy-arena subscribes to, plus the stricter cases its issue asks for.

    validate.py SERVER_CMD...      e.g. validate.py build/release/examples/tachy-arena

The command is started with --port 0 --tls-port 0 --cert C --key K --data DIR appended
(a fresh self-signed RSA-2048 certificate made with the openssl CLI, and a fresh data tree
from examples/httparena/gen_data.py with a random seed, so nothing can be prepared for
it); it must print "listening on http://H:P/" and "listening on https://H:Q/".

Checks: meta.json subscribes only to profiles HttpArena knows; every request shape of
baseline (which also covers latency-10k and latency-1m: HttpArena validates those paced
profiles with the baseline checks) / pipelined / json(-comp, -tls) / upload / 8gbit
(echo) / static(-tls) / async / echo-ws, random values, requests split at every byte
offset, upload sizes 0 B .. 20 MB (Content-Length and chunked), content types,
Accept-Encoding honoured only when sent, static sizes / variants / disk-change following
(<= 2 s), the TLS posture (TLS 1.3 negotiated, 1.0/1.1 and weak ciphers refused, AEAD
only, ALPN never names what the client did not offer, the given certificate served), the
WebSocket handshake, echo and close, and a plain GET /ws refused with 4xx; for the paced
profiles, 1,024 keep-alive connections each answered GET /baseline11?a=1&b=2 twice with an
idle pause between, none of them closed by the server.
HTTP/2 (the profiles baseline-h2, static-h2, baseline-h2c, json-h2c, when meta.json names
them): the command also gets --h2-port 0 --h2c-port 0 and must print "listening on
h2://H:R/" (TLS, ALPN h2: HttpArena's 8443) and "listening on h2c://H:S/" (cleartext HTTP/2
by prior knowledge ONLY: HttpArena's 8082, where HTTP/1.1 must not be answered). Checked
the way HttpArena's scripts/lib/validate/checks/http2.sh and static.sh do, with curl:
/baseline2?a=&b= sums (text/plain) over h2 and h2c, /static/* over h2 (content types, every
size, 404, a disk change followed), /json/{n}?m= over h2c, and the protocol on the wire.
While the server refuses those options (no HTTP/2 yet) or prints no such lines, these
checks are skipped with a SKIP line saying so, and the rest runs as before.
Prints one line per check and "N passed, M failed"; exits 1 when anything failed.
"""
import base64
import concurrent.futures
import gzip
import hashlib
import json
import os
import random
import re
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GEN = os.path.join(ROOT, "examples", "httparena", "gen_data.py")
STATIC = ["reset.css", "layout.css", "theme.css", "components.css", "utilities.css",
          "analytics.js", "helpers.js", "app.js", "vendor.js", "router.js", "header.html",
          "footer.html", "regular.woff2", "bold.woff2", "logo.svg", "icon-sprite.svg",
          "hero.webp", "thumb1.webp", "thumb2.webp", "manifest.json"]
TYPES = {".css": "text/css", ".js": "application/javascript", ".json": "application/json",
         ".html": "text/html", ".svg": "image/svg+xml", ".webp": "image/webp",
         ".woff2": "font/woff2"}

META = os.path.join(ROOT, "examples", "httparena", "meta.json")
# The profile names of HttpArena's scripts/lib/profiles.sh (PROFILES): its validate.sh refuses
# a meta.json that names anything else
ARENA_PROFILES = {
    "baseline", "pipelined", "limited-conn", "async", "latency-1m", "latency-10k", "json-comp",
    "json-tls", "8gbit", "static-tls", "async-db", "fortunes", "baseline-h2", "static-h2",
    "baseline-h2c", "json-h2c", "baseline-h3", "static-h3", "unary-grpc", "unary-grpc-tls",
    "gateway-64", "gateway-h3", "production-stack", "echo-ws", "echo-ws-pipeline",
    "echo-ws-limited"}

passed = 0
failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"  PASS {name}")
    else:
        failed += 1
        print(f"  FAIL {name}{': ' + detail if detail else ''}")
    sys.stdout.flush()
    return ok


class Conn:
    """One HTTP/1.1 connection (plain or TLS) speaking raw bytes."""

    def __init__(self, port, tls=None, timeout=30):
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.s = tls.wrap_socket(s, server_hostname="localhost") if tls else s
        self.buf = b""

    def send(self, data):
        self.s.sendall(data)

    def _fill(self):
        d = self.s.recv(262144)
        if not d:
            raise EOFError("connection closed")
        self.buf += d

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n:
            self._fill()
        d, self.buf = self.buf[:n], self.buf[n:]
        return d

    def response(self, head=False):
        """(status, {lower-name: value}, body)."""
        status = int(self._line().split(b" ")[1])
        hdrs = {}
        while True:
            line = self._line()
            if not line:
                break
            k, v = line.split(b":", 1)
            hdrs[k.strip().lower().decode()] = v.strip().decode()
        body = b""
        if head or status in (101, 204, 304) or 100 <= status < 200:
            return status, hdrs, body
        if hdrs.get("transfer-encoding", "").lower() == "chunked":
            while True:
                size = int(self._line().split(b";")[0], 16)
                if size == 0:
                    while self._line():
                        pass
                    break
                body += self._exact(size)
                self._exact(2)
        elif "content-length" in hdrs:
            body = self._exact(int(hdrs["content-length"]))
        else:
            try:
                while True:
                    self._fill()
            except (EOFError, OSError):
                pass
            body, self.buf = self.buf, b""
        return status, hdrs, body

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


def req(method, target, headers=None, body=None, chunked=False):
    h = {"Host": "localhost"}
    h.update(headers or {})
    data = b""
    if body is not None:
        if chunked:
            h["Transfer-Encoding"] = "chunked"
            step = max(1, len(body) // 7 + 1)
            for i in range(0, len(body), step):
                data += b"%x\r\n" % len(body[i:i + step]) + body[i:i + step] + b"\r\n"
            data += b"0\r\n\r\n"
        else:
            h["Content-Length"] = str(len(body))
            data = body
    head = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items())
    return head.encode() + b"\r\n" + data


def fetch(port, method, target, headers=None, body=None, chunked=False, tls=None):
    c = Conn(port, tls)
    try:
        c.send(req(method, target, headers, body, chunked))
        return c.response(head=method == "HEAD")
    finally:
        c.close()


def ctype_is(hdrs, want):
    v = hdrs.get("content-type", "").split(";")[0].strip().lower()
    norm = lambda x: x.replace("text/javascript", "application/javascript")
    return norm(v) == norm(want)


# ---- profiles ----------------------------------------------------------------------------

def baseline(port):
    print("[baseline]")
    s, h, b = fetch(port, "GET", "/baseline11?a=13&b=42")
    check("GET /baseline11?a=13&b=42 = 55", s == 200 and b == b"55", f"{s} {b!r}")
    check("GET /baseline11 Content-Type text/plain", ctype_is(h, "text/plain"), str(h))
    for _ in range(3):
        a, bb = random.randint(-10**6, 10**9), random.randint(0, 10**9)
        s, h, b = fetch(port, "GET", f"/baseline11?a={a}&b={bb}")
        check(f"GET random a={a} b={bb}", b == str(a + bb).encode(), repr(b))
    seen = set()
    for chunked in (False, True, False, True):
        n = random.randint(100, 999999)
        while n in seen:
            n += 1
        seen.add(n)
        s, h, b = fetch(port, "POST", "/baseline11?a=13&b=42", {"Content-Type": "text/plain"},
                        str(n).encode(), chunked)
        check(f"POST {'chunked ' if chunked else ''}body={n}", s == 200 and b == str(55 + n).encode()
              and ctype_is(h, "text/plain"), f"{s} {b!r} {h}")
    raw = (b"POST /baseline11?a=13&b=42 HTTP/1.1\r\nhost: localhost\r\ncontent-type: text/plain\r\n"
           b"content-length: 2\r\nconnection: close\r\n\r\n20")
    c = Conn(port)
    c.send(raw)
    s, h, b = c.response()
    c.close()
    check("POST with lower-cased field names", b == b"75", repr(b))


def fragmentation(port):
    """Every request shape split in two at every byte offset, 30 ms apart, batched."""
    print("[fragmentation at every byte offset]")
    shapes = [
        (b"GET /baseline11?a=13&b=42 HTTP/1.1\r\nHost: localhost\r\nUser-Agent: frag\r\n\r\n", b"55"),
        (b"POST /baseline11?a=13&b=42 HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n"
         b"Content-Length: 2\r\n\r\n20", b"75"),
        (b"POST /baseline11?a=13&b=42 HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
         b"\r\n1\r\n2\r\n1;ext=1\r\n0\r\n0\r\n\r\n", b"75"),
        (b"GET /pipeline HTTP/1.1\r\nHost: localhost\r\n\r\n", b"ok"),
    ]
    for raw, want in shapes:
        bad = []
        cuts = list(range(1, len(raw)))
        for i in range(0, len(cuts), 64):
            batch = cuts[i:i + 64]
            conns = [Conn(port, timeout=10) for _ in batch]
            for c, k in zip(conns, batch):
                c.send(raw[:k])
            time.sleep(0.03)
            for c, k in zip(conns, batch):
                c.send(raw[k:])
            for c, k in zip(conns, batch):
                try:
                    s, h, b = c.response()
                    if b != want:
                        bad.append((k, b))
                except Exception as e:  # noqa: BLE001 - reported as a failed offset
                    bad.append((k, repr(e)))
                c.close()
        first = raw.split(b"\r\n")[0].decode()
        check(f"{first!r} split at all {len(cuts)} offsets", not bad, str(bad[:3]))


def pipelined(port):
    print("[pipelined]")
    s, h, b = fetch(port, "GET", "/pipeline")
    check("GET /pipeline = ok, text/plain", b == b"ok" and ctype_is(h, "text/plain"), f"{b!r} {h}")
    c = Conn(port)
    c.send(req("GET", "/pipeline") * 16)
    bodies = [c.response()[2] for _ in range(16)]
    c.close()
    check("16 pipelined requests in one write -> 16 x ok", bodies == [b"ok"] * 16, str(bodies[:3]))


def json_checks(port, dataset, tls=None, label="json"):
    print(f"[{label}]")
    for _ in range(4):
        n, m = random.randint(1, 50), random.randint(2, 97)
        s, h, b = fetch(port, "GET", f"/json/{n}?m={m}", tls=tls)
        try:
            d = json.loads(b)
            items = d["items"]
            ok = d["count"] == n and len(items) == n
            for got, src in zip(items, dataset[:n]):
                want = dict(src)
                want["total"] = src["price"] * src["quantity"] * m
                ok = ok and got == want
        except (ValueError, KeyError, TypeError) as e:
            ok, b = False, repr(e).encode()
        check(f"GET /json/{n}?m={m} matches the dataset", s == 200 and ok, b[:200].decode("latin-1"))
    s, h, b = fetch(port, "GET", "/json/50?m=1", tls=tls)
    check("/json Content-Type application/json", ctype_is(h, "application/json"), str(h))
    check("no Content-Encoding without Accept-Encoding", "content-encoding" not in h, str(h))
    for ae in ("identity", "gzip;q=0", "br"):
        s, h, b = fetch(port, "GET", "/json/50?m=1", {"Accept-Encoding": ae}, tls=tls)
        check(f"Accept-Encoding: {ae} -> not gzip", h.get("content-encoding") != "gzip" and
              json.loads(b)["count"] == 50, str(h))
    for ae in ("gzip, br", "gzip", "deflate, gzip;q=0.5", "*"):
        n, m = random.randint(5, 50), random.randint(2, 89)
        s, h, b = fetch(port, "GET", f"/json/{n}?m={m}", {"Accept-Encoding": ae}, tls=tls)
        ok = h.get("content-encoding") == "gzip"
        try:
            d = json.loads(gzip.decompress(b)) if ok else {}
            ok = ok and d["count"] == n and all(
                it["total"] == src["price"] * src["quantity"] * m for it, src in zip(d["items"], dataset))
        except (OSError, ValueError, KeyError):
            ok = False
        check(f"Accept-Encoding: {ae} -> gzip body decodes to /json/{n}?m={m}", ok, str(h))


def upload(port):
    print("[upload]")
    sizes = [0, 1, 17, random.randint(30, 60), 500 * 1024, 2 << 20, 10 << 20, 20 << 20]
    for size in sizes:
        body = os.urandom(size)
        for chunked in (False, True):
            if chunked and size == 0:
                continue
            s, h, b = fetch(port, "POST", "/upload", {"Content-Type": "application/octet-stream"},
                            body, chunked)
            check(f"POST /upload {size} B{' chunked' if chunked else ''} -> {size}",
                  s == 200 and b == str(size).encode(), f"{s} {b[:40]!r}")


def echo(port, tls):
    print("[8gbit: POST /echo over TLS]")
    for size, chunked in ((1, False), (1024, False), (10240, False), (102400, False),
                          (10240, True), (102400, True), (1 << 20, True)):
        body = os.urandom(size)
        s, h, b = fetch(port, "POST", "/echo", {"Content-Type": "application/octet-stream"},
                        body, chunked, tls=tls)
        check(f"POST /echo {size} B{' chunked' if chunked else ''} echoed byte for byte",
              s == 200 and b == body, f"{s} got {len(b)} B")
    s, h, b = fetch(port, "POST", "/echo", {}, b"", tls=tls)
    check("POST /echo empty body -> 200, empty", s == 200 and b == b"", f"{s} {b!r}")


def static(port, data, tls=None, label="static"):
    print(f"[{label}]")
    sdir = os.path.join(data, "static")
    bad = []
    for name in STATIC:
        want = open(os.path.join(sdir, name), "rb").read()
        s, h, b = fetch(port, "GET", f"/static/{name}", tls=tls)
        if s != 200 or b != want or "content-encoding" in h:
            bad.append((name, s, len(b), len(want)))
        ext = os.path.splitext(name)[1]
        if not ctype_is(h, TYPES[ext]):
            bad.append((name, h.get("content-type")))
    check("20 files: identity bytes, sizes and content types", not bad, str(bad[:3]))
    bad = []
    cases = [("gzip", ".gz"), ("br", ".br"), ("br;q=1, gzip;q=0.8", ".br"),
             ("br;q=0, gzip", ".gz"), ("identity", "")]
    for name in STATIC:
        for ae, suffix in cases:
            path = os.path.join(sdir, name + suffix)
            if not os.path.exists(path):
                path, suffix = os.path.join(sdir, name), ""
                if ae.startswith("br") and "gzip" in ae and os.path.exists(os.path.join(sdir, name + ".gz")):
                    path, suffix = os.path.join(sdir, name + ".gz"), ".gz"
            want = open(path, "rb").read()
            s, h, b = fetch(port, "GET", f"/static/{name}", {"Accept-Encoding": ae}, tls=tls)
            enc = {"": None, ".gz": "gzip", ".br": "br"}[suffix]
            if b != want or h.get("content-encoding") != enc:
                bad.append((name, ae, h.get("content-encoding"), len(b), len(want)))
    check("precompressed variants chosen by Accept-Encoding (.br, .gz, q=0, identity)", not bad,
          str(bad[:3]))
    s, h, b = fetch(port, "HEAD", "/static/app.js", tls=tls)
    check("HEAD /static/app.js: Content-length of GET, no body",
          s == 200 and h.get("content-length") == str(os.path.getsize(os.path.join(sdir, "app.js"))),
          str(h))
    s, h, b = fetch(port, "GET", "/static/nonexistent.txt", tls=tls)
    check("GET /static/nonexistent.txt -> 404", s == 404, str(s))
    for t in ("/static/../dataset.json", "/static/%2e%2e/dataset.json", "/static/.hidden",
              "/static/%2e%2e%2fdataset.json"):
        s, h, b = fetch(port, "GET", t, tls=tls)
        check(f"GET {t} -> 404 (no way out of static/)", s == 404, f"{s} {b[:60]!r}")
    s, h, b = fetch(port, "POST", "/static/app.js", {}, b"x", tls=tls)
    check("POST /static/app.js -> 405", s == 405, str(s))


def staleness(port, data, target, ae, tls=None):
    """Replaces target (and its .br/.gz) by same-length random bytes; the server must serve
    the new bytes within 2 s, then the original again within 2 s."""
    sdir = os.path.join(data, "static")
    base = os.path.join(sdir, target)
    files = [base] + [base + s for s in (".br", ".gz") if os.path.exists(base + s)]
    served = lambda: hashlib.sha256(fetch(port, "GET", f"/static/{target}",
                                          {"Accept-Encoding": ae}, tls=tls)[2]).hexdigest()
    before = served()
    backups = []
    for f in files:
        b = f + ".bak"
        shutil.copy2(f, b)
        backups.append((f, b))
        tmp = f + ".new"
        with open(tmp, "wb") as o:
            o.write(os.urandom(os.path.getsize(f)))
        os.replace(tmp, f)
    t0 = time.monotonic()
    while served() == before and time.monotonic() - t0 < 3:
        time.sleep(0.05)
    took = time.monotonic() - t0
    for f, b in backups:
        os.replace(b, f)
    t1 = time.monotonic()
    while served() != before and time.monotonic() - t1 < 3:
        time.sleep(0.05)
    back = time.monotonic() - t1
    check(f"{target} (Accept-Encoding: {ae}) replaced on disk: new bytes in {took:.2f} s, "
          f"original back in {back:.2f} s (limit 2 s)", took <= 2 and back <= 2)


def tree_threads(pid):
    """Threads of process pid and of every descendant (a launcher script's child too)."""
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            total += len(os.listdir(f"/proc/{p}/task"))
        except OSError:
            pass
        todo.extend(kids.get(p, []))
    return total


def delay(port, pid):
    print("[async: /delay]")
    def timed(ms):
        t = time.monotonic()
        s, h, b = fetch(port, "GET", f"/delay/{ms}")
        return s, h, b, time.monotonic() - t
    ms = random.randint(10, 90)
    s, h, b, t = timed(ms)
    check(f"GET /delay/{ms}: 200, body {ms}, waited >= 0.9x ({t * 1000:.1f} ms), text/plain",
          s == 200 and b == str(ms).encode() and t >= ms / 1000 * 0.9 and ctype_is(h, "text/plain"),
          f"{s} {b!r} {t}")
    s, h, b, t = timed(0)
    check("GET /delay/0 -> 0", s == 200 and b == b"0", f"{s} {b!r}")
    _, _, _, t10 = timed(10)
    _, _, _, t500 = timed(500)
    check(f"/delay/500 waits ~490 ms longer than /delay/10 ({t10:.3f} s vs {t500:.3f} s)",
          0.45 <= t500 and t500 - t10 >= 0.3 and t10 <= 2.0)
    n = 32
    wants = [100 + (i * 13) % 400 for i in range(1, n + 1)]
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        res = list(pool.map(timed, wants))
    wall = time.monotonic() - t0
    ok = all(r[0] == 200 and r[2] == str(w).encode() and r[3] >= w / 1000 * 0.9
             for r, w in zip(res, wants))
    check(f"32 overlapping requests, 32 different delays, each its own ({wall:.2f} s wall, "
          f"sum {sum(wants) / 1000:.1f} s)", ok and wall < 2.0)
    # No thread per waiting request: 200 connections wait 1.5 s each at once.
    before = tree_threads(pid)
    socks = []
    for _ in range(200):
        c = socket.create_connection(("127.0.0.1", port), timeout=10)
        c.sendall(b"GET /delay/1500 HTTP/1.1\r\nHost: a\r\n\r\n")
        socks.append(c)
    time.sleep(0.7)
    during = tree_threads(pid)
    answered = 0
    for c in socks:
        got = b""
        try:
            while b"\r\n\r\n" not in got:
                chunk = c.recv(4096)
                if not chunk:
                    break
                got += chunk
        except OSError:
            pass
        answered += got.startswith(b"HTTP/1.1 200")
        c.close()
    check(f"200 waiting /delay requests hold no thread each (threads {before} -> {during}), "
          f"all answered ({answered})", during - before < 40 and answered == 200)


def tls_posture(tls_port, cert):
    print("[TLS posture]")
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(["http/1.1"])
    with socket.create_connection(("127.0.0.1", tls_port)) as raw:
        with ctx.wrap_socket(raw, server_hostname="localhost") as s:
            version, cipher, alpn = s.version(), s.cipher()[0], s.selected_alpn_protocol()
            der = s.getpeercert(binary_form=True)
    want_der = ssl.PEM_cert_to_DER_cert(open(cert).read())
    check("serves the given certificate", der == want_der)
    check(f"negotiates TLS 1.3 ({version})", version == "TLSv1.3")
    check(f"TLS 1.3 AEAD cipher ({cipher})", cipher in ("TLS_AES_128_GCM_SHA256",
                                                        "TLS_AES_256_GCM_SHA384",
                                                        "TLS_CHACHA20_POLY1305_SHA256"))
    check(f"ALPN http/1.1 offered -> {alpn}", alpn in (None, "http/1.1"))
    ctx2 = ssl.create_default_context()
    ctx2.check_hostname = False
    ctx2.verify_mode = ssl.CERT_NONE
    ctx2.set_alpn_protocols(["h2"])
    with socket.create_connection(("127.0.0.1", tls_port)) as raw:
        with ctx2.wrap_socket(raw, server_hostname="localhost") as s:
            alpn2 = s.selected_alpn_protocol()
    check(f"ALPN only h2 offered -> not h2 ({alpn2})", alpn2 is None)
    ctx3 = ssl.create_default_context()
    ctx3.check_hostname = False
    ctx3.verify_mode = ssl.CERT_NONE
    ctx3.maximum_version = ssl.TLSVersion.TLSv1_2
    with socket.create_connection(("127.0.0.1", tls_port)) as raw:
        with ctx3.wrap_socket(raw, server_hostname="localhost") as s:
            c12 = s.cipher()[0]
    check(f"TLS 1.2 client gets an AEAD suite ({c12})", "GCM" in c12 or "CHACHA20" in c12)

    def accepts(flag, cipher):
        args = ["openssl", "s_client", "-connect", f"127.0.0.1:{tls_port}", flag]
        if cipher:
            args += ["-cipher", cipher]
        try:
            out = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True,
                                 timeout=10).stdout.decode("latin-1")
        except subprocess.TimeoutExpired:
            return False
        return re.search(r"^New, (TLSv1|SSLv3)", out, re.M) is not None

    helptext = subprocess.run(["openssl", "s_client", "-help"], capture_output=True).stderr.decode()
    for proto in ("tls1", "tls1_1"):
        if f"-{proto} " not in helptext:
            print(f"  NOTE this openssl cannot offer {proto}; not probed")
            continue
        check(f"refuses {proto}", not accepts(f"-{proto}", "ALL:@SECLEVEL=0"))
    weak = [f for f in ("NULL", "aNULL", "EXPORT", "RC4", "DES", "3DES", "AES128-SHA")
            if accepts("-tls1_2", f + ":@SECLEVEL=0")]
    check("refuses NULL, aNULL, EXPORT, RC4, DES, 3DES and CBC suites on TLS 1.2", not weak, str(weak))


def ws_frame(opcode, payload, fin=True, mask=True):
    b0 = (0x80 if fin else 0) | opcode
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", b0, (0x80 if mask else 0) | n)
    elif n < 65536:
        head = struct.pack("!BBH", b0, (0x80 if mask else 0) | 126, n)
    else:
        head = struct.pack("!BBQ", b0, (0x80 if mask else 0) | 127, n)
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(c ^ key[i % 4] for i, c in enumerate(payload))


def ws_read(c):
    b0, b1 = c._exact(2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack("!H", c._exact(2))[0]
    elif n == 127:
        n = struct.unpack("!Q", c._exact(8))[0]
    if b1 & 0x80:
        key = c._exact(4)
        data = bytes(x ^ key[i % 4] for i, x in enumerate(c._exact(n)))
    else:
        data = c._exact(n)
    return b0 & 0x0F, bool(b0 & 0x80), data


def websocket(port):
    print("[echo-ws]")
    key = base64.b64encode(os.urandom(16)).decode()
    c = Conn(port, timeout=10)
    c.send(req("GET", "/ws", {"Upgrade": "websocket", "Connection": "Upgrade",
                              "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": "13"}))
    s, h, b = c.response()
    accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
                                           .encode()).digest()).decode()
    check("handshake: 101 with the right Sec-WebSocket-Accept",
          s == 101 and h.get("sec-websocket-accept") == accept, f"{s} {h}")
    bad = []
    for opcode, payload in ((1, b"hello"), (1, b""), (2, os.urandom(125)), (2, os.urandom(126)),
                            (1, ("x" * 70000).encode()), (2, os.urandom(1 << 20)),
                            (1, "r\u00e9sum\u00e9 \u2713".encode())):
        c.send(ws_frame(opcode, payload))
        op, fin, data = ws_read(c)
        if (op, fin, data) != (opcode, True, payload):
            bad.append((opcode, len(payload), op, len(data)))
    check("echo: text and binary, 0 B .. 1 MiB, UTF-8", not bad, str(bad))
    c.send(ws_frame(1, b"frag", fin=False) + ws_frame(0, b"mented"))
    op, fin, data = ws_read(c)
    check("a fragmented message is echoed whole", (op, data) == (1, b"fragmented"), repr(data))
    c.send(ws_frame(9, b"ping!"))
    op, fin, data = ws_read(c)
    check("ping answered with pong", (op, data) == (10, b"ping!"), f"{op} {data!r}")
    c.send(ws_frame(8, struct.pack("!H", 1000) + b"bye"))
    op, fin, data = ws_read(c)
    check("close 1000 echoed", op == 8 and data[:2] == struct.pack("!H", 1000), f"{op} {data!r}")
    try:
        rest = c.s.recv(10)
    except OSError:
        rest = b""
    check("connection closed after the close handshake", rest == b"", repr(rest))
    c.close()
    # 16 messages in one write (the echo-ws-pipeline shape)
    c = Conn(port, timeout=10)
    c.send(req("GET", "/ws", {"Upgrade": "websocket", "Connection": "Upgrade",
                              "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": "13"}))
    c.response()
    msgs = [os.urandom(random.randint(1, 64)) for _ in range(16)]
    c.send(b"".join(ws_frame(2, m) for m in msgs))
    got = [ws_read(c)[2] for _ in range(16)]
    check("16 pipelined messages echoed in order", got == msgs)
    c.close()
    s, h, b = fetch(port, "GET", "/ws")
    check(f"plain GET /ws refused with 4xx ({s})", 400 <= s < 500)


H2_PROFILES = ("baseline-h2", "static-h2", "baseline-h2c", "json-h2c")


def curl(url, *args, out_headers=False):
    """(status, http_version, {lower-name: value}, body bytes) of one curl request."""
    with tempfile.NamedTemporaryFile() as hf, tempfile.NamedTemporaryFile() as bf:
        r = subprocess.run(["curl", "-s", "--max-time", "30", "-D", hf.name, "-o", bf.name,
                            "-w", "%{http_code} %{http_version}", *args, url],
                           capture_output=True, text=True)
        code, _, ver = r.stdout.strip().partition(" ")
        hdrs = {}
        for line in open(hf.name, "rb").read().decode("latin-1").splitlines():
            if ":" in line and not line.startswith("HTTP/"):
                k, v = line.split(":", 1)
                hdrs[k.strip().lower()] = v.strip()
        body = open(bf.name, "rb").read()
    return int(code or 0), ver, hdrs, body


def h2_profiles(tests, h2_port, h2c_port, data, dataset):
    """HttpArena's HTTP/2 profiles, as its validate.sh checks them (checks/http2.sh,
    checks/static.sh), on the entry's h2 (TLS) and h2c (prior knowledge only) ports."""
    h2 = f"https://127.0.0.1:{h2_port}"
    h2c = f"http://127.0.0.1:{h2c_port}"
    tls = ("-k", "--http2")
    pk = ("--http2-prior-knowledge",)

    def sums(base, opts, label):
        """/baseline2's sums over HTTP/2 (label: h2 or h2c), and its Content-Type."""
        for a_, b_ in ((13, 42), (random.randint(100, 999), random.randint(100, 999))):
            s, v, h, b = curl(f"{base}/baseline2?a={a_}&b={b_}", *opts)
            check(f"GET /baseline2?a={a_}&b={b_} over {label} = {a_ + b_}",
                  s == 200 and v == "2" and b == str(a_ + b_).encode(), f"{s} HTTP/{v} {b[:40]!r}")
        check(f"/baseline2 Content-Type text/plain ({label})", ctype_is(h, "text/plain"), str(h))

    if "baseline-h2" in tests:
        print("[baseline-h2: TLS, ALPN h2]")
        s, v, h, b = curl(f"{h2}/baseline2?a=1&b=1", *tls)
        check(f"HTTP/2 negotiated (HTTP/{v})", v == "2")
        sums(h2, tls, "h2")
    if "static-h2" in tests:
        print("[static-h2: TLS, ALPN h2]")
        for name in ("reset.css", "app.js", "manifest.json"):
            s, v, h, b = curl(f"{h2}/static/{name}", *tls)
            want = TYPES[os.path.splitext(name)[1]]
            check(f"GET /static/{name} over h2: {want}", s == 200 and v == "2" and ctype_is(h, want),
                  f"{s} HTTP/{v} {h.get('content-type')}")
        bad = []
        for name in STATIC:
            s, v, h, b = curl(f"{h2}/static/{name}", *tls)
            disk = open(os.path.join(data, "static", name), "rb").read()
            if s != 200 or v != "2" or b != disk:
                bad.append(f"{name}: {s} HTTP/{v} {len(b)} bytes, {len(disk)} on disk")
        check(f"all {len(STATIC)} static files over h2 byte for byte", not bad, "; ".join(bad[:3]))
        s, v, h, b = curl(f"{h2}/static/nonexistent.txt", *tls)
        check(f"GET /static/nonexistent.txt over h2 -> 404 ({s})", s == 404)
        path = os.path.join(data, "static", "theme.css")
        new = b"/* changed " + os.urandom(8).hex().encode() + b" */\n" + os.urandom(100).hex().encode()
        with open(path, "wb") as f:
            f.write(new)
        end, got = time.time() + 2.5, b""
        while time.time() < end:
            s, v, h, got = curl(f"{h2}/static/theme.css", *tls)
            if got == new:
                break
            time.sleep(0.2)
        check("static-h2: a file changed on disk is served changed within 2 s", got == new)
    if "baseline-h2c" in tests:
        print("[baseline-h2c: cleartext, prior knowledge]")
        s, v, h, b = curl(f"{h2c}/baseline2?a=1&b=1", *pk)
        check(f"HTTP/2 cleartext by prior knowledge (HTTP/{v})", v == "2")
        s, v, h, b = curl(f"{h2c}/baseline2?a=1&b=1", "--http1.1")
        check(f"the h2c port does not answer HTTP/1.1 with 200 (got {s})", s != 200)
        sums(h2c, pk, "h2c")
    if "json-h2c" in tests:
        print("[json-h2c: cleartext, prior knowledge]")
        s, v, h, b = curl(f"{h2c}/json/1?m=1", *pk)
        check(f"/json over HTTP/2 cleartext (HTTP/{v})", v == "2")
        check("/json Content-Type application/json (h2c)", ctype_is(h, "application/json"), str(h))
        for n, m in ((12, 3), (22, 7), (random.randint(1, 50), random.randint(2, 97))):
            s, v, h, b = curl(f"{h2c}/json/{n}?m={m}", *pk)
            try:
                d = json.loads(b)
                ok = d["count"] == n and len(d["items"]) == n
                for got, src in zip(d["items"], dataset[:n]):
                    want = dict(src)
                    want["total"] = src["price"] * src["quantity"] * m
                    ok = ok and got == want
            except (ValueError, KeyError, TypeError) as e:
                ok, b = False, repr(e).encode()
            check(f"GET /json/{n}?m={m} over h2c matches the dataset", s == 200 and v == "2" and ok,
                  b[:200].decode("latin-1"))


def launch(cmd, want):
    """Starts the server and collects its "listening on SCHEME://H:P/" lines: returns
    (proc, {scheme: port}) once every scheme in `want` is there, the process exits, or
    60 s pass; the h2 / h2c lines are awaited at most 2 s after the HTTP/1.1 ones."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    ports, lines = {}, []

    def reader():
        for line in proc.stdout:
            lines.append(line)
    threading.Thread(target=reader, daemon=True).start()
    end, h1_at = time.time() + 60, None
    while time.time() < end and proc.poll() is None:
        for line in lines[:]:
            m = re.search(r"listening on (https?|h2c?)://[^:]+:(\d+)/", line)
            if m:
                ports[m.group(1)] = int(m.group(2))
        if all(w in ports for w in want):
            break
        if "http" in ports and "https" in ports:
            h1_at = h1_at or time.time()
            if time.time() - h1_at > 2:
                break
        time.sleep(0.05)
    return proc, ports


def meta_profiles():
    print("[meta.json]")
    tests = json.load(open(META))["tests"]
    unknown = [t for t in tests if t not in ARENA_PROFILES]
    check("meta.json names only HttpArena profiles", not unknown, f"unknown: {unknown}")
    return tests


def paced_connections(port, n=1024):
    """latency-10k / latency-1m hold 1,024 keep-alive connections and pace GET /baseline11 over
    them: each must be answered and stay open between its requests (a server that caps idle
    connections, as the JDK's 200 does, closes most of them after every response)."""
    print(f"[latency-10k / latency-1m: {n} held connections]")
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 256:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 1024), hard))
    conns, bad, closed = [], 0, 0
    try:
        for _ in range(n):
            conns.append(Conn(port, timeout=10))
        for rnd in range(2):
            for c in conns:
                c.send(b"GET /baseline11?a=1&b=2 HTTP/1.1\r\nHost: localhost\r\n\r\n")
            for c in conns:
                try:
                    st, h, b = c.response()
                    bad += not (st == 200 and b == b"3")
                except (EOFError, OSError):
                    closed += 1
            time.sleep(0.5)  # idle between two requests of a connection, as a paced client is
        for c in conns:  # closed by the server while idle?
            c.s.setblocking(False)
            try:
                closed += c.s.recv(1) == b""
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
    finally:
        for c in conns:
            c.close()
    check(f"{n} connections x 2 paced GET /baseline11?a=1&b=2 = 3", bad == 0 and len(conns) == n,
          f"{bad} wrong answers")
    check(f"none of the {n} keep-alive connections closed by the server", closed == 0, f"{closed} closed")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    cmd = sys.argv[1:]
    tmp = tempfile.mkdtemp(prefix="arena-validate-")
    proc = None
    try:
        data = os.path.join(tmp, "data")
        subprocess.run([sys.executable, GEN, data, "--seed", str(random.randint(1, 10**9))],
                       check=True)
        cert, key = os.path.join(tmp, "server.crt"), os.path.join(tmp, "server.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                        "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                       check=True, capture_output=True)
        base = cmd + ["--port", "0", "--tls-port", "0", "--cert", cert, "--key", key, "--data", data]
        subscribed = json.load(open(META))["tests"]
        want_h2 = [p for p in H2_PROFILES if p in subscribed]
        no_h2 = None
        if want_h2:
            proc, ports = launch(base + ["--h2-port", "0", "--h2c-port", "0"],
                                 ("http", "https", "h2", "h2c"))
            if proc.poll() is not None:  # refused the options: no HTTP/2 in this server yet
                no_h2 = "the server refused --h2-port/--h2c-port"
                proc, ports = launch(base, ("http", "https"))
            elif "h2" not in ports or "h2c" not in ports:
                no_h2 = "the server printed no 'listening on h2://' and 'h2c://' lines"
        else:
            proc, ports = launch(base, ("http", "https"))
        if proc.poll() is None and ("http" not in ports or "https" not in ports):
            proc.kill()
        port, tls_port = ports.get("http"), ports.get("https")
        if port is None or tls_port is None:
            check("server started and printed both listening lines", False)
            return 1
        tls = ssl.create_default_context()
        tls.check_hostname = False
        tls.verify_mode = ssl.CERT_NONE
        tls.set_alpn_protocols(["http/1.1"])
        dataset = json.load(open(os.path.join(data, "dataset.json")))
        t0 = time.monotonic()
        tests = meta_profiles()
        baseline(port)
        if "latency-10k" in tests or "latency-1m" in tests:
            paced_connections(port)
        fragmentation(port)
        pipelined(port)
        json_checks(port, dataset)
        json_checks(tls_port, dataset, tls, "json-tls")
        upload(port)
        echo(tls_port, tls)
        static(port, data)
        static(tls_port, data, tls, "static-tls")
        print("[static: disk changes]")
        staleness(port, data, "hero.webp", "identity")
        staleness(tls_port, data, "app.js", "br;q=1, gzip;q=0.8", tls)
        staleness(port, data, "reset.css", "gzip")
        delay(port, proc.pid)
        tls_posture(tls_port, cert)
        websocket(port)
        if want_h2 and no_h2:
            print(f"[HTTP/2] SKIP {', '.join(want_h2)}: {no_h2} - it has no HTTP/2 yet, so these "
                  "profiles are not checked (meta.json subscribes to them: do not submit it so)")
        elif want_h2:
            h2_profiles(tests, ports["h2"], ports["h2c"], data, dataset)
        check("server still running after everything", proc.poll() is None)
        print(f"(validation took {time.monotonic() - t0:.1f} s)")
    finally:
        if proc and proc.poll() is None:
            proc.terminate()
            try:
                rc = proc.wait(15)
                check(f"SIGTERM -> clean exit (status {rc})", rc == 0)
            except subprocess.TimeoutExpired:
                proc.kill()
                check("SIGTERM -> exit within 15 s", False)
        shutil.rmtree(tmp, ignore_errors=True)
        print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
