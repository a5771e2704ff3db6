#!/usr/bin/env bash
# scripts/check-install.sh BUILD_DIR - installs tachy from BUILD_DIR into a temporary
# prefix and builds a C program against it twice: with pkg-config and with
# find_package(tachy) (examples/consumer). Both must run and talk to themselves.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:?usage: check-install.sh BUILD_DIR}
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
LIBDIR=$(dirname "$(find "$PREFIX" -name tachy.pc | head -1)")/..
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o "$PREFIX/consumer-pc" "$ROOT/examples/consumer/main.c" \
    $(pkg-config --cflags --libs tachy) -Wl,-rpath,"$LIBDIR"
"$PREFIX/consumer-pc"
cmake -S "$ROOT/examples/consumer" -B "$PREFIX/build" -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null
cmake --build "$PREFIX/build" >/dev/null
LD_LIBRARY_PATH="$LIBDIR" "$PREFIX/build/consumer"
echo "install check: 2 passed, 0 failed"
