#!/usr/bin/env bash
# scripts/cross.sh - builds the four libtachy_jni natives the jar ships, from this one host,
# with Zig's C toolchain (cmake/zig-toolchain.cmake):
#
#   linux-x86_64        x86_64-linux-gnu.2.17    glibc 2.17+ (CentOS 7, Amazon Linux 2, ...)
#   linux-aarch64       aarch64-linux-gnu.2.17
#   linux-x86_64-musl   x86_64-linux-musl        Alpine and other musl systems
#   linux-aarch64-musl  aarch64-linux-musl
#
#   scripts/cross.sh [--out DIR] [--require] [PLATFORM...]
#
# Each library lands in DIR/<platform>/libtachy_jni.so (default DIR: build/cross/natives),
# the layout of the jar's META-INF/native/. Build trees: build/cross/<platform>/.
# After each build the library is checked: NEEDED may name only the C library (and, for
# glibc 2.17, its libpthread/libdl/libm/ld.so parts) and libz.so.1; a glibc library may
# use no symbol version newer than GLIBC_2.17. A violation fails the script.
#
# TACHY_CROSS_LTO=OFF builds them without link-time optimisation (scripts/test.sh does: the
# natives a test run builds are tested, not shipped; a release keeps the default, ON).
#
# No zig (pip install ziglang): prints that only the host native can be packed and exits 0,
# unless --require (or TACHY_CROSS_REQUIRED=1|true) is given, then exits 1.
#
# Needs: cmake, a JDK (jni.h: JAVA_HOME, else the javac on PATH), the host's zlib and OpenSSL
# headers (zlib1g-dev, libssl-dev; headers only: see below), readelf (binutils).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

OUT=$ROOT/build/cross/natives
REQUIRE=${TACHY_CROSS_REQUIRED:-0}
PLATFORMS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT=$(realpath -m "$2"); shift 2 ;;
        --require) REQUIRE=1; shift ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        linux-*) PLATFORMS+=("$1"); shift ;;
        *) echo "cross.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
case "$REQUIRE" in 1|true) REQUIRE=1 ;; *) REQUIRE=0 ;; esac
[ ${#PLATFORMS[@]} -gt 0 ] || PLATFORMS=(linux-x86_64 linux-aarch64 linux-x86_64-musl linux-aarch64-musl)
JOBS=${JOBS:-2}

zig_target() {
    case "$1" in
        linux-x86_64) echo x86_64-linux-gnu.2.17 ;;
        linux-aarch64) echo aarch64-linux-gnu.2.17 ;;
        linux-x86_64-musl) echo x86_64-linux-musl ;;
        linux-aarch64-musl) echo aarch64-linux-musl ;;
        *) echo "cross.sh: unknown platform $1" >&2; return 1 ;;
    esac
}

# ---- zig --------------------------------------------------------------------------------
ZIG=${TACHY_ZIG:-}
if [ -z "$ZIG" ]; then
    ZIG=$(python3 -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))' 2>/dev/null || true)
    [ -n "$ZIG" ] && [ -x "$ZIG" ] || ZIG=$(command -v zig || true)
fi
if [ -z "$ZIG" ]; then
    if [ "$REQUIRE" = 1 ]; then
        echo "cross.sh: no zig (pip install ziglang); cannot build ${PLATFORMS[*]}" >&2
        exit 1
    fi
    echo "tachy: no zig (pip install ziglang): the cross natives (${PLATFORMS[*]}) are not built;"
    echo "tachy: the jar packs only the host's native library"
    # none from an earlier build either: they would not match this tree
    rm -rf "$OUT"
    exit 0
fi
export TACHY_ZIG=$ZIG
# Zig's caches stay in the build tree (CI starts from a clean one, engineers share $HOME).
export ZIG_GLOBAL_CACHE_DIR=$ROOT/build/cross/zig-cache ZIG_LOCAL_CACHE_DIR=$ROOT/build/cross/zig-cache
echo "tachy: cross-building ${PLATFORMS[*]} with zig $("$ZIG" version)"

# ---- JDK ----------------------------------------------------------------------------------
if [ -z "${JAVA_HOME:-}" ]; then
    JAVAC=$(command -v javac || true)
    [ -n "$JAVAC" ] || { echo "cross.sh: no JDK (set JAVA_HOME)" >&2; exit 1; }
    JAVA_HOME=$(dirname "$(dirname "$(realpath "$JAVAC")")")
fi
[ -f "$JAVA_HOME/include/jni.h" ] || { echo "cross.sh: $JAVA_HOME/include/jni.h missing" >&2; exit 1; }

# ---- headers that the targets do not bring --------------------------------------------------
# zlib's and OpenSSL's API headers are the same on every Linux target: copy the host's into a
# directory of their own (never -I/usr/include: the host glibc's headers would leak into a
# musl build). OpenSSL's configuration.h is the host's x86_64 one; tachy uses OpenSSL's
# headers for prototypes and constants only (libssl is dlopen()ed), and the LP64 settings it
# records are those of aarch64 too.
INC=$ROOT/build/cross/include
rm -rf "$INC" && mkdir -p "$INC/openssl"
for h in zlib.h zconf.h; do
    [ -f /usr/include/$h ] || { echo "cross.sh: /usr/include/$h missing (zlib1g-dev)" >&2; exit 1; }
    cp /usr/include/$h "$INC/"
done
[ -f /usr/include/openssl/ssl.h ] || { echo "cross.sh: OpenSSL headers missing (libssl-dev)" >&2; exit 1; }
cp /usr/include/openssl/*.h "$INC/openssl/"
HOST_MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
[ -d "/usr/include/$HOST_MULTIARCH/openssl" ] && cp /usr/include/"$HOST_MULTIARCH"/openssl/*.h "$INC/openssl/"

# ---- the checks -------------------------------------------------------------------------------
check_lib() { # check_lib FILE PLATFORM
    local f=$1 p=$2 needed bad max
    needed=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    case "$p" in
        *-musl) bad=$(for n in $needed; do case "$n" in libc.so|libz.so.1) ;; *) echo "$n" ;; esac; done) ;;
        *) bad=$(for n in $needed; do
                case "$n" in libc.so.6|libpthread.so.0|libdl.so.2|libm.so.6|libz.so.1|ld-linux*) ;;
                    *) echo "$n" ;; esac; done) ;;
    esac
    if [ -n "$bad" ]; then
        echo "cross.sh: $p: unexpected NEEDED: $bad" >&2
        return 1
    fi
    max=$(readelf -W --dyn-syms "$f" | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -1 || true)
    case "$p" in
        *-musl)
            if [ -n "$max" ]; then echo "cross.sh: $p: glibc symbol versions in a musl library ($max)" >&2; return 1; fi
            max="none (musl)" ;;
        *)
            if [ -z "$max" ] || [ "$(printf '%s\nGLIBC_2.17\n' "$max" | sort -V | tail -1)" != GLIBC_2.17 ]; then
                echo "cross.sh: $p: needs $max, more than GLIBC_2.17:" >&2
                readelf -W --dyn-syms "$f" | grep -E 'GLIBC_2\.(1[89]|[2-9][0-9])' >&2 || true
                return 1
            fi ;;
    esac
    local exported
    exported=$(readelf -W --dyn-syms "$f" | awk '$7 != "UND" && $5 == "GLOBAL" {print $8}' | sed 's/@.*//' | sort -u | tr '\n' ' ')
    if [ "$exported" != "JNI_OnLoad JNI_OnUnload " ]; then
        echo "cross.sh: $p: exports more than JNI_OnLoad/JNI_OnUnload: $exported" >&2
        return 1
    fi
    printf 'tachy: %-19s %7d bytes  NEEDED: %s max glibc: %s\n' "$p" "$(stat -c %s "$f")" "$needed" "$max"
}

# ---- build ------------------------------------------------------------------------------------
for p in "${PLATFORMS[@]}"; do
    target=$(zig_target "$p")
    dir=$ROOT/build/cross/$p
    mkdir -p "$dir/zstub"
    # libz.so.1 for linking only (cmake/zlib-stub.c): the real one is the system's at run time.
    "$ZIG" cc -target "$target" -shared -fPIC -O1 -Wl,-soname,libz.so.1 \
        -o "$dir/zstub/libz.so" cmake/zlib-stub.c
    cmake -S "$ROOT" -B "$dir" -G Ninja \
        -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/zig-toolchain.cmake" \
        -DTACHY_ZIG_TARGET="$target" -DTACHY_ZIG="$ZIG" \
        -DCMAKE_BUILD_TYPE=Release -DTACHY_LTO="${TACHY_CROSS_LTO:-ON}" \
        -DTACHY_BUILD_JNI=ON -DTACHY_BUILD_TESTS=OFF -DTACHY_BUILD_EXAMPLES=OFF \
        -DJAVA_HOME="$JAVA_HOME" \
        -DZLIB_INCLUDE_DIR="$INC" -DZLIB_LIBRARY="$dir/zstub/libz.so" \
        -DOPENSSL_INCLUDE_DIR="$INC" \
        -DOPENSSL_SSL_LIBRARY="$dir/zstub/libz.so" -DOPENSSL_CRYPTO_LIBRARY="$dir/zstub/libz.so" \
        >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log" >&2; exit 1; }
    # (OPENSSL_*_LIBRARY only satisfy find_package(OpenSSL): nothing links libssl/libcrypto.)
    cmake --build "$dir" --target tachy_jni -j "$JOBS" >"$dir.build.log" 2>&1 ||
        { cat "$dir.build.log" >&2; exit 1; }
    check_lib "$dir/jni/libtachy_jni.so" "$p"
    mkdir -p "$OUT/$p"
    cp "$dir/jni/libtachy_jni.so" "$OUT/$p/libtachy_jni.so"
done
echo "tachy: natives in $OUT"
