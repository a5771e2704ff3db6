#!/usr/bin/env python3
"""Real-client test: headless Chromium runs chromium.html against an echo endpoint.

    client_chromium.py ws://127.0.0.1:PORT/ws [CHROMIUM]

Serves the page from a throw-away HTTP server on 127.0.0.1 (port 0), starts Chromium
headless with a fresh profile, waits (at most 60 s) for the page to POST its result
lines to /result, stops the Chromium it started, and prints the lines plus the
"N passed, N failed" summary the page computed.
"""
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
result = {}
got = threading.Event()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if urllib.parse.urlparse(self.path).path != "/chromium.html":
            self.send_error(404)
            return
        with open(os.path.join(HERE, "chromium.html"), "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        result["text"] = self.rfile.read(n).decode("utf-8", "replace")
        self.send_response(204)
        self.end_headers()
        got.set()

    def log_message(self, *args):
        pass


def main():
    ws_url = sys.argv[1] if len(sys.argv) > 1 else "ws://127.0.0.1:8080/ws"
    chromium = sys.argv[2] if len(sys.argv) > 2 else (shutil.which("chromium") or "chromium")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    page = (f"http://127.0.0.1:{httpd.server_address[1]}/chromium.html?url="
            + urllib.parse.quote(ws_url, safe=""))
    profile = tempfile.mkdtemp(prefix="tachy-chromium-")
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--disable-extensions", f"--user-data-dir={profile}", page]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ok = got.wait(60)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        httpd.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    if not ok:
        print("FAIL chromium: no result within 60 s")
        print("0 passed, 1 failed")
        return 1
    text = result["text"].rstrip("\n")
    print(text)
    return 0 if text.endswith(" 0 failed") else 1


if __name__ == "__main__":
    sys.exit(main())
