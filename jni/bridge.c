/*
 * jni/bridge.c - the JVM side of tachy: loading, thread attachment, logging, and the one
 * upcall per request.
 *
 * Threads (the JNA model): the core calls tachy_jni__thread_start on every thread of its
 * pool as it starts (the workers accept, read and run handlers; there is no acceptor thread);
 * the thread is attached there, once, as a Java thread named after the core's name
 * ("tachy-conn-3") - a daemon thread when the server has an executor, a non-daemon one when
 * handlers run on it (as the JDK's dispatcher thread is: tachy_jni_server.daemon_threads) -
 * and detached in tachy_jni__thread_stop just before it exits. A pthread key destructor detaches any thread that got attached another
 * way (a log call from a thread the hooks did not see) when it exits.
 *
 * Upcalls: Native.dispatch (per request) and Native.log. Native.log runs inside
 * PushLocalFrame/PopLocalFrame; Native.dispatch creates no local reference at all (the request
 * head, in the format of jni/wire.h, travels in a per-thread byte[] held as a global reference, see head_array), and
 * ExceptionCheck follows every JNI call that can throw; off the pool, an executor's thread that
 * closes an exchange lends its own array for the requests its close dispatches
 * (tachy_jni__borrow_head). The class and method IDs are cached
 * once in JNI_OnLoad as global references: nothing is looked up per request, and no global
 * reference is created per request (one per thread, for its upcall array).
 */
#include "bridge.h"
#include "wire.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static JavaVM *g_vm;
static jclass g_native;       /* global ref: dev.tachy.httpserver.Native */
static jmethodID g_dispatch;  /* static int dispatch(int, long, byte[], int) */
static jmethodID g_log;       /* static void log(int, String) */
static jmethodID g_access_log; /* static void accessLog(String) */
static pthread_key_t g_attach_key;
static int g_attach_key_ok;

/* ---- attaching threads ---------------------------------------------------------------- */

static void head_array_release(JNIEnv *env);

/* Key destructor: runs at the exit of a thread that is still attached. */
static void detach_at_exit(void *value) {
    JNIEnv *env = NULL;
    if (value != NULL && g_vm != NULL) {
        if ((*g_vm)->GetEnv(g_vm, (void **)&env, TACHY_JNI_VERSION) == JNI_OK) {
            head_array_release(env);
        }
        (*g_vm)->DetachCurrentThread(g_vm);
    }
}

/* The JNIEnv of the calling thread, attaching it (named; a daemon thread if daemon) if
 * needed; NULL on failure. */
static JNIEnv *env_attach(const char *name, int daemon) {
    JNIEnv *env = NULL;
    if (g_vm == NULL) {
        return NULL;
    }
    jint rc = (*g_vm)->GetEnv(g_vm, (void **)&env, TACHY_JNI_VERSION);
    if (rc == JNI_OK) {
        return env;
    }
    if (rc != JNI_EDETACHED) {
        return NULL;
    }
    char tname[64];
    if (name == NULL || name[0] == '\0') {
        name = "thread";
    }
    /* Readable Java thread names: the core's name, prefixed with "tachy-" if it lacks it. */
    if (strncmp(name, "tachy", 5) == 0) {
        snprintf(tname, sizeof tname, "%s", name);
    } else {
        snprintf(tname, sizeof tname, "tachy-%s", name);
    }
    JavaVMAttachArgs args = {TACHY_JNI_VERSION, tname, NULL};
    jint arc = daemon ? (*g_vm)->AttachCurrentThreadAsDaemon(g_vm, (void **)&env, &args)
                      : (*g_vm)->AttachCurrentThread(g_vm, (void **)&env, &args);
    if (arc != JNI_OK) {
        return NULL;
    }
    if (g_attach_key_ok) {
        pthread_setspecific(g_attach_key, (void *)1);
    }
    return env;
}

JNIEnv *tachy_jni__env(void) {
    return env_attach("ws", 1);
}

/* Set on the core's pool threads (attached here, detached in tachy_jni__thread_stop).
 * Other threads dispatch too: an executor's thread that closed an exchange dispatches the next pipelined
 * request (TACHY_DEFER_CLOSER_CONTINUES), and those threads are the JVM's, not ours. */
static __thread int tl_pool_thread;

void tachy_jni__thread_start(void *user, const char *name) {
    const tachy_jni_server *js = user;
    tl_pool_thread = 1;
    (void)env_attach(name, js == NULL || js->daemon_threads);
}

void tachy_jni__thread_stop(void *user) {
    (void)user;
    JNIEnv *env = NULL;
    if (g_vm == NULL || (*g_vm)->GetEnv(g_vm, (void **)&env, TACHY_JNI_VERSION) != JNI_OK) {
        return;
    }
    head_array_release(env);
    (*g_vm)->DetachCurrentThread(g_vm);
    if (g_attach_key_ok) {
        pthread_setspecific(g_attach_key, NULL);
    }
}

/* ---- logging ---------------------------------------------------------------------------- */

void tachy_jni__log(void *user, int level, const char *message) {
    const tachy_jni_server *js = user;
    if (js == NULL || js->log_min <= 0 || level < js->log_min || message == NULL) {
        return;
    }
    JNIEnv *env = env_attach("log", 1);
    if (env == NULL || (*env)->PushLocalFrame(env, 2) != 0) {
        return;
    }
    /* NewStringUTF wants modified UTF-8: keep printable ASCII, replace everything else. */
    char buf[1024];
    size_t i = 0;
    for (; message[i] != '\0' && i < sizeof buf - 1; i++) {
        unsigned char c = (unsigned char)message[i];
        buf[i] = (c >= 0x20 && c < 0x7f) || c == '\t' ? (char)c : '?';
    }
    buf[i] = '\0';
    jstring s = (*env)->NewStringUTF(env, buf);
    if (s != NULL && !(*env)->ExceptionCheck(env)) {
        (*env)->CallStaticVoidMethod(env, g_native, g_log, (jint)level, s);
    }
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env); /* a logger failing must not break the server */
    }
    (*env)->PopLocalFrame(env, NULL);
}

void tachy_jni__access_log(void *user, const char *line, size_t len) {
    (void)user;
    (void)len;
    JNIEnv *env = env_attach("tachy-accesslog", 1);
    if (env == NULL || (*env)->PushLocalFrame(env, 2) != 0) {
        return;
    }
    /* The line is printable ASCII (edge/accesslog.c writes every other byte as \xHH), which
     * is modified UTF-8 as it is. */
    jstring s = (*env)->NewStringUTF(env, line);
    if (s != NULL && !(*env)->ExceptionCheck(env)) {
        (*env)->CallStaticVoidMethod(env, g_native, g_access_log, s);
    }
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env); /* a logger failing must not stop the log */
    }
    (*env)->PopLocalFrame(env, NULL);
}

/* ---- the request upcall ------------------------------------------------------------------- */

/*
 * The thread's upcall array: a global reference to a byte[] that every request dispatched on
 * this thread reuses (Java copies out what it keeps before Native.dispatch returns, and the
 * thread dispatches one request at a time). Created on the thread's first request, replaced
 * by a larger one when a head does not fit, deleted when the thread detaches. This keeps
 * NewByteArray, and with it every local reference, off the per-request path.
 */
static __thread jbyteArray tl_head;
static __thread jsize tl_head_cap;
/* Off the pool: the array the running native call lent (bridge.h), else none. */
static __thread tachy_jni_borrowed tl_borrowed;

tachy_jni_borrowed tachy_jni__borrow_head(tachy_jni_borrowed b) {
    tachy_jni_borrowed prev = tl_borrowed;
    tl_borrowed = b;
    return prev;
}

/* Deletes the calling thread's upcall array (before it detaches). */
static void head_array_release(JNIEnv *env) {
    if (tl_head != NULL) {
        (*env)->DeleteGlobalRef(env, tl_head);
        tl_head = NULL;
        tl_head_cap = 0;
    }
}

/* The thread's upcall array with room for len bytes, or NULL (exception cleared). On a
 * thread that is not one of the pool's the array the running native call lent
 * (tachy_jni__borrow_head) if it is large enough, else a new local array, which the caller
 * deletes (*is_local set): nothing would delete a global one when that thread ends. */
static jbyteArray head_array(JNIEnv *env, size_t len, int *is_local) {
    *is_local = 0;
    if (tl_head != NULL && (size_t)tl_head_cap >= len) {
        return tl_head;
    }
    if (!tl_pool_thread) {
        if (tl_borrowed.array != NULL && (size_t)tl_borrowed.cap >= len) {
            return tl_borrowed.array;
        }
        jbyteArray a = len <= INT32_MAX ? (*env)->NewByteArray(env, (jsize)len) : NULL;
        if (a == NULL) {
            (*env)->ExceptionClear(env);
        }
        *is_local = a != NULL;
        return a;
    }
    if (len > INT32_MAX / 2) {
        return NULL;
    }
    jsize cap = tl_head_cap > 0 ? tl_head_cap : 1024;
    while ((size_t)cap < len) {
        cap *= 2;
    }
    jbyteArray local = (*env)->NewByteArray(env, cap);
    if (local == NULL) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    jbyteArray global = (*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    if (global == NULL) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    head_array_release(env);
    tl_head = global;
    tl_head_cap = cap;
    return global;
}

static void hb_addr(tachy_wire_buf *b, int rc, const char *host, int port) {
    if (rc < 0 || port < 0) {
        host = "0.0.0.0";
        port = 0;
    }
    tachy_wire_put_cstr(b, host);
    tachy_wire_put_num(b, port);
}

/* tachy_field_fn: one request field into the head, as a pair. */
static void hb_field(void *user, const char *name, size_t nlen, const char *value, size_t vlen) {
    tachy_wire_put_str(user, name, nlen);
    tachy_wire_put_str(user, value, vlen);
}

/* The request head in the wire format (jni/wire.h, "The request head"). Java reads the
 * first part at once and keeps a copy of the rest (addresses, request headers) to decode
 * on demand. */
static void head_build(tachy_wire_buf *b, tachy_exchange *ex) {
    char host[64];
    int port = 0;
    int rc;
    tachy_wire_put_cstr(b, tachy_exchange_request_method(ex));
    tachy_wire_put_cstr(b, tachy_exchange_request_uri(ex));
    tachy_wire_put_cstr(b, tachy_exchange_protocol(ex));
    const tachy_headers *rsp = tachy_exchange_response_headers(ex);
    size_t pairs = rsp != NULL ? tachy_headers_pairs(rsp) : 0;
    tachy_wire_put_num(b, (int32_t)pairs);
    size_t cursor = 0, written = 0;
    const char *name, *value;
    while (rsp != NULL && written < pairs && tachy_headers_next(rsp, &cursor, &name, &value)) {
        tachy_wire_put_cstr(b, name);
        tachy_wire_put_cstr(b, value);
        written++;
    }
    if (written != pairs) {
        b->failed = 1;
    }
    rc = tachy_exchange_remote_address(ex, host, sizeof host, &port);
    hb_addr(b, rc, host, port);
    rc = tachy_exchange_local_address(ex, host, sizeof host, &port);
    hb_addr(b, rc, host, port);
    /* Without building the core's headers object: Java keeps its own (RequestHeaders). */
    if (tachy_exchange_request_fields(ex, hb_field, b) < 0)
        b->failed = 1;
}

int tachy_jni__dispatch(tachy_exchange *ex, void *user) {
    jint id = (jint)(intptr_t)user;
    JNIEnv *env = env_attach("handler", 1);
    if (env == NULL) {
        return -1;
    }
    unsigned char stack[2048];
    tachy_wire_buf b;
    tachy_wire_init(&b, stack, sizeof stack);
    head_build(&b, ex);
    int result = -1;
    int local = 0; /* a new local array (off the pool, nothing lent or too small) */
    jbyteArray head = b.failed ? NULL : head_array(env, b.len, &local);
    if (head != NULL) {
        /* In bounds by construction (the array holds at least b.len bytes): cannot throw. */
        (*env)->SetByteArrayRegion(env, head, 0, (jsize)b.len, (const jbyte *)b.p);
        /* No local reference is created on a pool thread's path (the array is a global
         * reference) nor with a lent array, so the upcall needs no local frame of its own. */
        jint rc = (*env)->CallStaticIntMethod(env, g_native, g_dispatch, id,
                                             (jlong)(intptr_t)ex, head, (jint)b.len);
        if (local) {
            (*env)->DeleteLocalRef(env, head);
        }
        if (!(*env)->ExceptionCheck(env)) {
            result = rc < 0 ? -1 : 0;
        } else {
            /* Native.dispatch catches everything a handler throws; this is an Error raised
             * in the bridge itself (OutOfMemoryError, ...): report it, close the connection. */
            (*env)->ExceptionDescribe(env);
            (*env)->ExceptionClear(env);
        }
    }
    tachy_wire_free(&b);
    return result;
}

/* ---- load / unload ------------------------------------------------------------------------- */

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, TACHY_JNI_VERSION) != JNI_OK) {
        return JNI_ERR;
    }
    jclass cls = (*env)->FindClass(env, TACHY_JNI_NATIVE_CLASS);
    if (cls == NULL) {
        return JNI_ERR; /* NoClassDefFoundError pending */
    }
    if (tachy_jni__register_natives(env, cls) != 0) {
        return JNI_ERR;
    }
    if (tachy_jni__register_ws_natives(env) != 0) {
        return JNI_ERR;
    }
    if (tachy_jni__register_tls_natives(env) != 0) { /* HTTPS: jni/tls_natives.c */
        return JNI_ERR;
    }
    g_dispatch = (*env)->GetStaticMethodID(env, cls, "dispatch", "(IJ[BI)I");
    if (g_dispatch == NULL) {
        return JNI_ERR;
    }
    g_log = (*env)->GetStaticMethodID(env, cls, "log", "(ILjava/lang/String;)V");
    if (g_log == NULL) {
        return JNI_ERR;
    }
    g_access_log = (*env)->GetStaticMethodID(env, cls, "accessLog", "(Ljava/lang/String;)V");
    if (g_access_log == NULL) {
        return JNI_ERR;
    }
    g_native = (*env)->NewGlobalRef(env, cls);
    if (g_native == NULL) {
        return JNI_ERR;
    }
    g_attach_key_ok = pthread_key_create(&g_attach_key, detach_at_exit) == 0;
    g_vm = vm;
    return TACHY_JNI_VERSION;
}

/* Deletes every global reference the bridge holds (this file's and those that ws_natives.c
 * and tls_natives.c cached at load). env is NULL when the VM gave none: the references are
 * then only forgotten. The per-thread upcall arrays are deleted as their threads detach. */
JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, TACHY_JNI_VERSION) != JNI_OK) {
        env = NULL;
    }
    tachy_jni__unload_ws_natives(env);
    tachy_jni__unload_tls_natives(env);
    if (env != NULL && g_native != NULL) {
        (*env)->DeleteGlobalRef(env, g_native);
    }
    g_native = NULL;
    g_dispatch = NULL;
    g_log = NULL;
    g_access_log = NULL;
    if (g_attach_key_ok) {
        pthread_key_delete(g_attach_key);
        g_attach_key_ok = 0;
    }
    g_vm = NULL;
}
