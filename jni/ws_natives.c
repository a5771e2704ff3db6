/*
 * jni/ws_natives.c - the natives of dev.tachy.httpserver.websocket.WsNative and the upcalls
 * of tachy_ws callbacks into dev.tachy.httpserver.websocket.TachyWebSocket.
 *
 * WsNative.attach runs tachy_ws_attach on the thread that runs the Java handler (a pool
 * thread, or an executor thread) and returns after on_open: the connection then holds no
 * thread, Java or native. Later callbacks run on the server's pool threads, one at a time
 * per socket, in order; a pool thread is attached to the JVM once when it starts
 * (bridge.c), so an upcall costs a GetEnv, not an attach. Each upcall runs inside its own
 * local frame. The Java TachyWebSocket object is a global reference held by the
 * connection's ws_ctx from attach to on_close (which always comes once on_open came), and
 * freed there; the tachy_ws handle it gets in nativeOpen carries its own reference
 * (tachy_ws_retain), dropped by WsNative.release from a Cleaner, so a send from any Java
 * thread after the connection ended fails with TACHY_ECLOSED instead of touching freed
 * memory. Reading starts suspended (cb_open): TachyWebSocket resumes it when the listener
 * requests messages (request(n) -> WsNative.resume) and suspends it again in the callback
 * that takes the last requested one. Payloads cross with array-region copies: no
 * critical section is ever held across socket I/O.
 */
#include "bridge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tachy/ws.h>

#define WS_NATIVE_CLASS "dev/tachy/httpserver/websocket/WsNative"
#define WS_CONN_CLASS "dev/tachy/httpserver/websocket/TachyWebSocket"
#define PTR(type, j) ((type *)(intptr_t)(j))

static jmethodID g_open;    /* void nativeOpen(long)                    */
static jmethodID g_message; /* void nativeMessage(int, byte[], boolean) */
static jmethodID g_ping;    /* void nativePing(byte[])                  */
static jmethodID g_pong;    /* void nativePong(byte[])                  */
static jmethodID g_close;   /* void nativeClose(int, byte[])            */
static jmethodID g_error;   /* void nativeError(int, int, String)       */

/* One connection's Java side: the TachyWebSocket, a global reference from attach to
 * on_close (or to the end of attach when the upgrade was refused). */
typedef struct ws_ctx {
    jobject conn;
} ws_ctx;

/* The callback thread's env inside a new local frame, or NULL (then nothing is called). */
static JNIEnv *enter(int slots) {
    JNIEnv *env = tachy_jni__env();
    if (env == NULL)
        return NULL;
    if ((*env)->PushLocalFrame(env, slots) != 0) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    return env;
}

static jbyteArray bytes(JNIEnv *env, const void *p, size_t n) {
    if (n > 0x7fffffff)
        return NULL;
    jbyteArray a = (*env)->NewByteArray(env, (jsize)n);
    if (a != NULL && n)
        (*env)->SetByteArrayRegion(env, a, 0, (jsize)n, (const jbyte *)p);
    return a;
}

/* An upcall left an exception pending: the listener threw. Fail the connection the way the
 * JDK's client does when a listener throws (abort), and clear it so the loop can end. */
static void after_upcall(JNIEnv *env, tachy_ws *ws) {
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        tachy_ws_abort(ws);
    }
}

static void cb_open(tachy_ws *ws, void *user) {
    ws_ctx *c = user;
    /* No message before the listener asks (TachyWebSocket.request resumes). */
    tachy_ws_suspend_reading(ws);
    JNIEnv *env = enter(4);
    if (env == NULL) {
        tachy_ws_abort(ws);
        return;
    }
    tachy_ws_retain(ws); /* Java's reference; WsNative.release drops it */
    (*env)->CallVoidMethod(env, c->conn, g_open, (jlong)(intptr_t)ws);
    after_upcall(env, ws);
    (*env)->PopLocalFrame(env, NULL);
}

static void cb_message(tachy_ws *ws, int type, const void *data, size_t len, int last,
                       void *user) {
    ws_ctx *c = user;
    JNIEnv *env = enter(4);
    if (env == NULL) {
        tachy_ws_abort(ws);
        return;
    }
    jbyteArray a = bytes(env, data, len);
    if (a != NULL)
        (*env)->CallVoidMethod(env, c->conn, g_message, (jint)type, a, (jboolean)(last != 0));
    after_upcall(env, ws);
    (*env)->PopLocalFrame(env, NULL);
}

static void control(tachy_ws *ws, jmethodID m, const void *data, size_t len, void *user) {
    ws_ctx *c = user;
    JNIEnv *env = enter(4);
    if (env == NULL) {
        tachy_ws_abort(ws);
        return;
    }
    jbyteArray a = bytes(env, data, len);
    if (a != NULL)
        (*env)->CallVoidMethod(env, c->conn, m, a);
    after_upcall(env, ws);
    (*env)->PopLocalFrame(env, NULL);
}

static void cb_ping(tachy_ws *ws, const void *data, size_t len, void *user) {
    control(ws, g_ping, data, len, user);
}

static void cb_pong(tachy_ws *ws, const void *data, size_t len, void *user) {
    control(ws, g_pong, data, len, user);
}

static void cb_close(tachy_ws *ws, int code, const char *reason, size_t len, void *user) {
    ws_ctx *c = user;
    (void)ws;
    JNIEnv *env = enter(4);
    if (env != NULL) {
        jbyteArray a = bytes(env, reason, len);
        if (a != NULL)
            (*env)->CallVoidMethod(env, c->conn, g_close, (jint)code, a);
        if ((*env)->ExceptionCheck(env))
            (*env)->ExceptionClear(env);
        (*env)->PopLocalFrame(env, NULL);
        (*env)->DeleteGlobalRef(env, c->conn); /* the last callback: the connection's end */
    }
    free(c);
}

static void cb_error(tachy_ws *ws, int err, int close_code, const char *what, void *user) {
    ws_ctx *c = user;
    (void)ws;
    JNIEnv *env = enter(4);
    if (env == NULL)
        return;
    jstring s = (*env)->NewStringUTF(env, what ? what : "");
    if (s != NULL)
        (*env)->CallVoidMethod(env, c->conn, g_error, (jint)err, (jint)close_code, s);
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    (*env)->PopLocalFrame(env, NULL);
}

/* ---- natives --------------------------------------------------------------------------- */

static jint JNICALL n_attach(JNIEnv *env, jclass cls, jlong ex, jobject conn, jlongArray jopts,
                             jobjectArray jprotos) {
    (void)cls;
    jlong v[TACHY_JNI_WS_OPT_COUNT];
    if ((*env)->GetArrayLength(env, jopts) < TACHY_JNI_WS_OPT_COUNT)
        return TACHY_EINVAL;
    (*env)->GetLongArrayRegion(env, jopts, 0, TACHY_JNI_WS_OPT_COUNT, v);
    if ((*env)->ExceptionCheck(env))
        return TACHY_EINVAL;

    ws_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        return TACHY_ENOMEM;
    c->conn = (*env)->NewGlobalRef(env, conn);
    if (c->conn == NULL) {
        free(c);
        return TACHY_ENOMEM;
    }
    tachy_ws_options o;
    tachy_ws_options_init(&o);
    o.cb.on_open = cb_open;
    o.cb.on_message = cb_message;
    o.cb.on_ping = cb_ping;
    o.cb.on_pong = cb_pong;
    o.cb.on_close = cb_close;
    o.cb.on_error = cb_error;
    o.user = c;
    /* tachy_ws_options_init is the one source of the defaults: WebSocketHandler sends
     * TACHY_JNI_OPT_DEFAULT for every option its user did not set. */
#define GIVEN(i) (v[TACHY_JNI_WS_OPT_##i] != TACHY_JNI_OPT_DEFAULT)
    if (GIVEN(MAX_MESSAGE) && v[TACHY_JNI_WS_OPT_MAX_MESSAGE] > 0) {
        o.max_message_size = (size_t)v[TACHY_JNI_WS_OPT_MAX_MESSAGE];
        o.max_frame_size = (size_t)v[TACHY_JNI_WS_OPT_MAX_MESSAGE];
    }
    if (GIVEN(DEFLATE))
        o.deflate = v[TACHY_JNI_WS_OPT_DEFLATE] != 0;
    if (GIVEN(DEFLATE_THRESHOLD) && v[TACHY_JNI_WS_OPT_DEFLATE_THRESHOLD] >= 0)
        o.deflate_threshold = (size_t)v[TACHY_JNI_WS_OPT_DEFLATE_THRESHOLD];
    if (GIVEN(SEND_TIMEOUT_MS))
        o.send_timeout_ms = (long)v[TACHY_JNI_WS_OPT_SEND_TIMEOUT_MS];
    if (GIVEN(CLOSE_TIMEOUT_MS))
        o.close_timeout_ms = (long)v[TACHY_JNI_WS_OPT_CLOSE_TIMEOUT_MS];
    if (GIVEN(IDLE_TIMEOUT_MS))
        o.idle_timeout_ms = (long)v[TACHY_JNI_WS_OPT_IDLE_TIMEOUT_MS];
    if (GIVEN(PING_INTERVAL_MS))
        o.ping_interval_ms = (long)v[TACHY_JNI_WS_OPT_PING_INTERVAL_MS];
    if (GIVEN(PING_TIMEOUT_MS))
        o.ping_timeout_ms = (long)v[TACHY_JNI_WS_OPT_PING_TIMEOUT_MS];
    if (GIVEN(MAX_BACKLOG) && v[TACHY_JNI_WS_OPT_MAX_BACKLOG] > 0)
        o.max_backlog = (size_t)v[TACHY_JNI_WS_OPT_MAX_BACKLOG];
    if (GIVEN(BACKLOG_POLICY))
        o.backlog_policy = v[TACHY_JNI_WS_OPT_BACKLOG_POLICY] == 1 ? TACHY_WS_BACKLOG_CLOSE
                                                                   : TACHY_WS_BACKLOG_FAIL;
#undef GIVEN

    /* Subprotocols: UTF-8 copies for the handshake (the selected one is copied by it). */
    jsize np = jprotos ? (*env)->GetArrayLength(env, jprotos) : 0;
    const char **protos = np ? calloc((size_t)np, sizeof *protos) : NULL;
    int rc = 0;
    if (np && !protos)
        rc = TACHY_ENOMEM;
    for (jsize i = 0; rc == 0 && i < np; i++) {
        jstring s = (jstring)(*env)->GetObjectArrayElement(env, jprotos, i);
        const char *u = s ? (*env)->GetStringUTFChars(env, s, NULL) : NULL;
        char *d = u ? strdup(u) : NULL;
        if (u)
            (*env)->ReleaseStringUTFChars(env, s, u);
        if (s)
            (*env)->DeleteLocalRef(env, s);
        if (!d)
            rc = TACHY_ENOMEM;
        protos[i] = d;
    }
    if (rc == 0) {
        o.subprotocols = protos;
        o.num_subprotocols = (size_t)np;
        rc = tachy_ws_attach(PTR(tachy_exchange, ex), &o);
    }
    for (jsize i = 0; protos && i < np; i++)
        free((void *)protos[i]);
    free(protos);
    /* 0: attached, on_open ran and on_close will free c (maybe already: do not touch it);
     * else refused or failed before on_open: no callback will come. */
    if (rc != 0) {
        (*env)->DeleteGlobalRef(env, c->conn);
        free(c);
    }
    return rc;
}

static jint JNICALL n_suspend(JNIEnv *env, jclass cls, jlong ws) {
    (void)env;
    (void)cls;
    return tachy_ws_suspend_reading(PTR(tachy_ws, ws));
}

static jint JNICALL n_resume(JNIEnv *env, jclass cls, jlong ws) {
    (void)env;
    (void)cls;
    return tachy_ws_resume_reading(PTR(tachy_ws, ws));
}

/* Copies a Java byte range into a heap buffer (or a stack one for small sizes). */
static uint8_t *copy_in(JNIEnv *env, jbyteArray a, jint off, jint len, uint8_t *stack,
                        size_t cap) {
    uint8_t *p = (size_t)len <= cap ? stack : malloc((size_t)len ? (size_t)len : 1);
    if (p && len)
        (*env)->GetByteArrayRegion(env, a, off, len, (jbyte *)p);
    if ((*env)->ExceptionCheck(env)) {
        if (p != stack)
            free(p);
        return NULL;
    }
    return p;
}

static jint JNICALL n_send(JNIEnv *env, jclass cls, jlong ws, jint type, jbyteArray a, jint off,
                           jint len, jboolean last, jboolean fragment) {
    (void)cls;
    uint8_t stack[1024];
    uint8_t *p = copy_in(env, a, off, len, stack, sizeof stack);
    if (!p)
        return TACHY_ENOMEM;
    int rc;
    if (fragment)
        rc = tachy_ws_send_fragment(PTR(tachy_ws, ws), type, p, (size_t)len, last);
    else if (type == TACHY_WS_TEXT)
        rc = tachy_ws_send_text(PTR(tachy_ws, ws), (const char *)p, (size_t)len);
    else
        rc = tachy_ws_send_binary(PTR(tachy_ws, ws), p, (size_t)len);
    if (p != stack)
        free(p);
    return rc;
}

static jint JNICALL n_control(JNIEnv *env, jclass cls, jlong ws, jboolean ping, jbyteArray a,
                              jint len) {
    (void)cls;
    uint8_t buf[125];
    if (len < 0 || len > 125)
        return TACHY_EINVAL;
    if (len)
        (*env)->GetByteArrayRegion(env, a, 0, len, (jbyte *)buf);
    if ((*env)->ExceptionCheck(env))
        return TACHY_EINVAL;
    return ping ? tachy_ws_ping(PTR(tachy_ws, ws), buf, (size_t)len)
                : tachy_ws_pong(PTR(tachy_ws, ws), buf, (size_t)len);
}

static jint JNICALL n_close(JNIEnv *env, jclass cls, jlong ws, jint code, jbyteArray reason) {
    (void)cls;
    char buf[124];
    jsize n = reason ? (*env)->GetArrayLength(env, reason) : 0;
    if (n > 123)
        return TACHY_EINVAL;
    if (n)
        (*env)->GetByteArrayRegion(env, reason, 0, n, (jbyte *)buf);
    buf[n] = '\0';
    return tachy_ws_close(PTR(tachy_ws, ws), code, n ? buf : NULL);
}

static void JNICALL n_abort(JNIEnv *env, jclass cls, jlong ws) {
    (void)env;
    (void)cls;
    tachy_ws_abort(PTR(tachy_ws, ws));
}

static void JNICALL n_release(JNIEnv *env, jclass cls, jlong ws) {
    (void)env;
    (void)cls;
    tachy_ws_release(PTR(tachy_ws, ws));
}

static jboolean JNICALL n_is_open(JNIEnv *env, jclass cls, jlong ws) {
    (void)env;
    (void)cls;
    return tachy_ws_is_open(PTR(tachy_ws, ws)) ? JNI_TRUE : JNI_FALSE;
}

static jstring JNICALL n_subprotocol(JNIEnv *env, jclass cls, jlong ws) {
    (void)cls;
    const char *s = tachy_ws_subprotocol(PTR(tachy_ws, ws));
    return (*env)->NewStringUTF(env, s ? s : "");
}

static jstring JNICALL n_extensions(JNIEnv *env, jclass cls, jlong ws) {
    (void)cls;
    const char *s = tachy_ws_extensions(PTR(tachy_ws, ws));
    return (*env)->NewStringUTF(env, s ? s : "");
}

#define M(name, sig, fn) {(char *)(name), (char *)(sig), (void *)(fn)}
static const JNINativeMethod k_ws_methods[] = {
    M("attach", "(JL" WS_CONN_CLASS ";[J[Ljava/lang/String;)I", n_attach),
    M("suspend", "(J)I", n_suspend),
    M("resume", "(J)I", n_resume),
    M("send", "(JI[BIIZZ)I", n_send),
    M("control", "(JZ[BI)I", n_control),
    M("close", "(JI[B)I", n_close),
    M("abort", "(J)V", n_abort),
    M("release", "(J)V", n_release),
    M("isOpen", "(J)Z", n_is_open),
    M("subprotocol", "(J)Ljava/lang/String;", n_subprotocol),
    M("extensions", "(J)Ljava/lang/String;", n_extensions),
};

static jclass g_conn_class; /* global refs: the method IDs stay valid while they live */
static jclass g_native_class;

int tachy_jni__register_ws_natives(JNIEnv *env) {
    jclass cls = (*env)->FindClass(env, WS_NATIVE_CLASS);
    if (cls == NULL)
        return -1;
    jclass conn = (*env)->FindClass(env, WS_CONN_CLASS);
    if (conn == NULL)
        return -1;
    g_native_class = (*env)->NewGlobalRef(env, cls);
    g_conn_class = (*env)->NewGlobalRef(env, conn);
    if (!g_native_class || !g_conn_class)
        return -1;
    g_open = (*env)->GetMethodID(env, conn, "nativeOpen", "(J)V");
    g_message = (*env)->GetMethodID(env, conn, "nativeMessage", "(I[BZ)V");
    g_ping = (*env)->GetMethodID(env, conn, "nativePing", "([B)V");
    g_pong = (*env)->GetMethodID(env, conn, "nativePong", "([B)V");
    g_close = (*env)->GetMethodID(env, conn, "nativeClose", "(I[B)V");
    g_error = (*env)->GetMethodID(env, conn, "nativeError", "(IILjava/lang/String;)V");
    if (!g_open || !g_message || !g_ping || !g_pong || !g_close || !g_error)
        return -1;
    return (*env)->RegisterNatives(env, cls, k_ws_methods,
                                   (jint)(sizeof k_ws_methods / sizeof k_ws_methods[0]));
}

void tachy_jni__unload_ws_natives(JNIEnv *env) {
    if (env != NULL) {
        if (g_native_class != NULL)
            (*env)->DeleteGlobalRef(env, g_native_class);
        if (g_conn_class != NULL)
            (*env)->DeleteGlobalRef(env, g_conn_class);
    }
    g_native_class = NULL;
    g_conn_class = NULL;
    g_open = g_message = g_ping = g_pong = g_close = g_error = NULL;
}
