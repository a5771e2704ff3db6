#!/usr/bin/env bash
# scripts/deps.sh - installs (as root) or names (otherwise) the Debian 12 packages tachy
# needs. Sourced by demo.sh and test.sh; `deps.sh c|java|test` on its own also works.
#
#   c     compiler, CMake, OpenSSL, zlib, cmocka, curl
#   java  + JDK 17 and Maven
#   test  + valgrind and the real clients the tests drive (wrk, h2load, HAProxy, python3 with
#           websockets, node + npm for the `ws` client, headless chromium), and for the
#           HTTP/2 tests (tests/h2): openssl, the Python `h2` package (pip) and h2spec
#           (tachy_h2spec below; a Go module, built once and cached). The reference servers
#           of `tests/h2/run.sh --ref` and bench/h2.sh (Debian h2o, nginx) are not in this
#           list: installing them starts their services on a machine with systemd.
set -euo pipefail

H2SPEC_VERSION=2.2.1

tachy_packages() {
    local c="build-essential cmake ninja-build pkg-config libssl-dev zlib1g-dev libcmocka-dev curl"
    local java="openjdk-17-jdk-headless maven"
    local test="valgrind wrk haproxy nghttp2-client python3 python3-websockets chromium openssl"
    # Node.js only from Debian when the machine has none (an image may ship its own).
    command -v npm >/dev/null 2>&1 || test="$test nodejs npm"
    case "${1:-c}" in
        c) echo "$c" ;;
        java) echo "$c $java" ;;
        test) echo "$c $java $test" ;;
    esac
}

tachy_deps() {
    local want missing=()
    want=$(tachy_packages "${1:-c}")
    for p in $want; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ]; then
        echo "tachy: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    elif command -v sudo >/dev/null; then
        echo "tachy: installing ${missing[*]} (sudo)" >&2
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "tachy: missing packages: ${missing[*]}" >&2
        echo "tachy: run as root: apt-get install ${missing[*]}" >&2
        exit 1
    fi
}

# tachy_h2spec: prints the path of h2spec $H2SPEC_VERSION, building it the first time with
# `go install` into ${TACHY_CACHE:-~/.cache/tachy}/h2spec-VERSION (the Go module proxy;
# Debian's golang-go when there is no go). h2spec 2.2.1 has no go.mod, so its dependencies
# resolve to their newest versions, which want a recent Go (1.26 here builds it; Debian 12's
# 1.19 may not). Returns 1, saying why, when it cannot be had.
tachy_h2spec() {
    local dir="${TACHY_CACHE:-$HOME/.cache/tachy}/h2spec-$H2SPEC_VERSION"
    if [ -x "$dir/h2spec" ]; then
        echo "$dir/h2spec"
        return 0
    fi
    local go
    go=$(command -v go || echo /usr/local/go/bin/go)
    if [ ! -x "$go" ]; then
        if [ "$(id -u)" -eq 0 ]; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends golang-go >/dev/null 2>&1 || true
        fi
        go=$(command -v go || true)
    fi
    if [ -z "$go" ]; then
        echo "tachy: no Go toolchain: cannot build h2spec" >&2
        return 1
    fi
    mkdir -p "$dir"
    echo "tachy: building h2spec $H2SPEC_VERSION into $dir" >&2
    if ! GOBIN="$dir" "$go" install "github.com/summerwind/h2spec/cmd/h2spec@v$H2SPEC_VERSION+incompatible" >"$dir/build.log" 2>&1; then
        echo "tachy: h2spec did not build ($dir/build.log)" >&2
        return 1
    fi
    echo "$dir/h2spec"
}

# tachy_h2_python: the Python `h2` package (and with it hpack) for tests/h2/client.py
tachy_h2_python() {
    python3 -c 'import h2, hpack' 2>/dev/null && return 0
    python3 -m pip install -q h2 2>/dev/null ||
        python3 -m pip install -q --break-system-packages h2 2>/dev/null ||
        { echo "tachy: pip install h2 failed" >&2; return 1; }
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    tachy_deps "${1:-c}"
    if [ "${1:-c}" = test ]; then
        tachy_h2_python || true
        tachy_h2spec >/dev/null || true
    fi
fi
