/*
 * tachy/export.h - symbol visibility.
 *
 * libtachy is built with -fvisibility=hidden; only declarations marked TACHY_API are
 * exported from the shared library. A static build defines TACHY_STATIC (the CMake
 * target does it for its users), in which case TACHY_API expands to nothing special.
 */
#ifndef TACHY_EXPORT_H
#define TACHY_EXPORT_H

#if defined(TACHY_BUILDING) || defined(TACHY_STATIC)
#define TACHY_API __attribute__((visibility("default")))
#else
#define TACHY_API
#endif

#endif
