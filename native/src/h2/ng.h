/*
 * h2/ng.h - libnghttp2 as h2/ sees it: the part of its C ABI that tachy uses, declared
 * here, and the table of functions ng.c resolves with dlsym. Private to h2/: only h2/
 * speaks nghttp2 (the frames, HPACK, flow-control windows and the stream states of RFC
 * 9113); tachy keeps the threads, the sockets and the exchanges.
 *
 * Why dlopen (as tls/ does with libssl) and not a static build: the jar's four natives are
 * cross-built with Zig's toolchain for glibc 2.17 and musl, and a system libnghttp2 is what
 * every distribution already ships (curl needs it): loading "libnghttp2.so.14" at the first
 * HTTP/2 connection costs plain HTTP/1.1 servers nothing, needs no nghttp2 headers or
 * library at build time, and where the library is missing the server speaks HTTP/1.1 alone
 * and says so once (tachy__ng_ready). The soname 14 has kept this ABI since nghttp2 1.0
 * (2015); every function and struct below exists unchanged in Debian 12's 1.52, which is
 * older than the nghttp2_ssize API of 1.60 (not used). Functions added after 1.0 that tachy
 * can do without are optional (NULL when absent).
 */
#ifndef TACHY__SRC_H2_NG_H
#define TACHY__SRC_H2_NG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct nghttp2_session nghttp2_session;
typedef struct nghttp2_session_callbacks nghttp2_session_callbacks;
typedef struct nghttp2_option nghttp2_option;

typedef struct {
    size_t length;
    int32_t stream_id;
    uint8_t type;
    uint8_t flags;
    uint8_t reserved;
} nghttp2_frame_hd;

/* Every frame struct of nghttp2_frame begins with its header; h2/ reads nothing else of a
 * received frame, so the union is declared with that member only (it is only ever read
 * through a pointer nghttp2 passes). */
typedef union {
    nghttp2_frame_hd hd;
} nghttp2_frame;

typedef struct {
    uint8_t *name;
    uint8_t *value;
    size_t namelen;
    size_t valuelen;
    uint8_t flags;
} nghttp2_nv;

typedef struct {
    int32_t settings_id;
    uint32_t value;
} nghttp2_settings_entry;

typedef union {
    int fd;
    void *ptr;
} nghttp2_data_source;

typedef ssize_t (*nghttp2_data_source_read_callback)(nghttp2_session *session, int32_t stream_id,
                                                     uint8_t *buf, size_t length,
                                                     uint32_t *data_flags,
                                                     nghttp2_data_source *source, void *user_data);
typedef struct {
    nghttp2_data_source source;
    nghttp2_data_source_read_callback read_callback;
} nghttp2_data_provider;

/* The allocator a session is created with (nghttp2_session_server_new3): nghttp2 copies
 * the struct and calls these with mem_user_data from then on. */
typedef void *(*nghttp2_malloc)(size_t size, void *mem_user_data);
typedef void (*nghttp2_free)(void *ptr, void *mem_user_data);
typedef void *(*nghttp2_calloc)(size_t nmemb, size_t size, void *mem_user_data);
typedef void *(*nghttp2_realloc)(void *ptr, size_t size, void *mem_user_data);
typedef struct {
    void *mem_user_data;
    nghttp2_malloc malloc;
    nghttp2_free free;
    nghttp2_calloc calloc;
    nghttp2_realloc realloc;
} nghttp2_mem;

typedef struct {
    int age;
    int version_num;
    const char *version_str;
    const char *proto_str;
} nghttp2_info;

typedef int (*nghttp2_on_begin_frame_callback)(nghttp2_session *, const nghttp2_frame_hd *, void *);
typedef int (*nghttp2_on_frame_recv_callback)(nghttp2_session *, const nghttp2_frame *, void *);
typedef int (*nghttp2_on_begin_headers_callback)(nghttp2_session *, const nghttp2_frame *, void *);
typedef int (*nghttp2_on_header_callback)(nghttp2_session *, const nghttp2_frame *,
                                          const uint8_t *name, size_t namelen,
                                          const uint8_t *value, size_t valuelen, uint8_t flags,
                                          void *);
typedef int (*nghttp2_on_data_chunk_recv_callback)(nghttp2_session *, uint8_t flags,
                                                   int32_t stream_id, const uint8_t *data,
                                                   size_t len, void *);
typedef int (*nghttp2_on_stream_close_callback)(nghttp2_session *, int32_t stream_id,
                                                uint32_t error_code, void *);

enum {
    NGHTTP2_ERR_WOULDBLOCK = -504,
    NGHTTP2_ERR_DEFERRED = -508,
    NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE = -521,
    NGHTTP2_ERR_CALLBACK_FAILURE = -902,
    NGHTTP2_ERR_BAD_CLIENT_MAGIC = -903,
    NGHTTP2_ERR_FLOODED = -904,
    /* 1.61's own CONTINUATION bound (CVE-2024-27316), also in distributions' patched 1.52
     * (Debian 12's stops at 8 CONTINUATIONs): no GOAWAY is queued for it. */
    NGHTTP2_ERR_TOO_MANY_CONTINUATIONS = -905,
};
enum {
    NGHTTP2_FLAG_NONE = 0,
    NGHTTP2_FLAG_END_STREAM = 0x01,
    NGHTTP2_FLAG_ACK = 0x01,
    NGHTTP2_FLAG_END_HEADERS = 0x04,
};
enum {
    NGHTTP2_DATA = 0,
    NGHTTP2_HEADERS = 1,
    NGHTTP2_RST_STREAM = 3,
    NGHTTP2_SETTINGS = 4,
    NGHTTP2_CONTINUATION = 9,
};
enum {
    NGHTTP2_DATA_FLAG_NONE = 0,
    NGHTTP2_DATA_FLAG_EOF = 0x01,
};
enum {
    NGHTTP2_SETTINGS_HEADER_TABLE_SIZE = 1,
    NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS = 3,
    NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE = 4,
    NGHTTP2_SETTINGS_MAX_FRAME_SIZE = 5,
    NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE = 6,
};
enum {
    NGHTTP2_NO_ERROR = 0,
    NGHTTP2_PROTOCOL_ERROR = 1,
    NGHTTP2_INTERNAL_ERROR = 2,
    NGHTTP2_FLOW_CONTROL_ERROR = 3,
    NGHTTP2_REFUSED_STREAM = 7,
    NGHTTP2_CANCEL = 8,
    NGHTTP2_ENHANCE_YOUR_CALM = 0xb,
};
enum { NGHTTP2_NV_FLAG_NONE = 0, NGHTTP2_NV_FLAG_NO_INDEX = 1, NGHTTP2_NV_FLAG_NO_COPY_NAME = 2 };

/* X(required, return type, name, parameters) */
#define TACHY_NGHTTP2_FNS(X)                                                                      \
    X(1, nghttp2_info *, nghttp2_version, (int))                                                  \
    X(1, const char *, nghttp2_strerror, (int))                                                   \
    X(1, int, nghttp2_session_callbacks_new, (nghttp2_session_callbacks **))                      \
    X(1, void, nghttp2_session_callbacks_del, (nghttp2_session_callbacks *))                      \
    X(1, void, nghttp2_session_callbacks_set_on_begin_frame_callback,                             \
      (nghttp2_session_callbacks *, nghttp2_on_begin_frame_callback))                             \
    X(1, void, nghttp2_session_callbacks_set_on_frame_recv_callback,                              \
      (nghttp2_session_callbacks *, nghttp2_on_frame_recv_callback))                              \
    X(1, void, nghttp2_session_callbacks_set_on_begin_headers_callback,                           \
      (nghttp2_session_callbacks *, nghttp2_on_begin_headers_callback))                           \
    X(1, void, nghttp2_session_callbacks_set_on_header_callback,                                  \
      (nghttp2_session_callbacks *, nghttp2_on_header_callback))                                  \
    X(1, void, nghttp2_session_callbacks_set_on_data_chunk_recv_callback,                         \
      (nghttp2_session_callbacks *, nghttp2_on_data_chunk_recv_callback))                         \
    X(1, void, nghttp2_session_callbacks_set_on_stream_close_callback,                            \
      (nghttp2_session_callbacks *, nghttp2_on_stream_close_callback))                            \
    X(1, int, nghttp2_option_new, (nghttp2_option **))                                            \
    X(1, void, nghttp2_option_del, (nghttp2_option *))                                            \
    X(1, void, nghttp2_option_set_no_auto_window_update, (nghttp2_option *, int))                 \
    X(0, void, nghttp2_option_set_max_settings, (nghttp2_option *, size_t))                       \
    X(0, void, nghttp2_option_set_max_outbound_ack, (nghttp2_option *, size_t))                   \
    X(1, int, nghttp2_session_server_new3,                                                        \
      (nghttp2_session **, const nghttp2_session_callbacks *, void *, const nghttp2_option *,     \
       nghttp2_mem *))                                                                            \
    X(1, void, nghttp2_session_del, (nghttp2_session *))                                          \
    X(1, ssize_t, nghttp2_session_mem_recv, (nghttp2_session *, const uint8_t *, size_t))         \
    X(1, ssize_t, nghttp2_session_mem_send, (nghttp2_session *, const uint8_t **))                \
    X(1, int, nghttp2_session_want_read, (nghttp2_session *))                                     \
    X(1, int, nghttp2_session_want_write, (nghttp2_session *))                                    \
    X(1, int, nghttp2_session_upgrade2,                                                           \
      (nghttp2_session *, const uint8_t *, size_t, int, void *))                                  \
    X(1, int, nghttp2_submit_settings,                                                            \
      (nghttp2_session *, uint8_t, const nghttp2_settings_entry *, size_t))                       \
    X(1, int, nghttp2_submit_response,                                                            \
      (nghttp2_session *, int32_t, const nghttp2_nv *, size_t, const nghttp2_data_provider *))    \
    X(1, int32_t, nghttp2_submit_headers,                                                         \
      (nghttp2_session *, uint8_t, int32_t, const void *, const nghttp2_nv *, size_t, void *))    \
    X(1, int, nghttp2_submit_rst_stream, (nghttp2_session *, uint8_t, int32_t, uint32_t))         \
    X(1, int, nghttp2_submit_goaway,                                                              \
      (nghttp2_session *, uint8_t, int32_t, uint32_t, const uint8_t *, size_t))                   \
    X(1, int, nghttp2_submit_window_update, (nghttp2_session *, uint8_t, int32_t, int32_t))       \
    X(1, int, nghttp2_session_terminate_session, (nghttp2_session *, uint32_t))                   \
    X(1, int, nghttp2_session_resume_data, (nghttp2_session *, int32_t))                          \
    X(1, int, nghttp2_session_consume_connection, (nghttp2_session *, size_t))                    \
    X(1, int, nghttp2_session_consume_stream, (nghttp2_session *, int32_t, size_t))               \
    X(1, int, nghttp2_session_set_stream_user_data, (nghttp2_session *, int32_t, void *))         \
    X(1, void *, nghttp2_session_get_stream_user_data, (nghttp2_session *, int32_t))              \
    X(1, int32_t, nghttp2_session_get_last_proc_stream_id, (nghttp2_session *))

struct tachy__ng_fns {
#define X(req, ret, name, params) ret(*name) params;
    TACHY_NGHTTP2_FNS(X)
#undef X
};
extern struct tachy__ng_fns tachy__ng;

/* Loads libnghttp2 once per process (any thread): 0, or TACHY_ENOTSUP when it cannot be
 * loaded (reported on stderr once, with the reason; HTTP/2 is then off and connections
 * speak HTTP/1.1). */
int tachy__ng_ready(void);
/* The loaded library's version ("1.52.0"), or NULL before a successful tachy__ng_ready. */
const char *tachy__ng_version(void);

/* NG(nghttp2_session_del)(s): a call through the table. */
#define NG(f) (tachy__ng.f)

#endif
