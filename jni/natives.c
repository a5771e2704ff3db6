/*
 * jni/natives.c - the native methods of dev.tachy.httpserver.Native.
 *
 * Each method is one C API call (or a short loop of them): it returns what the C function
 * returned, and Java turns negative TACHY_E* codes into exceptions (Native.ioException).
 * Handles travel as jlong. Body bytes cross with Get/SetByteArrayRegion through a stack
 * buffer: no JNI critical section is ever held across the core's socket I/O.
 */
#include "bridge.h"
#include "wire.h"

#include <tachy/metrics.h>

#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PTR(type, j) ((type *)(intptr_t)(j))
#define COPY_CHUNK 16384 /* bytes copied per array-region call */

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

/* Reads Native.serverCreate's long[] (NULL: every default) onto w, which starts from
 * tachy_options_init and log level 0. 0 or TACHY_EINVAL. */
static int options_from_java(JNIEnv *env, jlongArray jopts, tachy_wire_options *w) {
    int64_t v[TACHY_JNI_OPT_COUNT];
    for (int i = 0; i < TACHY_JNI_OPT_COUNT; i++) {
        v[i] = TACHY_JNI_OPT_DEFAULT;
    }
    if (jopts != NULL) {
        jsize n = (*env)->GetArrayLength(env, jopts);
        if (n > TACHY_JNI_OPT_COUNT) {
            n = TACHY_JNI_OPT_COUNT;
        }
        (*env)->GetLongArrayRegion(env, jopts, 0, n, (jlong *)v);
        if ((*env)->ExceptionCheck(env)) {
            return TACHY_EINVAL;
        }
    }
    tachy_options_init(&w->o);
    /* The provider's choices (jdk_header_rules: the JDK's unless -Dtachy.strictHeaders=true)
     * are made in one place, ServerConfig.java; an option it leaves at OPT_DEFAULT keeps
     * the C server's default (server/options.h). */
    w->log_level = 0;
    w->access_log_logger = 0;
    tachy_wire_options_apply(w, v, TACHY_JNI_OPT_DEFAULT);
    return 0;
}

/* trusted: tachy_options.proxy_trusted (NULL: any peer), copied by the create call;
 * jaccess_log: the access log's file path (-Dtachy.accessLog), or NULL; the server copies
 * it. With ACCESS_LOG_LOGGER the lines go to Native.accessLog instead (System.Logger). */
static jlong server_create(JNIEnv *env, jlongArray jopts, const char *trusted,
                           jstring jaccess_log) {
    tachy_wire_options w;
    if (options_from_java(env, jopts, &w) < 0) {
        return TACHY_EINVAL;
    }
    tachy_options o = w.o;
    o.proxy_trusted = trusted;
    /* The JDK's server does not check Host (RFC 9112 3.2), so neither does the provider; nor
     * has it a TLS handshake limit of its own: the connection's idle limit bounds it. */
    o.check_host = 0;
    o.jdk_header_rules = o.jdk_header_rules != 0;
    /* The JDK hands a path with "%00" to its handler (issue 27 item 4): so does the provider. */
    o.path_nul = 1;
    o.tls_handshake_time_ms = o.idle_interval_ms;
    tachy_jni_server *js = calloc(1, sizeof *js);
    if (js == NULL) {
        return TACHY_ENOMEM;
    }
    js->log_min = w.log_level;
    o.on_thread_start = tachy_jni__thread_start;
    o.on_thread_stop = tachy_jni__thread_stop;
    js->daemon_threads = 1;
    o.thread_hook_user = js;
    o.log = js->log_min > 0 ? tachy_jni__log : NULL;
    o.log_user = js;
    const char *access_log = NULL;
    if (w.access_log_logger) {
        /* On the log's writer thread, which tachy_jni__thread_start has attached. */
        o.access_log_fn = tachy_jni__access_log;
        o.access_log_user = js;
    } else if (jaccess_log != NULL) {
        access_log = (*env)->GetStringUTFChars(env, jaccess_log, NULL);
        if (access_log == NULL) {
            free(js);
            return TACHY_ENOMEM;
        }
        o.access_log = access_log;
    }
    tachy_server *srv = NULL;
    int rc = tachy_server_create_unbound(&srv, &o);
    if (access_log != NULL) {
        (*env)->ReleaseStringUTFChars(env, jaccess_log, access_log); /* the server copied it */
    }
    if (rc < 0) {
        free(js);
        return rc;
    }
    return (jlong)(intptr_t)srv;
}

static jlong JNICALL n_server_create(JNIEnv *env, jclass cls, jlongArray jopts) {
    (void)cls;
    return server_create(env, jopts, NULL, NULL);
}

/* Native.serverCreateTrusting: as serverCreate, with the PROXY header's trusted networks
 * (-Dtachy.proxyTrusted; a malformed list fails with TACHY_EINVAL) and the access log's
 * path (either may be null). */
static jlong JNICALL n_server_create_trusting(JNIEnv *env, jclass cls, jlongArray jopts,
                                              jstring jtrusted, jstring jaccess_log) {
    (void)cls;
    if (jtrusted == NULL) {
        return server_create(env, jopts, NULL, jaccess_log);
    }
    const char *trusted = (*env)->GetStringUTFChars(env, jtrusted, NULL);
    if (trusted == NULL) {
        return TACHY_ENOMEM;
    }
    jlong rc = server_create(env, jopts, trusted, jaccess_log);
    (*env)->ReleaseStringUTFChars(env, jtrusted, trusted);
    return rc;
}

/*
 * Native.metricsRender: tachy_metrics_render's text as a byte[] (ASCII), or NULL with
 * OutOfMemoryError pending. Rendered into a stack buffer, and once more into a heap one
 * when the text is longer. Any thread while srv lives (the Java side holds its server's
 * lock, so a stop cannot free srv meanwhile).
 */
static jbyteArray JNICALL n_metrics_render(JNIEnv *env, jclass cls, jlong srv) {
    (void)cls;
    char stack[8192];
    char *buf = stack;
    long n = tachy_metrics_render(PTR(tachy_server, srv), stack, sizeof stack);
    if (n < 0) {
        n = 0;
        stack[0] = '\0';
    } else if ((size_t)n >= sizeof stack) {
        /* The gauges may grow between the two calls: room to spare, and cut to what fits. */
        size_t cap = (size_t)n + 1024;
        buf = malloc(cap);
        if (buf == NULL) {
            (*env)->ThrowNew(env, (*env)->FindClass(env, "java/lang/OutOfMemoryError"),
                             "tachy metrics");
            return NULL;
        }
        n = tachy_metrics_render(PTR(tachy_server, srv), buf, cap);
        if (n < 0) {
            n = 0;
        } else if ((size_t)n >= cap) {
            n = (long)cap - 1;
        }
    }
    jbyteArray a = (*env)->NewByteArray(env, (jsize)n);
    if (a != NULL) {
        (*env)->SetByteArrayRegion(env, a, 0, (jsize)n, (const jbyte *)buf);
    }
    if (buf != stack) {
        free(buf);
    }
    return a;
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

/* daemon: whether the pool threads attach as daemon Java threads (see tachy_jni_server). */
static jint JNICALL n_server_start(JNIEnv *env, jclass cls, jlong srv, jboolean daemon) {
    (void)env;
    (void)cls;
    tachy_server *s = PTR(tachy_server, srv);
    const tachy_options *o = s != NULL ? tachy_server_options(s) : NULL;
    if (o != NULL && o->thread_hook_user != NULL) {
        ((tachy_jni_server *)o->thread_hook_user)->daemon_threads = daemon ? 1 : 0;
    }
    return tachy_server_start(s);
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

/* The handler returned without closing: another thread closes the exchange later (an
 * executor's exchange is deferred by n_lend, with TACHY_DEFER_CLOSER_CONTINUES). */
static jint JNICALL n_defer(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    return tachy_exchange_defer(PTR(tachy_exchange, ex));
}

static jint JNICALL n_abort(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    return tachy_exchange_abort(PTR(tachy_exchange, ex));
}

static jint JNICALL n_try_flush(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    return tachy_exchange_try_flush(PTR(tachy_exchange, ex));
}

static jint JNICALL n_hold(JNIEnv *env, jclass cls, jlong ex, jboolean on) {
    (void)env;
    (void)cls;
    return tachy_exchange_hold(PTR(tachy_exchange, ex), on ? 1 : 0);
}

static jint JNICALL n_held_bytes(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    return tachy_exchange_held_bytes(PTR(tachy_exchange, ex));
}

static jint JNICALL n_flush(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    return tachy_exchange_flush(PTR(tachy_exchange, ex));
}

/* Returns a negative code, or the core's decision in the layout of jni/wire.h ("The result
 * of Native.sendResponseHeaders"): the epoch second the headers were sent at (time(): the
 * coarse wall clock, a vDSO memory read) for the Date value Java records, the framing and
 * the Content-length header written, which Java mirrors in its Headers. */
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
    ssize_t n = tachy_wire_get_fields(p, (size_t)hdrs_len, local, 32, &fields);
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
    int64_t cl = -1;
    int framing = tachy_exchange_response_framing(ex, &cl);
    /* The core writes either the length given (a fixed-length body) or 0 (no body). */
    int cl_kind = cl < 0 ? TACHY_WIRE_CL_NONE : cl == 0 ? TACHY_WIRE_CL_ZERO : TACHY_WIRE_CL_GIVEN;
    time_t now = time(NULL);
    return tachy_wire_result(now > 0 ? (int64_t)now : 0, framing < 0 ? 0 : framing, cl_kind);
}

/* Answers with the core's reject bytes (tachy_exchange_reject): a 400 Java decided. */
static jint JNICALL n_reject(JNIEnv *env, jclass cls, jlong ex, jint code, jstring jmsg) {
    (void)cls;
    const char *msg = NULL;
    if (jmsg != NULL) {
        msg = (*env)->GetStringUTFChars(env, jmsg, NULL);
        if (msg == NULL) {
            return TACHY_ENOMEM;
        }
    }
    int rc = tachy_exchange_reject(PTR(tachy_exchange, ex), code, msg);
    if (msg != NULL) {
        (*env)->ReleaseStringUTFChars(env, jmsg, msg);
    }
    return rc;
}

/* ---- wire-format checks (WireTest) --------------------------------------------------- */

/* Decodes b[0, len) as pairs with wire.h's decoder and encodes them again with its encoder:
 * the test's proof that C and Java read and write the same format. NULL (and no exception)
 * for a set the decoder refuses; an OutOfMemoryError pending if the copy fails. */
static jbyteArray JNICALL n_wire_echo(JNIEnv *env, jclass cls, jbyteArray b, jint len) {
    (void)cls;
    if (b == NULL || len < 0 || len > (*env)->GetArrayLength(env, b)) {
        return NULL;
    }
    unsigned char *p = malloc(len > 0 ? (size_t)len : 1);
    if (p == NULL) {
        return NULL;
    }
    (*env)->GetByteArrayRegion(env, b, 0, len, (jbyte *)p);
    tachy_field local[4];
    tachy_field *fields;
    ssize_t n = tachy_wire_get_fields(p, (size_t)len, local, 4, &fields);
    jbyteArray out = NULL;
    if (n >= 0) {
        unsigned char stack[64];
        tachy_wire_buf w;
        tachy_wire_init(&w, stack, sizeof stack);
        for (ssize_t i = 0; i < n; i++) {
            tachy_wire_put_str(&w, fields[i].name, fields[i].name_len);
            tachy_wire_put_str(&w, fields[i].value, fields[i].value_len);
        }
        if (!w.failed) {
            out = (*env)->NewByteArray(env, (jsize)w.len);
            if (out != NULL) {
                (*env)->SetByteArrayRegion(env, out, 0, (jsize)w.len, (const jbyte *)w.p);
            }
        }
        tachy_wire_free(&w);
    }
    if (fields != local) {
        free(fields);
    }
    free(p);
    return out;
}

/* wire.h's encoding of a sendResponseHeaders result (WireTest decodes it with Wire). */
static jlong JNICALL n_wire_result(JNIEnv *env, jclass cls, jlong second, jint framing, jint cl) {
    (void)env;
    (void)cls;
    return tachy_wire_result(second, framing, cl);
}

/* The names of the option index tables (bridge.h), in index order: the server's, or with
 * ws the WebSocket's. WireTest compares them with Native.OPT_* and WsNative.OPT_*. */
static jobjectArray JNICALL n_wire_option_names(JNIEnv *env, jclass cls, jboolean ws) {
    (void)cls;
#define NAME(name, member, type) #name,
    static const char *const server[] = {TACHY_WIRE_OPTIONS(NAME)};
#undef NAME
#define NAME(name) #name,
    static const char *const wsock[] = {TACHY_JNI_WS_OPTIONS(NAME)};
#undef NAME
    const char *const *names = ws ? wsock : server;
    jsize n = ws ? TACHY_JNI_WS_OPT_COUNT : TACHY_JNI_OPT_COUNT;
    jclass str = (*env)->FindClass(env, "java/lang/String");
    if (str == NULL) {
        return NULL;
    }
    jobjectArray a = (*env)->NewObjectArray(env, n, str, NULL);
    for (jsize i = 0; a != NULL && i < n; i++) {
        jstring s = (*env)->NewStringUTF(env, names[i]);
        if (s == NULL) {
            return NULL;
        }
        (*env)->SetObjectArrayElement(env, a, i, s);
        (*env)->DeleteLocalRef(env, s);
    }
    return a;
}

/* opts through serverCreate's mapping onto tachy_options and read back in index order. */
static jlongArray JNICALL n_wire_options_echo(JNIEnv *env, jclass cls, jlongArray jopts) {
    (void)cls;
    tachy_wire_options w;
    if (options_from_java(env, jopts, &w) < 0) {
        return NULL;
    }
    int64_t v[TACHY_JNI_OPT_COUNT];
    tachy_wire_options_read(&w, v);
    jlongArray a = (*env)->NewLongArray(env, TACHY_JNI_OPT_COUNT);
    if (a != NULL) {
        (*env)->SetLongArrayRegion(env, a, 0, TACHY_JNI_OPT_COUNT, (const jlong *)v);
    }
    return a;
}

/* The tachy_response_framing values (WireTest compares them with Wire's). */
static jintArray JNICALL n_wire_framings(JNIEnv *env, jclass cls) {
    (void)cls;
    jint v[] = {TACHY_RESPONSE_NOT_SENT, TACHY_RESPONSE_FIXED, TACHY_RESPONSE_CHUNKED,
                TACHY_RESPONSE_UNTIL_CLOSE, TACHY_RESPONSE_EMPTY,
                TACHY_WIRE_CL_NONE, TACHY_WIRE_CL_GIVEN, TACHY_WIRE_CL_ZERO};
    jintArray a = (*env)->NewIntArray(env, (jsize)(sizeof v / sizeof v[0]));
    if (a != NULL) {
        (*env)->SetIntArrayRegion(env, a, 0, (jsize)(sizeof v / sizeof v[0]), v);
    }
    return a;
}

/* harvest: the caller is a virtual thread (TACHY_CLOSE_HARVEST: its carrier serves other
 * ready connections after this one, their tasks queue on that carrier). scratch (may be
 * null), scratch_len bytes long: lent to the bridge as the upcall array of the requests
 * this close dispatches when it continues a lent exchange's connection on the calling
 * thread (bridge.h). */
static jint JNICALL n_close(JNIEnv *env, jclass cls, jlong ex, jboolean harvest,
                            jbyteArray scratch, jint scratch_len) {
    (void)env;
    (void)cls;
    /* scratch_len is scratch.length, passed by Java (a GetArrayLength costs a JNI
     * transition per close; the bridge trusts Java's bounds as n_write does). */
    tachy_jni_borrowed lend = {scratch, scratch != NULL ? scratch_len : 0};
    tachy_jni_borrowed prev = tachy_jni__borrow_head(lend);
    jint rc = tachy_exchange_close_flags(PTR(tachy_exchange, ex),
                                         harvest ? TACHY_CLOSE_HARVEST : 0);
    (void)tachy_jni__borrow_head(prev);
    return rc;
}

/* NativeExchange.lend: tachy_exchange_hold on, then tachy_exchange_defer_flags with
 * TACHY_DEFER_CLOSER_CONTINUES - one call where there were two. On failure the hold is
 * taken back and the negative code returned. */
static jint JNICALL n_lend(JNIEnv *env, jclass cls, jlong ex) {
    (void)env;
    (void)cls;
    tachy_exchange *x = PTR(tachy_exchange, ex);
    int rc = tachy_exchange_hold(x, 1);
    if (rc < 0)
        return rc;
    rc = tachy_exchange_defer_flags(x, TACHY_DEFER_CLOSER_CONTINUES);
    if (rc < 0)
        (void)tachy_exchange_hold(x, 0);
    return rc;
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
    M("serverCreateTrusting", "([JLjava/lang/String;Ljava/lang/String;)J", n_server_create_trusting),
    M("metricsRender", "(J)[B", n_metrics_render),
    M("serverBind", "(JLjava/lang/String;II)I", n_server_bind),
    M("serverStart", "(JZ)I", n_server_start),
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
    M("reject", "(JILjava/lang/String;)I", n_reject),
    M("wireEcho", "([BI)[B", n_wire_echo),
    M("wireResult", "(JII)J", n_wire_result),
    M("wireFramings", "()[I", n_wire_framings),
    M("wireOptionNames", "(Z)[Ljava/lang/String;", n_wire_option_names),
    M("wireOptionsEcho", "([J)[J", n_wire_options_echo),
    M("close", "(JZ[BI)I", n_close),
    M("lend", "(J)I", n_lend),
    M("defer", "(J)I", n_defer),
    M("abort", "(J)I", n_abort),
    M("tryFlush", "(J)I", n_try_flush),
    M("hold", "(JZ)I", n_hold),
    M("heldBytes", "(J)I", n_held_bytes),
    M("requestBodyClose", "(J)I", n_request_body_close),
    M("responseBodyClose", "(J)I", n_response_body_close),
};

int tachy_jni__register_natives(JNIEnv *env, jclass cls) {
    return (*env)->RegisterNatives(env, cls, k_methods,
                                   (jint)(sizeof k_methods / sizeof k_methods[0]));
}
