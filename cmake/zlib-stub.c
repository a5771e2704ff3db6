/*
 * cmake/zlib-stub.c - a link-time stand-in for libz.so.1 in cross builds.
 *
 * The cross-built libtachy_jni is linked against this stub (built as libz.so with the
 * soname libz.so.1) so that it records `NEEDED libz.so.1` and unversioned references to the
 * zlib functions below. At run time the dynamic linker binds them to the system's real
 * zlib; this file is never loaded. No function here is ever called: each one aborts.
 *
 * Only the names matter. A zlib function the core starts to use and that is missing here
 * fails the link of libtachy_jni (it links with --no-undefined), so this list cannot go stale
 * silently. zlib's ABI has been stable since 1.2.0 (2003).
 */
#include <stdlib.h>

#define TACHY_ZSTUB(name)                                                                       \
    void name(void);                                                                            \
    void name(void) { abort(); }

TACHY_ZSTUB(deflate)
TACHY_ZSTUB(deflateEnd)
TACHY_ZSTUB(deflateInit2_)
TACHY_ZSTUB(deflateReset)
TACHY_ZSTUB(inflate)
TACHY_ZSTUB(inflateEnd)
TACHY_ZSTUB(inflateGetDictionary)
TACHY_ZSTUB(inflateInit2_)
TACHY_ZSTUB(inflateReset)
TACHY_ZSTUB(inflateSetDictionary)
TACHY_ZSTUB(zlibVersion)
