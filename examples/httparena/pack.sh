#!/usr/bin/env bash
# Writes an HttpArena framework directory for tachy: OUT/Dockerfile, OUT/meta.json and
# OUT/src (the committed tachy source tree at HEAD, without tests, bench and Java).
#
#   examples/httparena/pack.sh OUT        e.g. OUT = ~/HttpArena/frameworks/tachy
set -euo pipefail
OUT=${1:?usage: pack.sh OUT}
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
mkdir -p "$OUT/src"
cp "$HERE/Dockerfile" "$HERE/meta.json" "$OUT/"
git -C "$ROOT" archive --format=tar HEAD CMakeLists.txt cmake native examples | tar -x -C "$OUT/src"
echo "wrote $OUT (build: docker build -t httparena-tachy $OUT)"
