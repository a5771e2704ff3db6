# cmake/zig-toolchain.cmake - cross-compiles tachy with Zig's C toolchain (clang + the libcs
# Zig ships: glibc stubs of any version, musl), for the JNI natives of the jar.
#
#   cmake -S . -B build/cross/linux-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/zig-toolchain.cmake \
#         -DTACHY_ZIG_TARGET=aarch64-linux-gnu.2.17
#
# TACHY_ZIG_TARGET is a Zig target triple: x86_64-linux-gnu.2.17, aarch64-linux-gnu.2.17,
# x86_64-linux-musl, aarch64-linux-musl. TACHY_ZIG is the zig executable (default: the one of
# the `ziglang` Python package, else `zig` on PATH). scripts/cross.sh drives this file.
#
# There is no sysroot: the target's C library comes from Zig. Headers the target does not
# provide (zlib, OpenSSL, JNI) must be passed as include directories that hold only those
# headers - never /usr/include, whose glibc headers would leak into a musl build.
cmake_minimum_required(VERSION 3.18)

if(NOT TACHY_ZIG_TARGET)
  message(FATAL_ERROR "zig-toolchain.cmake: set -DTACHY_ZIG_TARGET=<arch>-linux-<gnu.2.17|musl>")
endif()
# try_compile projects see these too
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TACHY_ZIG_TARGET TACHY_ZIG)

if(NOT TACHY_ZIG)
  execute_process(
    COMMAND python3 -c "import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), 'zig'))"
    OUTPUT_VARIABLE _tachy_zig OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _tachy_rc)
  if(_tachy_rc EQUAL 0 AND EXISTS "${_tachy_zig}")
    set(TACHY_ZIG "${_tachy_zig}")
  else()
    find_program(TACHY_ZIG zig)
  endif()
endif()
if(NOT TACHY_ZIG)
  message(FATAL_ERROR "zig-toolchain.cmake: no zig (pip install ziglang)")
endif()

string(REGEX MATCH "^[a-z0-9_]+" CMAKE_SYSTEM_PROCESSOR "${TACHY_ZIG_TARGET}")
set(CMAKE_SYSTEM_NAME Linux)

# The compiler is `zig cc -target T` (a list: CMake passes the mandatory arguments first).
set(CMAKE_C_COMPILER "${TACHY_ZIG}" cc -target ${TACHY_ZIG_TARGET})
# zig ar/ranlib take the same arguments as binutils'; CMake wants one file for each, so
# the toolchain goes through small scripts next to this file.
set(CMAKE_AR "${CMAKE_CURRENT_LIST_DIR}/zig-ar.sh" CACHE FILEPATH "zig ar")
set(CMAKE_RANLIB "${CMAKE_CURRENT_LIST_DIR}/zig-ranlib.sh" CACHE FILEPATH "zig ranlib")

# Host programs and libraries are never the target's: look for libraries and headers only
# where the caller points (ZLIB_*, OPENSSL_*, JAVA_HOME), not in /usr.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
