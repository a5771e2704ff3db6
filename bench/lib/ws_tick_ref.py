#!/usr/bin/env python3
"""A reference WebSocket tick server for testing bench/wsload.c's tick mode (not a
contender): accepts upgrades on any path, and every --interval seconds sends every
client one text frame "<epoch-ns> tick <seq>" (the tick protocol of wsload.c).
Bounded by --seconds. usage: ws_tick_ref.py PORT [--interval 0.1] [--seconds 60]"""
import argparse, asyncio, base64, hashlib, time

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
clients = set()

async def handle(reader, writer):
    head = await reader.readuntil(b"\r\n\r\n")
    key = b""
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"sec-websocket-key:"):
            key = line.split(b":", 1)[1].strip()
    acc = base64.b64encode(hashlib.sha1(key + GUID).digest())
    writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Accept: " + acc + b"\r\n\r\n")
    clients.add(writer)
    try:
        while await reader.read(4096):
            pass
    except ConnectionError:
        pass
    clients.discard(writer)
    writer.close()

async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--seconds", type=float, default=60)
    a = ap.parse_args()
    srv = await asyncio.start_server(handle, "127.0.0.1", a.port, backlog=4096)
    print(f"listening on http://127.0.0.1:{a.port}/", flush=True)
    end = time.monotonic() + a.seconds
    seq = 0
    while time.monotonic() < end:
        await asyncio.sleep(a.interval)
        seq += 1
        payload = f"{time.time_ns()} tick {seq}".encode()
        frame = bytes([0x81, len(payload)]) + payload
        for w in list(clients):
            w.write(frame)
    srv.close()

asyncio.run(main())
