/*
 * jni/natives.c - the native methods of dev.tachy.httpserver.Native.
 *
 * Each method is one C API call (or a short loop of them): it returns what the C function
 * returned, and Java turns negative TACHY_E* codes into exceptions (Native.ioException).
 * Handles travel as jlong. Body bytes cross with Get/SetByteArrayRegion through a stack
 * buffer: no JNI critical section is ever held across the core's socket I/O.
 */
#include "bridge.h"

#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PTR(type, j) ((type *)(intptr_t)(j))
#define COPY_CHUNK 16384 /* bytes copied per array-region call */
#define OPT_DEFAULT INT64_MIN

/* ---- library --------------------------------------------------------------------------- */

static jstring JNICALL n_version(JNIEnv *env, jclass cls) {
    (void)cls;
    return (*env)->NewStringUTF(env, tachy_version());
}

static jstring JNICALL n_strerror(JNIEnv *env, jclass cls, jint code) {
    (void)cls;
    return (*env)->NewStringUTF(env, tachy_strerror(code));
}

static jstring JNICALL n_err_name(JNIEnv *env, jclass cls, jint code) {
    (void)cls;
    return (*env)->NewStringUTF(env, tachy_err_name(code));
}

/*
 * The JDK's own provider (sun.net.httpserver.DefaultHttpServerProvider), for the HTTPS
 * fallback (an SSLContext or configurator the native OpenSSL path cannot serve, see
 * TachyHttpsServer): jdk.httpserver does not export that package, and
 * JNI is not subject to module access checks. Returns NULL with an exception pending if the
 * class is missing.
 */
static jobject JNICALL n_jdk_provider(JNIEnv *env, jclass cls) {
    (void)cls;
    jclass c = (*env)->FindClass(env, "sun/net/httpserver/DefaultHttpServerProvider");
    if (c == NULL) {
        return NULL;
    }
    jmethodID init = (*env)->GetMethodID(env, c, "<init>", "()V");
    if (init == NULL) {
        return NULL;
    }
    return (*env)->NewObject(env, c, init);
}

/* ---- server ------------------------------------------------------------------------------- */

static jlong JNICALL n_server_create(JNIEnv *env, jclass cls, jlongArray jopts) {
    (void)cls;
    jlong v[TACHY_JNI_OPT_COUNT];
    for (int i = 0; i < TACHY_JNI_OPT_COUNT; i++) {
        v[i] = OPT_DEFAULT;
    }
    if (jopts != NULL) {
        jsize n = (*env)->GetArrayLength(env, jopts);
        if (n > TACHY_JNI_OPT_COUNT) {
            n = TACHY_JNI_OPT_COUNT;
        }
        (*env)->GetLongArrayRegion(env, jopts, 0, n, v);
        if ((*env)->ExceptionCheck(env)) {
            return TACHY_EINVAL;
        }
    }
    tachy_options o;
    tachy_options_init(&o);
#define SET(idx, field, type)                                                                  \
    if (v[idx] != OPT_DEFAULT) {                                                               \
        o.field = (type)v[idx];                                                                \
    }
    SET(TACHY_JNI_OPT_MAX_REQ_HEADERS, max_req_headers, int)
    SET(TACHY_JNI_OPT_MAX_REQ_HEADER_SIZE, max_req_header_size, int)
    SET(TACHY_JNI_OPT_MAX_REQ_TIME_MS, max_req_time_ms, long)
    SET(TACHY_JNI_OPT_MAX_RSP_TIME_MS, max_rsp_time_ms, long)
    SET(TACHY_JNI_OPT_IDLE_INTERVAL_MS, idle_interval_ms, long)
    SET(TACHY_JNI_OPT_MAX_IDLE_CONNECTIONS, max_idle_connections, int)
    SET(TACHY_JNI_OPT_MAX_CONNECTIONS, max_connections, int)
    SET(TACHY_JNI_OPT_DRAIN_AMOUNT, drain_amount, long)
    SET(TACHY_JNI_OPT_NODELAY, nodelay, int)
    SET(TACHY_JNI_OPT_THREAD_STACK_SIZE, thread_stack_size, size_t)
    SET(TACHY_JNI_OPT_THREAD_KEEPALIVE_MS, thread_keepalive_ms, long)
    SET(TACHY_JNI_OPT_HTTP10_KEEPALIVE_MAX, http10_keepalive_max, int)
#undef SET
    tachy_jni_server *js = calloc(1, sizeof *js);
    if (js == NULL) {
        return TACHY_ENOMEM;
    }
    js->log_min = v[TACHY_JNI_OPT_LOG_LEVEL] == OPT_DEFAULT ? 0 : (int)v[TACHY_JNI_OPT_LOG_LEVEL];
    o.on_thread_start = tachy_jni__thread_start;
    o.on_thread_stop = tachy_jni__thread_stop;
    o.thread_hook_user = NULL;
    o.log = js->log_min > 0 ? tachy_jni__log : NULL;
    o.log_user = js;
    tachy_server *srv = NULL;
    int rc = tachy_server_create_unbound(&srv, &o);
    if (rc < 0) {
        free(js);
        return rc;
    }
    return (jlong)(intptr_t)srv;
}

static jint JNICALL n_server_bind(JNIEnv *env, jclass cls, jlong srv, jstring jhost, jint port,
                                  jint backlog) {
    (void)cls;
    const char *host = NULL;
    if (jhost != NULL) {
        host = (*env)->GetStringUTFChars(env, jhost, NULL);
        if (host == NULL) {
            return TACHY_ENOMEM;
        }
    }
    int rc = tachy_server_bind(PTR(tachy_server, srv), host, port, backlog);
    if (host != NULL) {
        (*env)->ReleaseStringUTFChars(env, jhost, host);
    }
    return rc;
}

static jint JNICALL n_server_start(JNIEnv *env, jclass cls, jlong srv) {
    (void)env;
    (void)cls;
    return tachy_server_start(PTR(tachy_server, srv));
}

static jint JNICALL n_server_stop(JNIEnv *env, jclass cls, jlong srv, jint delay) {
    (void)env;
    (void)cls;
    return tachy_server_stop(PTR(tachy_server, srv), delay);
}

static void JNICALL n_server_destroy(JNIEnv *env, jclass cls, jlong srv) {
    (void)env;
    (void)cls;
    tachy_server *s = PTR(tachy_server, srv);
    if (s == NULL) {
        return;
    }
    const tachy_options *o = tachy_server_options(s);
    void *js = o != NULL ? o->log_user : NULL;
    tachy_server_destroy(s); /* no thread logs through js after this */
    free(js);
}

static jstring JNICALL n_server_host(JNIEnv *env, jclass cls, jlong srv) {
    (void)cls;
    char host[INET6_ADDRSTRLEN + 16];
    if (tachy_server_address(PTR(tachy_server, srv), host, sizeof host, NULL) < 0) {
        return NULL;
    }
    return (*env)->NewStringUTF(env, host);
}

static jint JNICALL n_server_port(JNIEnv *env, jclass cls, jlong srv) {
    (void)env;
    (void)cls;
    return tachy_server_port(PTR(tachy_server, srv));
}

static jint JNICALL n_server_connection_count(JNIEnv *env, jclass cls, jlong srv) {
    (void)env;
    (void)cls;
    return tachy_server_connection_count(PTR(tachy_server, srv));
}

/* ---- context -------------------------------------------------------------------------------- */

static jlong JNICALL n_context_create(JNIEnv *env, jclass cls, jlong srv, jstring jpath, jint id) {
    (void)cls;
    if (jpath == NULL) {
        return TACHY_EINVAL;
    }
    const char *path = (*env)->GetStringUTFChars(env, jpath, NULL);
    if (path == NULL) {
        return TACHY_ENOMEM;
    }
    tachy_context *ctx = NULL;
    int rc = tachy_server_create_context(PTR(tachy_server, srv), path,
                                         id >= 0 ? tachy_jni__dispatch : NULL,
                                         (void *)(intptr_t)id, &ctx);
    (*env)->ReleaseStringUTFChars(env, jpath, path);
    return rc < 0 ? rc : (jlong)(intptr_t)ctx;
}

static jint JNICALL n_context_remove(JNIEnv *env, jclass cls, jlong srv, jlong ctx) {
    (void)env;
    (void)cls;
    return tachy_server_remove_context_handle(PTR(tachy_server, srv), PTR(tachy_context, ctx));
}

static jint JNICALL n_context_set_handler(JNIEnv *env, jclass cls, jlong ctx, jint id) {
    (void)env;
    (void)cls;
    return tachy_context_set_handler(PTR(tachy_context, ctx), tachy_jni__dispatch,
                                     (void *)(intptr_t)id);
}

/* ---- exchange ------------------------------------------------------------------------------- */

static jint JNICALL n_read(JNIEnv *env, jclass cls, jlong ex, jbyteArray b, jint off, jint len) {
    (void)cls;
    char buf[COPY_CHUNK];
    size_t want = len < (jint)sizeof buf ? (size_t)len : sizeof buf;
    ssize_t n = tachy_exchange_read(PTR(tachy_exchange, ex), buf, want);
    if (n > 0) {
        (*env)->SetByteArrayRegion(env, b, off, (jsize)n, (const jbyte *)buf);
    }
    return (jint)n;
}

static jint JNICALL n_available(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    ssize_t n = tachy_exchange_available(PTR(tachy_exchange, ex));
    return n > INT32_MAX ? INT32_MAX : (jint)n;
}

static jint JNICALL n_write(JNIEnv *env, jclass cls, jlong ex, jbyteArray b, jint off, jint len) {
    (void)cls;
    char buf[COPY_CHUNK];
    jint done = 0;
    while (done < len) {
        jint n = len - done < (jint)sizeof buf ? len - done : (jint)sizeof buf;
        /* Java checked [off, off+len) against the array (Objects.checkFromIndexSize):
         * in bounds, so this cannot throw and needs no ExceptionCheck. */
        (*env)->GetByteArrayRegion(env, b, off + done, n, (jbyte *)buf);
        ssize_t w = tachy_exchange_write(PTR(tachy_exchange, ex), buf, (size_t)n);
        if (w < 0) {
            return (jint)w;
        }
        done += n;
    }
    return len;
}

static jint JNICALL n_defer(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    return tachy_exchange_defer(PTR(tachy_exchange, ex));
}

static jint JNICALL n_flush(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    return tachy_exchange_flush(PTR(tachy_exchange, ex));
}

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* The serialised response headers (4-byte big-endian length + bytes, name then value, per
 * pair; TachyHttpExchange.serialise) as fields pointing into p. *out is fields, or a
 * malloc'ed array when there are more; returns the count or a negative code. */
static ssize_t fields_load(const unsigned char *p, size_t len, tachy_field *fields, size_t cap,
                           tachy_field **out) {
    size_t i = 0, n = 0;
    *out = fields;
    while (i < len) {
        const char *part[2];
        uint32_t plen[2];
        for (int k = 0; k < 2; k++) {
            if (len - i < 4) {
                return TACHY_EINVAL;
            }
            plen[k] = be32(p + i);
            i += 4;
            if (len - i < plen[k]) {
                return TACHY_EINVAL;
            }
            part[k] = (const char *)p + i;
            i += plen[k];
        }
        if (n == cap) {
            size_t ncap = cap * 2;
            tachy_field *grown = *out == fields ? malloc(ncap * sizeof *grown)
                                                : realloc(*out, ncap * sizeof *grown);
            if (grown == NULL) {
                return TACHY_ENOMEM;
            }
            if (*out == fields) {
                memcpy(grown, fields, n * sizeof *grown);
            }
            *out = grown;
            cap = ncap;
        }
        (*out)[n++] = (tachy_field){part[0], plen[0], part[1], plen[1]};
    }
    return (ssize_t)n;
}

/* Returns a negative code, or the epoch second the headers were sent at (time(): the coarse
 * wall clock, a vDSO memory read) for the Date value Java records. */
static jlong JNICALL n_send_response_headers(JNIEnv *env, jclass cls, jlong jex, jint code,
                                             jlong len, jbyteArray hdrs, jint hdrs_len) {
    (void)cls;
    tachy_exchange *ex = PTR(tachy_exchange, jex);
    unsigned char stack[2048];
    unsigned char *p = stack;
    if (hdrs_len < 0) {
        return TACHY_EINVAL;
    }
    if ((size_t)hdrs_len > sizeof stack) {
        p = malloc((size_t)hdrs_len);
        if (p == NULL) {
            return TACHY_ENOMEM;
        }
    }
    if (hdrs_len > 0) {
        /* hdrs_len <= hdrs.length (TachyHttpExchange passes an exact or larger array). */
        (*env)->GetByteArrayRegion(env, hdrs, 0, hdrs_len, (jbyte *)p);
    }
    /* Straight from Java's headers to the head: the core's headers object is not used. */
    tachy_field local[32];
    tachy_field *fields;
    ssize_t n = fields_load(p, (size_t)hdrs_len, local, 32, &fields);
    int rc = n < 0 ? (int)n : tachy_exchange_send_response_fields(ex, code, len, fields, (size_t)n);
    if (fields != local) {
        free(fields);
    }
    if (p != stack) {
        free(p);
    }
    if (rc < 0) {
        return rc;
    }
    time_t now = time(NULL);
    return now > 0 ? (jlong)now : 0;
}

static jint JNICALL n_close(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    return tachy_exchange_close(PTR(tachy_exchange, ex));
}

static jint JNICALL n_request_body_close(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    return tachy_exchange_request_body_close(PTR(tachy_exchange, ex));
}

static jint JNICALL n_response_body_close(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    return tachy_exchange_response_body_close(PTR(tachy_exchange, ex));
}

/* ---- registration --------------------------------------------------------------------------- */

#define M(name, sig, fn) {(char *)(name), (char *)(sig), (void *)(fn)}

static const JNINativeMethod k_methods[] = {
    M("version", "()Ljava/lang/String;", n_version),
    M("strerror", "(I)Ljava/lang/String;", n_strerror),
    M("errName", "(I)Ljava/lang/String;", n_err_name),
    M("jdkProvider", "()Ljava/lang/Object;", n_jdk_provider),
    M("serverCreate", "([J)J", n_server_create),
    M("serverBind", "(JLjava/lang/String;II)I", n_server_bind),
    M("serverStart", "(J)I", n_server_start),
    M("serverStop", "(JI)I", n_server_stop),
    M("serverDestroy", "(J)V", n_server_destroy),
    M("serverHost", "(J)Ljava/lang/String;", n_server_host),
    M("serverPort", "(J)I", n_server_port),
    M("serverConnectionCount", "(J)I", n_server_connection_count),
    M("contextCreate", "(JLjava/lang/String;I)J", n_context_create),
    M("contextRemove", "(JJ)I", n_context_remove),
    M("contextSetHandler", "(JI)I", n_context_set_handler),
    M("read", "(J[BII)I", n_read),
    M("available", "(J)I", n_available),
    M("write", "(J[BII)I", n_write),
    M("flush", "(J)I", n_flush),
    M("sendResponseHeaders", "(JIJ[BI)J", n_send_response_headers),
    M("close", "(J)I", n_close),
    M("defer", "(J)I", n_defer),
    M("requestBodyClose", "(J)I", n_request_body_close),
    M("responseBodyClose", "(J)I", n_response_body_close),
};

int tachy_jni__register_natives(JNIEnv *env, jclass cls) {
    return (*env)->RegisterNatives(env, cls, k_methods,
                                   (jint)(sizeof k_methods / sizeof k_methods[0]));
}
