#!/usr/bin/env python3
"""An HTTP/2 front for an HTTP/1.1-only arena entry, to check validate.py's HTTP/2 checks
against a real HTTP/2 server before the entry has its own:

    validate.py python3 tests/arena/nginx_h2_front.py [--map-baseline2] build/release/examples/tachy-arena

Takes the entry's options as validate.py passes them; runs the entry without --h2-port and
--h2c-port, and nginx (1 worker) on those two ports as HttpArena wants them (TLS with ALPN h2
on the first; `listen ... http2` on the second, which speaks h2c by prior knowledge only)
proxying every request to the entry's HTTP/1.1 port (and /baseline2 to its /baseline11, the
same sum, when --map-baseline2 comes first: tachy-arena has no /baseline2 yet); prints the
entry's "listening on" lines and "listening on h2://127.0.0.1:R/" and
"listening on h2c://127.0.0.1:S/". SIGTERM stops both
and exits with the entry's status. Not part of any suite: a harness for the harness.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "support"))
from netutil import free_port, wait_port  # noqa: E402


def main():
    argv = sys.argv[1:]
    map_b2 = bool(argv) and argv[0] == "--map-baseline2"
    if map_b2:
        argv = argv[1:]
    opts, entry, i = {}, [], 0
    while i < len(argv):
        if argv[i] in ("--h2-port", "--h2c-port"):
            opts[argv[i]] = int(argv[i + 1])
            i += 2
            continue
        if argv[i] in ("--cert", "--key"):
            opts[argv[i]] = argv[i + 1]
        entry.append(argv[i])
        i += 1
    proc = subprocess.Popen(entry, stdout=subprocess.PIPE, text=True)
    port = None
    while True:
        line = proc.stdout.readline()
        if not line:
            return 1
        print(line, end="", flush=True)
        m = re.search(r"listening on http://[^:]+:(\d+)/", line)
        if m:
            port = int(m.group(1))
        if port and "https://" in line:
            break
    threading.Thread(target=lambda: [print(x, end="", flush=True) for x in proc.stdout],
                     daemon=True).start()
    h2 = opts.get("--h2-port") or free_port()
    h2c = opts.get("--h2c-port") or free_port()
    d = tempfile.mkdtemp(prefix="arena-h2-front-")
    conf = os.path.join(d, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""worker_processes 1; daemon off; pid {d}/nginx.pid; error_log {d}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fcgi;
  uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  upstream entry {{ server 127.0.0.1:{port}; keepalive 16; }}
  server {{
    listen 127.0.0.1:{h2} ssl http2;
    listen 127.0.0.1:{h2c} http2;
    ssl_certificate {opts['--cert']}; ssl_certificate_key {opts['--key']};
    {'' if map_b2 else '#'}location = /baseline2 {{ rewrite ^ /baseline11 break; proxy_pass http://entry;
    {'' if map_b2 else '#'}   proxy_http_version 1.1; proxy_set_header Connection ""; }}
    location / {{ proxy_pass http://entry; proxy_http_version 1.1;
                 proxy_set_header Connection ""; proxy_buffering off; }}
  }}
}}
""")
    ngx = subprocess.Popen(["nginx", "-e", f"{d}/error.log", "-p", d, "-c", conf])
    for p in (h2, h2c):
        if not wait_port(p, ngx, 5) and ngx.poll() is not None:
            proc.terminate()
            return 1
    print(f"listening on h2://127.0.0.1:{h2}/", flush=True)
    print(f"listening on h2c://127.0.0.1:{h2c}/", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.is_set() and proc.poll() is None:
        stop.wait(0.2)
    ngx.terminate()
    ngx.wait()
    if proc.poll() is None:
        proc.terminate()
    return proc.wait()


if __name__ == "__main__":
    sys.exit(main())
