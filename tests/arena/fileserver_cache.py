#!/usr/bin/env python3
"""tachy-fileserver's open-file cache follows the disk: every kind of change to a file
already cached is served within 1 s (plus a request), and cached answers are the same
bytes and headers as uncached ones.

    fileserver_cache.py PATH/TO/tachy-fileserver

Prints one line per check and "N passed, M failed".
"""
import http.client
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    passed += ok
    failed += not ok
    print(f"  {'PASS' if ok else 'FAIL'} {name}{'' if ok or not detail else ': ' + detail}")


def get(port, path, method="GET"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(method, path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def wait_for(port, path, pred, limit=2.0):
    """Seconds until pred(status, body) holds (polling every 20 ms), or None after limit."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        s, h, b = get(port, path)
        if pred(s, b):
            return time.monotonic() - t0
        time.sleep(0.02)
    return None


def main():
    exe = sys.argv[1]
    root = tempfile.mkdtemp(prefix="fscache-")
    proc = None
    try:
        small = os.path.join(root, "small.txt")
        big = os.path.join(root, "big.bin")
        with open(small, "wb") as f:
            f.write(b"Hello, World!")
        big_bytes = os.urandom(1 << 20)
        with open(big, "wb") as f:
            f.write(big_bytes)
        proc = subprocess.Popen([exe, "-p", "0", "-d", root, "-o", "none"], stdout=subprocess.PIPE,
                                text=True)
        port = None
        for line in proc.stdout:
            m = re.search(r"listening on http://[^/]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
                break
        first = get(port, "/small.txt")
        again = get(port, "/small.txt")
        check("a cached answer equals the first one (status, type, Last-modified, body)",
              first[0] == again[0] == 200 and first[2] == again[2] == b"Hello, World!" and
              first[1].get("content-type") == again[1].get("content-type") and
              first[1].get("last-modified") == again[1].get("last-modified"), str(again[1]))
        s, h, b = get(port, "/small.txt", "HEAD")
        check("HEAD of a cached file: Content-length 13, no body",
              s == 200 and h.get("content-length") == "13" and b == b"", str(h))
        for _ in range(2):
            s, h, b = get(port, "/big.bin")
            check("1 MiB file (descriptor kept, sendfile) byte for byte", s == 200 and b == big_bytes,
                  f"{s} {len(b)}")

        # same size, same inode, new bytes (mtime moves)
        time.sleep(0.02)
        with open(small, "r+b") as f:
            f.write(b"HELLO")
        t = wait_for(port, "/small.txt", lambda s, b: b == b"HELLO, World!")
        check(f"rewritten in place: new bytes after {t if t is None else round(t, 2)} s (<= 1.5: 1 s + request latency on a busy machine)",
              t is not None and t <= 1.5)
        # replaced by rename with a same-size file and the old mtime (only inode/ctime differ)
        st = os.stat(small)
        tmp = os.path.join(root, ".new")
        with open(tmp, "wb") as f:
            f.write(b"hello, world?")
        os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(tmp, small)
        t = wait_for(port, "/small.txt", lambda s, b: b == b"hello, world?")
        check(f"replaced by rename, same size and mtime: new bytes after "
              f"{t if t is None else round(t, 2)} s", t is not None and t <= 1.5)
        # removed -> 404
        os.unlink(small)
        t = wait_for(port, "/small.txt", lambda s, b: s == 404)
        check(f"removed: 404 after {t if t is None else round(t, 2)} s", t is not None and t <= 1.5)
        # a symbolic link in its place is refused like any symlink
        target = os.path.join(root, "big.bin")
        os.symlink(target, small)
        s, h, b = get(port, "/small.txt")
        check("a symbolic link in its place -> 404", s == 404, str(s))
        os.unlink(small)
        with open(small, "wb") as f:
            f.write(b"back")
        t = wait_for(port, "/small.txt", lambda s, b: b == b"back")
        check("created again: served (404s are not cached)", t is not None and t <= 0.2)
        # the big file shrinks: the kept descriptor must not serve the old length
        with open(big, "wb") as f:
            f.write(b"tiny")
        t = wait_for(port, "/big.bin", lambda s, b: b == b"tiny")
        check("large cached file truncated and rewritten: new bytes within 1.5 s",
              t is not None and t <= 1.5)
        # bounded: 100 large files requested, at most 64 descriptors kept for them (the
        # descriptors that name those files: a connection's socket, whose close the server
        # may not have seen yet, is not counted)
        many = os.path.join(root, "many")

        def kept():
            n = 0
            for fd in os.listdir(f"/proc/{proc.pid}/fd"):
                try:
                    n += os.readlink(f"/proc/{proc.pid}/fd/{fd}").startswith(many + "/")
                except OSError:
                    pass  # closed meanwhile
            return n

        os.mkdir(many)
        blob = os.urandom(200 * 1024)
        for i in range(100):
            with open(os.path.join(root, "many", f"f{i}.bin"), "wb") as f:
                f.write(blob[i:] + blob[:i])
        bad = 0
        for i in range(100):
            s, h, b = get(port, f"/many/f{i}.bin")
            bad += s != 200 or b != blob[i:] + blob[:i]
        fds = kept()
        check(f"100 large files served right, {fds} of their descriptors kept (cache keeps <= 64)",
              bad == 0 and 0 < fds <= 64, f"{bad} bad")
        # a directory is never cached as a file
        os.mkdir(os.path.join(root, "d"))
        s, h, b = get(port, "/d/")
        check("directory listing still served", s == 200 and b"Directory listing" in b, str(s))
    finally:
        if proc:
            proc.terminate()
            proc.wait(10)
        shutil.rmtree(root, ignore_errors=True)
        print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
