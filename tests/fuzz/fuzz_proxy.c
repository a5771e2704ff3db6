/*
 * fuzz_proxy.c - libFuzzer harness for the PROXY protocol codec (tachy__proxy_parse,
 * edge/proxy.c).
 *
 * Input: one byte choosing a prefix length (as a fraction of the rest), then the bytes
 * that arrive on a connection. The whole input and the prefix are each parsed from an
 * exact-size allocation, so AddressSanitizer catches any read past the end. Properties:
 * the verdicts are the codec's three; an error has a reason; a header is never longer
 * than the input, nor a v1 header longer than 107 bytes, and a v2 header is 16 bytes plus
 * its length field; the addresses match the family; the TLVs lie inside the header; and
 * the verdict only moves forward as bytes arrive - a prefix that is complete or an error
 * says what the whole input says, a prefix shorter than a complete header is incomplete.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "edge/edge.h"
#include "fuzz_util.h"

static int parse_copy(const uint8_t *p, size_t n, tachy__proxy *h, const char **why) {
    char *copy = malloc(n ? n : 1);
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, p, n);
    int r = tachy__proxy_parse(copy, n, h, why);
    FUZZ_CHECK(r > 0 || r == TACHY__PROXY_INCOMPLETE || r == TACHY__PROXY_ERROR);
    FUZZ_CHECK((r == TACHY__PROXY_ERROR) == (*why != NULL));
    if (r > 0) {
        FUZZ_CHECK((size_t)r <= n);
        FUZZ_CHECK(h->version == 1 || h->version == 2);
        if (h->version == 1)
            FUZZ_CHECK(r <= TACHY__PROXY_V1_MAX && copy[r - 2] == '\r' && copy[r - 1] == '\n');
        else
            FUZZ_CHECK((size_t)r == 16 + ((size_t)(uint8_t)copy[14] << 8 | (uint8_t)copy[15]));
        if (!h->local) {
            FUZZ_CHECK(h->family == AF_INET || h->family == AF_INET6);
            FUZZ_CHECK(h->src.sa.sa_family == h->family && h->dst.sa.sa_family == h->family);
            FUZZ_CHECK(h->addr_len == (h->family == AF_INET ? sizeof(struct sockaddr_in)
                                                            : sizeof(struct sockaddr_in6)));
        } else {
            FUZZ_CHECK(h->addr_len == 0);
        }
        if (h->tlv) {
            FUZZ_CHECK(h->version == 2 && h->ntlv > 0);
            FUZZ_CHECK(h->tlv >= (const uint8_t *)copy + 16 &&
                       h->tlv + h->tlv_len == (const uint8_t *)copy + r);
        } else {
            FUZZ_CHECK(h->ntlv == 0 && h->tlv_len == 0);
        }
    }
    free(copy);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_in in = {data, size};
    uint8_t frac = fuzz_u8(&in);
    size_t k = in.n * frac / 256;
    tachy__proxy h, hk;
    const char *why = NULL, *whyk = NULL;
    int r = parse_copy(in.p, in.n, &h, &why);
    int rk = parse_copy(in.p, k, &hk, &whyk);
    if (rk > 0)
        FUZZ_CHECK(r == rk);
    if (rk == TACHY__PROXY_ERROR)
        FUZZ_CHECK(r == TACHY__PROXY_ERROR);
    if (r == TACHY__PROXY_INCOMPLETE)
        FUZZ_CHECK(rk == TACHY__PROXY_INCOMPLETE);
    if (r > 0 && k < (size_t)r)
        FUZZ_CHECK(rk == TACHY__PROXY_INCOMPLETE);
    if (r > 0 && r == rk) /* the same header, the same addresses */
        FUZZ_CHECK(memcmp(&h.src, &hk.src, sizeof h.src) == 0 && h.local == hk.local);
    return 0;
}
