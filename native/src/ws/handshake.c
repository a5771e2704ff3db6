/*
 * ws/handshake.c - the server's opening handshake (RFC 6455 4.2.1, subprotocol selection,
 * RFC 7692 negotiation): checks the upgrade request, answers 4xx or 101, makes the
 * tachy_ws and upgrades the exchange. Called by tachy_ws_serve and tachy_ws_attach
 * (reader.c) on the thread that runs the handler.
 */
#include "ws/ws.h"

#include <stdio.h>
#include <string.h>

#define MAX_HDR_VALUES 16 /* Sec-WebSocket-Extensions / -Protocol header lines read */

static int refuse(tachy_exchange *ex, int status, const char *why) {
    tachy_headers *rh = tachy_exchange_response_headers(ex);
    if (status == 405)
        tachy_headers_set(rh, "Allow", "GET");
    if (status == 426) {
        tachy_headers_set(rh, "Sec-WebSocket-Version", "13");
        tachy_headers_set(rh, "Upgrade", "websocket");
    }
    tachy_headers_set(rh, "Content-Type", "text/plain; charset=utf-8");
    size_t len = strlen(why);
    int rc = tachy_exchange_send_response_headers(ex, status, (int64_t)len);
    if (rc == 0)
        tachy_exchange_write(ex, why, len);
    tachy_exchange_close(ex);
    return TACHY_EPROTO;
}

/* "HTTP/x.y" with x.y >= 1.1. */
static int http11_or_later(const char *proto) {
    int major, minor;
    if (!proto || sscanf(proto, "HTTP/%d.%d", &major, &minor) != 2)
        return 0;
    return major > 1 || (major == 1 && minor >= 1);
}

static int any_value_has(const tachy_headers *h, const char *name, const char *token) {
    const char *vals[MAX_HDR_VALUES];
    size_t n = tachy_headers_values(h, name, vals, MAX_HDR_VALUES);
    if (n > MAX_HDR_VALUES)
        n = MAX_HDR_VALUES;
    for (size_t i = 0; i < n; i++)
        if (tachy__ws_has_token(vals[i], token))
            return 1;
    return 0;
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* The handshake (RFC 6455 4.2.1, subprotocol, RFC 7692), the 101 and the upgrade:
 * *out is the new connection object with ws->stream set. 0, TACHY_EPROTO (refused: the
 * 4xx went out) or another TACHY_E* (nothing made). */
int tachy__ws_handshake(tachy_exchange *ex, const tachy_ws_options *opt, int keeps_thread,
                        tachy_ws **out) {
    *out = NULL;
    if (!ex)
        return TACHY_EINVAL;
    if (tachy_exchange_response_code(ex) != -1)
        return TACHY_EHDRSENT;

    /* RFC 6455 4.2.1 */
    const char *method = tachy_exchange_request_method(ex);
    if (!method || strcmp(method, "GET") != 0)
        return refuse(ex, 405, "WebSocket upgrade requires GET\n");
    if (!http11_or_later(tachy_exchange_protocol(ex)))
        return refuse(ex, 400, "WebSocket upgrade requires HTTP/1.1\n");
    tachy_headers *h = tachy_exchange_request_headers(ex);
    if (!tachy_headers_first(h, "Host"))
        return refuse(ex, 400, "Missing Host header\n");
    if (!any_value_has(h, "Upgrade", "websocket"))
        return refuse(ex, 400, "Missing Upgrade: websocket\n");
    if (!any_value_has(h, "Connection", "upgrade"))
        return refuse(ex, 400, "Missing Connection: Upgrade\n");
    const char *vals[MAX_HDR_VALUES];
    size_t nv = tachy_headers_values(h, "Sec-WebSocket-Version", vals, MAX_HDR_VALUES);
    if (nv != 1 || strcmp(vals[0], "13") != 0)
        return refuse(ex, 426, "Unsupported WebSocket version: 13 is required\n");
    nv = tachy_headers_values(h, "Sec-WebSocket-Key", vals, MAX_HDR_VALUES);
    unsigned char raw[20];
    if (nv != 1 || strlen(vals[0]) != 24 || tachy__base64_decode(vals[0], 24, raw) != 16)
        return refuse(ex, 400, "Bad Sec-WebSocket-Key\n");
    char accept[29];
    tachy__ws_accept_key(vals[0], 24, accept);

    /* 64-byte aligned: the broadcast fields share the first cache lines (see the struct) */
    tachy_ws *ws = aligned_alloc(64, (sizeof *ws + 63) / 64 * 64);
    if (!ws)
        return TACHY_ENOMEM;
    memset(ws, 0, sizeof *ws);
    ws->fd = -1;
    pthread_mutex_init(&ws->lock, NULL);
    tachy__cond_init(&ws->cond);
    ws->refs = 1;
    ws->opt = *opt;
    ws->ex = ex;
    ws->user = opt->user;
    if (ws->opt.deflate_mem_level < 1 || ws->opt.deflate_mem_level > 9)
        ws->opt.deflate_mem_level = 8;
    if (ws->opt.deflate_level < 0 || ws->opt.deflate_level > 9)
        ws->opt.deflate_level = 1;
    if (ws->opt.max_message_size == 0)
        ws->opt.max_message_size = SIZE_MAX;

    tachy_headers *rh = tachy_exchange_response_headers(ex);
    int rc = 0;
    nv = tachy_headers_values(h, "Sec-WebSocket-Protocol", vals, MAX_HDR_VALUES);
    int sel = tachy__ws_select_subprotocol(vals, nv < MAX_HDR_VALUES ? nv : MAX_HDR_VALUES,
                                           opt->subprotocols, opt->num_subprotocols);
    if (sel >= 0) {
        ws->subprotocol = dup_str(opt->subprotocols[sel]);
        if (!ws->subprotocol)
            rc = TACHY_ENOMEM;
        else
            rc = tachy_headers_set(rh, "Sec-WebSocket-Protocol", ws->subprotocol);
    }
    tachy__ws_pmd cfg = {opt->deflate, opt->server_no_context_takeover,
                         opt->client_no_context_takeover, opt->server_max_window_bits, 15};
    char ext[160];
    nv = tachy_headers_values(h, "Sec-WebSocket-Extensions", vals, MAX_HDR_VALUES);
    if (rc == 0 && tachy__ws_pmd_negotiate(vals, nv < MAX_HDR_VALUES ? nv : MAX_HDR_VALUES, &cfg,
                                           &ws->pmd, ext, sizeof ext)) {
        ws->extensions = dup_str(ext);
        if (!ws->extensions)
            rc = TACHY_ENOMEM;
        else
            rc = tachy_headers_set(rh, "Sec-WebSocket-Extensions", ext);
    }
    if (rc == 0)
        rc = tachy_headers_set(rh, "Upgrade", "websocket");
    if (rc == 0)
        rc = tachy_headers_set(rh, "Connection", "Upgrade");
    if (rc == 0)
        rc = tachy_headers_set(rh, "Sec-WebSocket-Accept", accept);
    if (rc == 0)
        rc = tachy_exchange_send_response_headers(ex, 101, -1);
    tachy_stream *stream = NULL;
    if (rc == 0)
        rc = tachy__exchange_upgrade(ex, &stream, keeps_thread);
    if (rc < 0) {
        tachy_ws_release(ws);
        return rc;
    }
    /* The broadcast's fast path writes the socket itself. A TLS stream must go through
     * tachy_stream_write (it encrypts), so it gets no descriptor here: -1 sends its
     * broadcasts through the stream with the blocking rules. */
    ws->fd = tachy_exchange_is_secure(ex) ? -1 : tachy_stream_fd(stream);
    ws->stream = stream; /* no other thread has the handle before on_open */
    *out = ws;
    return 0;
}
