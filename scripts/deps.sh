#!/usr/bin/env bash
# scripts/deps.sh - installs (as root) or names (otherwise) the Debian 12 packages tachy
# needs. Sourced by demo.sh and test.sh; `deps.sh c|java|test` on its own also works.
#
#   c     compiler, CMake, OpenSSL, zlib, cmocka, curl
#   java  + JDK 17 and Maven
#   test  + valgrind and the real clients the tests drive (wrk, h2load, HAProxy, python3 with
#           websockets, node + npm for the `ws` client, headless chromium)
set -euo pipefail

tachy_packages() {
    local c="build-essential cmake ninja-build pkg-config libssl-dev zlib1g-dev libcmocka-dev curl"
    local java="openjdk-17-jdk-headless maven"
    local test="valgrind wrk haproxy nghttp2-client python3 python3-websockets chromium"
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

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    tachy_deps "${1:-c}"
fi
