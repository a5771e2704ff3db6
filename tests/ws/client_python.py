#!/usr/bin/env python3
"""Real-client test: Python `websockets` (Debian python3-websockets) against an echo
endpoint. It negotiates permessage-deflate by default, so this also checks RFC 7692
interoperability with a mainstream implementation.

    client_python.py ws://127.0.0.1:PORT/ws

Prints one line per check and "N passed, N failed".
"""
import asyncio
import os
import sys

import websockets


async def run(uri):
    results = []

    def check(name, ok, detail=""):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} python-websockets: {name}{'' if ok else ' ' + detail}")

    async with websockets.connect(uri, max_size=None, compression="deflate") as ws:
        exts = ws.response_headers.get("Sec-WebSocket-Extensions", "")
        check("permessage-deflate negotiated", exts.startswith("permessage-deflate"), exts)
        await ws.send("Hello, tachy")
        check("text echo", await ws.recv() == "Hello, tachy")
        await ws.send("κόσμε \U0001F600")
        check("UTF-8 text echo", await ws.recv() == "κόσμε \U0001F600")
        blob = os.urandom(100000)
        await ws.send(blob)
        check("binary echo (100 kB random)", await ws.recv() == blob)
        text = "compressible " * 100000
        await ws.send(text)
        check("1.3 MB compressible text echo", await ws.recv() == text)
        await ws.send(["frag", "mented ", "message"])  # sent as fragments
        check("fragmented message echo", await ws.recv() == "fragmented message")
        for i in range(200):
            await ws.send(f"message {i}")
        got = [await ws.recv() for _ in range(200)]
        check("200 messages in order", got == [f"message {i}" for i in range(200)])
        pong = await ws.ping(b"are you there")
        await asyncio.wait_for(pong, 5)
        check("ping answered by pong", True)
        await ws.close(code=1000, reason="done")
        check("close handshake 1000", ws.close_code == 1000, str(ws.close_code))

    async with websockets.connect(uri, compression=None) as ws:
        exts = ws.response_headers.get("Sec-WebSocket-Extensions")
        check("no extension when not offered", exts is None, str(exts))
        await ws.send(b"\x00\x01\x02")
        check("binary echo without compression", await ws.recv() == b"\x00\x01\x02")
        await ws.close(code=4001, reason="app")
        check("application close code echoed", ws.close_code == 4001, str(ws.close_code))
    return results


def main():
    uri = sys.argv[1] if len(sys.argv) > 1 else "ws://127.0.0.1:8080/ws"
    try:
        results = asyncio.run(asyncio.wait_for(run(uri), 60))
    except Exception as e:  # a crash counts as one failure
        print(f"FAIL python-websockets: {type(e).__name__}: {e}")
        results = [False]
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
