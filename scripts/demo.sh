#!/usr/bin/env bash
# scripts/demo.sh [PORT] - builds tachy and starts the demo server tachy-hello on
# 127.0.0.1:PORT (default 8080). Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
tachy_deps c
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACHY_BUILD_JNI=OFF >/dev/null
cmake --build build/release -j 2 --target tachy-hello
PORT=${1:-8080}
echo "tachy-hello (the C demo): try  curl http://127.0.0.1:$PORT/"
exec build/release/examples/tachy-hello -p "$PORT" -b 127.0.0.1
