/*
 * fuzz_util.h - small helpers shared by the libFuzzer harnesses (tests/fuzz/).
 *
 * A harness checks properties, not just "no crash": when one fails, FUZZ_CHECK prints
 * what failed and aborts, which libFuzzer reports as a crash with the input saved.
 */
#ifndef TACHY_FUZZ_UTIL_H
#define TACHY_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond);            \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Takes bytes off the front of the input for the harness's own choices (limits, split
 * points); what is left is the data under test. Reading past the end yields zeros. */
typedef struct fuzz_in {
    const uint8_t *p;
    size_t n;
} fuzz_in;

static inline uint8_t fuzz_u8(fuzz_in *in) {
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

static inline uint16_t fuzz_u16(fuzz_in *in) {
    uint16_t hi = fuzz_u8(in);
    return (uint16_t)(hi << 8 | fuzz_u8(in));
}

static inline uint32_t fuzz_u32(fuzz_in *in) {
    uint32_t hi = fuzz_u16(in);
    return hi << 16 | fuzz_u16(in);
}

#endif
