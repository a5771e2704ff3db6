#!/bin/sh
# zig ar for cmake/zig-toolchain.cmake (CMake wants a single file for CMAKE_AR).
# TACHY_ZIG names the zig executable; else the ziglang Python package's, else zig on PATH.
if [ -n "${TACHY_ZIG:-}" ]; then exec "$TACHY_ZIG" ar "$@"; fi
if python3 -c 'import ziglang' 2>/dev/null; then exec python3 -m ziglang ar "$@"; fi
exec zig ar "$@"
