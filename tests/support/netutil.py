"""tests/support/netutil.py - the socket helpers the Python tests and the bench drivers share
(tests/lb, tests/h2/client.py, tests/fileserver_vs_jwebserver.py, tests/arena, bench/lib,
bench/slowbody.sh): a free port on 127.0.0.1, waiting for a server to accept, reading a
connection to its end. Import it with its folder on sys.path:

    sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
    from netutil import free_port, wait_port, recv_all
"""
import socket
import time


def free_port():
    """A TCP port of 127.0.0.1 that nothing listens on now (the kernel's pick; another
    process may still take it before the caller binds it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc=None, timeout=10.0):
    """True once 127.0.0.1:port accepts a connection; False after timeout seconds, or as
    soon as proc (a subprocess.Popen: the server that should listen) has exited."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def recv_all(sock):
    """Everything sock receives until the peer closes (its timeout, if any, applies to each
    read and raises as usual)."""
    chunks = []
    while True:
        b = sock.recv(65536)
        if not b:
            break
        chunks.append(b)
    return b"".join(chunks)
