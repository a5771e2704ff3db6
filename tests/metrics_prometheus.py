#!/usr/bin/env python3
"""tests/metrics_prometheus.py TACHY_HELLO - tachy-hello's /metrics read by a real Prometheus
text parser (prometheus_client's): the request counter grows by exactly the requests sent.

Starts tachy-hello on 127.0.0.1 (an ephemeral port), scrapes, sends N GET / on fresh
connections, scrapes again. Between the scrapes tachy_requests_total and
tachy_responses_total{code="2xx"} grow by N + 1: the second scrape's own request is counted
when parsed, the first scrape's response when its exchange ended (after it was rendered).
Prints "metrics_prometheus: N passed, M failed"; exit status 1 on a failure.
"""
import http.client
import subprocess
import sys

from prometheus_client.parser import text_string_to_metric_families

N = 50


def scrape(port):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", "/metrics")
    r = c.getresponse()
    assert r.status == 200, r.status
    assert r.getheader("Content-Type").startswith("text/plain; version=0.0.4")
    text = r.read().decode()
    c.close()
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            key = s.name + ("{" + ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items())) + "}"
                            if s.labels else "")
            out[key] = s.value
    return out


def main():
    hello = sys.argv[1]
    p = subprocess.Popen([hello, "-p", "0", "-b", "127.0.0.1"], stdout=subprocess.PIPE, text=True)
    passed = failed = 0
    try:
        line = p.stdout.readline()
        port = int(line.strip().rstrip("/").rsplit(":", 1)[1])
        before = scrape(port)
        for _ in range(N):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/")
            r = c.getresponse()
            r.read()
            assert r.status == 200
            c.close()
        after = scrape(port)
        checks = [
            ("tachy_requests_total", N + 1),
            ('tachy_responses_total{code="2xx"}', N + 1),
            ("tachy_request_duration_seconds_count", N + 1),
            ("tachy_connections_accepted_total", N + 1),
        ]
        for key, want in checks:
            got = after[key] - before[key]
            if got == want:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {key}: grew by {got}, want {want}")
        # the histogram is cumulative and ends in +Inf == _count
        inf = after['tachy_request_duration_seconds_bucket{le="+Inf"}']
        if inf == after["tachy_request_duration_seconds_count"]:
            passed += 1
        else:
            failed += 1
            print("FAIL +Inf bucket != _count")
    finally:
        p.terminate()
        p.wait(timeout=10)
    print(f"metrics_prometheus: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
