#!/usr/bin/env bash
# scripts/cross-test.sh - tests the cross-built platforms on their own architecture and libc:
#
#   1. the C suite (cmocka unit + socket tests) cross-built with Zig for each platform and run
#      under ctest: natively (x86_64 glibc 2.17 build; x86_64 musl through Debian's musl
#      loader) or under qemu-aarch64 (aarch64 glibc with Debian's arm64 libc, aarch64 musl);
#   2. linux-aarch64 also on a real JVM: Debian's arm64 OpenJDK 17 under qemu-aarch64 runs
#      the jar (java/target) and gets tachy's server from its linux-aarch64 library;
#   3. each shipped libtachy_jni.so (scripts/cross.sh's output) loaded by
#      tests/native-host/host.c built for the same platform: dlopen, JNI_OnLoad with a
#      stand-in JNIEnv, RegisterNatives, and one real request on 127.0.0.1 through the natives.
#
#   scripts/cross-test.sh [--natives DIR] [PLATFORM...]
#
# PLATFORM: linux-x86_64 linux-aarch64 linux-x86_64-musl linux-aarch64-musl (default: all).
# DIR: where <platform>/libtachy_jni.so are (default: java/target/natives, else
# build/cross/natives; missing ones are built with scripts/cross.sh).
#
# musl programs (tests and host) link dynamically against Debian's musl (1.2.3) loader.
# Not run on the cross builds: test_tls and test_h2 (their TLS clients link the target's
# libssl, which neither Zig nor this host has for musl; test_h2 also needs the target's
# libnghttp2.so.14 at run time, which qemu's aarch64 and musl roots lack), the sanitizer builds (Zig's musl has no ASan
# runtime) and valgrind. Everything else in tests/ runs.
#
# Target libraries: zlib and cmocka are compiled here for each target from Debian's source
# packages (apt-get source, into build/cross/src); the tests link them statically. The musl
# native host also needs a musl libz.so.1 at run time: the same zlib, built shared.
# Installs (as root) what is missing: qemu-user-static, libc6:arm64 and zlib1g:arm64 (the
# aarch64 glibc runtime), musl and musl:arm64 (the musl loaders), the deb-src entry for the
# two source packages. Needs Zig (pip install ziglang).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${JOBS:-2}
NATIVES=
PLATFORMS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --natives) NATIVES=$(realpath -m "$2"); shift 2 ;;
        -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
        linux-*) PLATFORMS+=("$1"); shift ;;
        *) echo "cross-test.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ ${#PLATFORMS[@]} -gt 0 ] || PLATFORMS=(linux-x86_64 linux-aarch64 linux-x86_64-musl linux-aarch64-musl)
if [ -z "$NATIVES" ]; then
    NATIVES=$ROOT/build/cross/natives
    [ -d "$ROOT/java/target/natives" ] && NATIVES=$ROOT/java/target/natives
fi

zig_target() {
    case "$1" in
        linux-x86_64) echo x86_64-linux-gnu.2.17 ;;
        linux-aarch64) echo aarch64-linux-gnu.2.17 ;;
        linux-x86_64-musl) echo x86_64-linux-musl ;;
        linux-aarch64-musl) echo aarch64-linux-musl ;;
        *) echo "cross-test.sh: unknown platform $1" >&2; return 1 ;;
    esac
}

# ---- host packages -----------------------------------------------------------------------------
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
missing=()
for p in qemu-user-static libc6:arm64 zlib1g:arm64 musl musl:arm64 dpkg-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SRC=$ROOT/build/cross/src
need_src=0
[ -f "$SRC/zlib.ok" ] && [ -f "$SRC/cmocka.ok" ] || need_src=1
if [ ${#missing[@]} -gt 0 ] || [ $need_src = 1 ]; then
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
        as_root dpkg --add-architecture arm64
    fi
    if [ $need_src = 1 ] && ! grep -rqs '^Types: deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        # The machine's own archive entries, as source entries (deb822 or one-line form).
        { for f in /etc/apt/sources.list.d/*.sources; do
              [ -f "$f" ] && sed -n 's/^Types: deb$/Types: deb-src/; /^#/d; p' "$f" && echo; done
          [ -f /etc/apt/sources.list ] && grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' >/tmp/tachy-deb-src.list || true
        } | as_root tee /etc/apt/sources.list.d/tachy-deb-src.sources >/dev/null
        [ -s /tmp/tachy-deb-src.list ] && as_root cp /tmp/tachy-deb-src.list /etc/apt/sources.list.d/tachy-deb-src.list || true
    fi
    echo "tachy: installing ${missing[*]:-} (and the apt lists for arm64 / sources)" >&2
    # Twice, ten seconds apart: a mirror that fails once (seen: apt's exit 100 mid-CI) is not
    # a failure of the tests; the second attempt's output is shown when it fails too.
    apt_twice() {
        "$@" >/tmp/tachy-apt.log 2>&1 && return 0
        sleep 10
        "$@" >/tmp/tachy-apt.log 2>&1 && return 0
        cat /tmp/tachy-apt.log >&2
        return 1
    }
    apt_twice as_root apt-get update -qq
    if [ ${#missing[@]} -gt 0 ]; then
        apt_twice as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends "${missing[@]}"
    fi
fi

ZIG=${TACHY_ZIG:-$(python3 -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))' 2>/dev/null || command -v zig || true)}
[ -n "$ZIG" ] && [ -x "$ZIG" ] || { echo "cross-test.sh: no zig (pip install ziglang)" >&2; exit 1; }
export TACHY_ZIG=$ZIG ZIG_GLOBAL_CACHE_DIR=$ROOT/build/cross/zig-cache ZIG_LOCAL_CACHE_DIR=$ROOT/build/cross/zig-cache
if [ -z "${JAVA_HOME:-}" ]; then
    JAVA_HOME=$(dirname "$(dirname "$(realpath "$(command -v javac)")")")
fi

# ---- zlib and cmocka sources (Debian's) ---------------------------------------------------------
mkdir -p "$SRC"
if [ $need_src = 1 ]; then
    # The newest source first; if the archive does not serve it (seen: a security update's
    # files 404 on a mirror), each older version apt knows, newest first.
    src_get() {
        apt-get source -qq --download-only "$1" >/dev/null 2>&1 && return 0
        local v
        for v in $(apt-cache showsrc "$1" 2>/dev/null | sed -n 's/^Version: //p' | sort -urV); do
            rm -f "$1"_*
            apt-get source -qq --download-only "$1=$v" >/dev/null 2>&1 && return 0
        done
        echo "cross-test.sh: no source package of $1 could be fetched" >&2
        return 1
    }
    (cd "$SRC" && rm -rf zlib-* zlib_* cmocka-* cmocka_* && src_get zlib && src_get cmocka &&
        tar xjf zlib_*.orig.tar.bz2 && tar xJf cmocka_*.orig.tar.xz)
    touch "$SRC/zlib.ok" "$SRC/cmocka.ok"
fi
ZLIB_SRC=$(ls -d "$SRC"/zlib-*/ | head -1)
CMOCKA_SRC=$(ls -d "$SRC"/cmocka-*/ | head -1)

deps() { # deps PLATFORM TARGET: zlib (static + shared) and cmocka (static) for the target
    local d=$ROOT/build/cross/deps/$1 t=$2 f objs=()
    [ -f "$d/ok" ] && return 0
    rm -rf "$d" && mkdir -p "$d/obj" "$d/lib/pkgconfig" "$d/include"
    for f in adler32 compress crc32 deflate gzclose gzlib gzread gzwrite infback inffast inflate inftrees trees uncompr zutil; do
        "$ZIG" cc -target "$t" -O2 -fPIC -w -DHAVE_UNISTD_H -DHAVE_STDARG_H -D_LARGEFILE64_SOURCE=1 \
            -c "$ZLIB_SRC/$f.c" -o "$d/obj/$f.o"
        objs+=("$d/obj/$f.o")
    done
    "$ZIG" ar rcs "$d/lib/libz.a" "${objs[@]}"
    mkdir -p "$d/shared"
    "$ZIG" cc -target "$t" -shared -Wl,-soname,libz.so.1 -o "$d/shared/libz.so.1" "${objs[@]}"
    cp "$ZLIB_SRC/zlib.h" "$ZLIB_SRC/zconf.h" "$d/include/"
    # _UINTPTR_T_DEFINED: cmocka.h otherwise guesses uintptr_t, wrongly for aarch64 musl
    "$ZIG" cc -target "$t" -O2 -fPIC -std=gnu99 -D_UINTPTR_T_DEFINED -I"$CMOCKA_SRC/include" \
        -DHAVE_SIGNAL_H -DHAVE_STRINGS_H -DHAVE_INTTYPES_H -DHAVE_MALLOC_H -DHAVE_SIGLONGJMP \
        -DHAVE_STRSIGNAL -DHAVE_STRUCT_TIMESPEC -DHAVE_CLOCK_REALTIME -DHAVE_GCC_THREAD_LOCAL_STORAGE \
        -c "$CMOCKA_SRC/src/cmocka.c" -o "$d/obj/cmocka.o"
    "$ZIG" ar rcs "$d/lib/libcmocka.a" "$d/obj/cmocka.o"
    cp "$CMOCKA_SRC/include/cmocka.h" "$d/include/"
    printf 'prefix=%s\nName: cmocka\nDescription: cmocka built for %s\nVersion: 1.1.5\nLibs: -L${prefix}/lib -lcmocka\nCflags: -D_UINTPTR_T_DEFINED -I${prefix}/include\n' \
        "$d" "$t" >"$d/lib/pkgconfig/cmocka.pc"
    touch "$d/ok"
}

emulator() { # the command prefix that runs a PLATFORM binary here
    case "$1" in
        linux-aarch64*) command -v qemu-aarch64-static || command -v qemu-aarch64 ;;
        *) echo "" ;;
    esac
}

# Debian's arm64 OpenJDK 17, unpacked (not installed: installing a foreign-arch JDK would
# register its java with update-alternatives on this host) into build/cross/arm64-jre.
JAR=$ROOT/java/target/tachy-httpserver-0.1.0-SNAPSHOT.jar
arm64_jvm_probe() {
    local a=$ROOT/build/cross/arm64-jre j out
    if [ ! -f "$a/ok" ]; then
        rm -rf "$a" && mkdir -p "$a/debs"
        (cd "$a/debs" && apt-get download -qq openjdk-17-jre-headless:arm64 libstdc++6:arm64 libgcc-s1:arm64 >/dev/null 2>&1) ||
            { echo "cross-test: cannot download the arm64 JDK" >&2; return 1; }
        for deb in "$a"/debs/*.deb; do dpkg -x "$deb" "$a/root"; done
        touch "$a/ok"
    fi
    j=$(ls -d "$a"/root/usr/lib/jvm/java-17-openjdk-arm64)
    echo "arm64 JVM: $(LD_LIBRARY_PATH=$a/root/usr/lib/aarch64-linux-gnu "$(emulator linux-aarch64)" "$j/bin/java" -version 2>&1 | sed -n 2p)"
    out=$(LD_LIBRARY_PATH=$a/root/usr/lib/aarch64-linux-gnu timeout 300 "$(emulator linux-aarch64)" \
        "$j/bin/java" -cp "$JAR:$ROOT/java/target/test-classes" dev.tachy.httpserver.FallbackProbe 2>&1) || true
    echo "$out"
    grep -qx "server=dev.tachy.httpserver.TachyHttpServer" <<<"$out" && grep -qx "body=fallback-ok" <<<"$out" &&
        grep -qx "platform=linux-aarch64" <<<"$out"
}

summary=()
fail=0
for p in "${PLATFORMS[@]}"; do
    t=$(zig_target "$p")
    printf '\n---- %s (%s) ----\n' "$p" "$t"
    deps "$p" "$t"
    d=$ROOT/build/cross/deps/$p
    b=$ROOT/build/cross/test-$p
    emu=$(emulator "$p")
    # musl: dynamically linked against Debian's musl loader/libc (Zig links musl programs
    # statically unless told), as programs on Alpine are
    dyn=
    case "$p" in *-musl) dyn=-dynamic ;; esac
    # OpenSSL headers only (the core dlopen()s libssl); OPENSSL_*_LIBRARY satisfy
    # find_package(OpenSSL) and are linked by test_tls and test_h2 alone, not built here.
    [ -d "$ROOT/build/cross/include/openssl" ] || scripts/cross.sh "$p" >/dev/null
    # cmocka from $d only (tests/CMakeLists.txt finds it with pkg-config); no link-time
    # optimisation: a test build, and LTO of every test program costs minutes here
    PKG_CONFIG_LIBDIR=$d/lib/pkgconfig PKG_CONFIG_PATH= cmake -S "$ROOT" -B "$b" -G Ninja \
        -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/zig-toolchain.cmake" -DTACHY_ZIG_TARGET="$t" -DTACHY_ZIG="$ZIG" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACHY_LTO=OFF -DTACHY_BUILD_JNI=OFF -DTACHY_BUILD_TESTS=ON -DTACHY_BUILD_EXAMPLES=ON \
        -DCMAKE_CROSSCOMPILING_EMULATOR="$emu" -DCMAKE_EXE_LINKER_FLAGS="$dyn" \
        -DZLIB_INCLUDE_DIR="$d/include" -DZLIB_LIBRARY="$d/lib/libz.a" \
        -DOPENSSL_INCLUDE_DIR="$ROOT/build/cross/include" \
        -DOPENSSL_SSL_LIBRARY="$d/lib/libz.a" -DOPENSSL_CRYPTO_LIBRARY="$d/lib/libz.a" \
        -DPKG_CONFIG_USE_CMAKE_PREFIX_PATH=OFF \
        >"$b.configure.log" 2>&1 || { cat "$b.configure.log" >&2; exit 1; }
    tests=()
    for f in tests/test_*.c; do
        n=$(basename "$f" .c)
        [ "$n" = test_tls ] || [ "$n" = test_h2 ] || tests+=("$n")
    done
    cmake --build "$b" -j "$JOBS" --target "${tests[@]}" tachy-hello tachy-fileserver >"$b.build.log" 2>&1 ||
        { tail -50 "$b.build.log" >&2; exit 1; }
    t0=$(date +%s)
    c="C suite passed"
    if [ -z "$emu" ]; then
        (cd "$b" && ctest -j "$JOBS" --output-on-failure -E '^test_(tls|h2)$') || c="C suite FAILED"
    else
        # Under emulation every step is several times slower: the suites that bound a
        # latency (test_burst: 100 ms per request) widen it (test_burst.c, slow_factor).
        export TACHY_TEST_SLOW=${TACHY_TEST_SLOW:-4}
        # test_fileserver starts tachy-fileserver itself: an aarch64 program the kernel here
        # cannot exec (no binfmt_misc in a container), so it gets a script that runs it
        # under qemu; ctest's environment for it is fixed at configure time, so that one
        # test runs outside ctest.
        (cd "$b" && ctest -j "$JOBS" --output-on-failure -E '^test_(tls|fileserver|h2)$') || c="C suite FAILED"
        printf '#!/bin/sh\nexec %s %s "$@"\n' "$emu" "$b/examples/tachy-fileserver" >"$b/tachy-fileserver-qemu"
        chmod +x "$b/tachy-fileserver-qemu"
        echo "test_fileserver (tachy-fileserver under $emu):"
        TACHY_FILESERVER=$b/tachy-fileserver-qemu timeout 300 "$emu" "$b/tests/test_fileserver" || c="C suite FAILED"
    fi
    c="$c ($(( $(date +%s) - t0 )) s)"
    case "$c" in *FAILED*) fail=1 ;; esac
    # the shipped JNI library, loaded by a host program of the same platform
    lib=$NATIVES/$p/libtachy_jni.so
    [ -f "$lib" ] || { scripts/cross.sh --out "$NATIVES" "$p"; }
    host=$ROOT/build/cross/host/tachy-native-host-$p
    mkdir -p "$(dirname "$host")"
    "$ZIG" cc -target "$t" $dyn -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror \
        -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" -o "$host" tests/native-host/host.c -ldl -lpthread
    ldpath=
    case "$p" in *-musl) ldpath=$d/shared ;; esac # musl's libz.so.1 (glibc's is the system's)
    if LD_LIBRARY_PATH=$ldpath timeout 120 $emu "$host" "$lib"; then
        j="JNI library served a request"
    else
        j="JNI library FAILED"
        fail=1
    fi
    # a real JVM of the platform where Debian has one that runs here: arm64 OpenJDK 17 under
    # qemu-aarch64 loads the jar's linux-aarch64 library and serves a request
    if [ "$p" = linux-aarch64 ]; then
        if [ -f "$JAR" ] && [ -d "$ROOT/java/target/test-classes" ]; then
            if arm64_jvm_probe; then j="$j; arm64 JVM served a request"; else j="$j; arm64 JVM FAILED"; fail=1; fi
        else
            j="$j; arm64 JVM skipped (no $JAR / test classes: run mvn package first)"
        fi
    fi
    summary+=("$p: $c; $j")
done
printf '\n'
for s in "${summary[@]}"; do echo "cross-test: $s"; done
[ $fail = 0 ] && echo "cross-test: all platforms passed" || { echo "cross-test: FAILED" >&2; exit 1; }
