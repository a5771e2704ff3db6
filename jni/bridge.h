/*
 * jni/bridge.h - declarations shared by the JNI bridge's files. Never installed.
 *
 * bridge.c  : JNI_OnLoad/OnUnload, the cached class and method IDs, the thread hooks that
 *             attach connection threads to the JVM, the log hook, and the C handler that
 *             makes the one upcall per request (Native.dispatch).
 * natives.c : the native methods of dev.tachy.httpserver.Native and their registration.
 * ws_natives.c, tls_natives.c : the natives of WsNative and TlsNative, their cached
 *             references and the unload functions that free them.
 *
 * Everything here has hidden visibility (and exports.map hides it again at link time).
 */
#ifndef TACHY_JNI_BRIDGE_H
#define TACHY_JNI_BRIDGE_H

#include <jni.h>
#include <stdint.h>
#include <tachy/tachy.h>

#define TACHY_JNI_VERSION JNI_VERSION_1_8
#define TACHY_JNI_NATIVE_CLASS "dev/tachy/httpserver/Native"

/*
 * The option index tables: the long[] that Native.serverCreate receives (Java's Native.OPT_*:
 * jni/wire.h's TACHY_WIRE_OPTIONS, with the tachy_options member each sets) and the one
 * WsNative.attach receives (WsNative.OPT_*: TACHY_JNI_WS_OPTIONS below), in index order.
 * Java spells the same names with OPT_ in front; WireTest reads both tables through
 * Native.wireOptionNames and fails when a name or an index differs, so an option added on
 * one side only is found.
 * An element equal to TACHY_JNI_OPT_DEFAULT (Long.MIN_VALUE: Native.OPT_DEFAULT,
 * WsNative.OPT_DEFAULT) keeps the C default (tachy_options_init, tachy_ws_options_init).
 */
#define TACHY_JNI_OPT_DEFAULT INT64_MIN
#define TACHY_JNI_WS_OPTIONS(X)                                                                \
    X(MAX_MESSAGE)                                                                             \
    X(DEFLATE)                                                                                 \
    X(DEFLATE_THRESHOLD)                                                                       \
    X(SEND_TIMEOUT_MS)                                                                         \
    X(CLOSE_TIMEOUT_MS)                                                                        \
    X(IDLE_TIMEOUT_MS)                                                                         \
    X(PING_INTERVAL_MS)                                                                        \
    X(PING_TIMEOUT_MS)                                                                         \
    X(MAX_BACKLOG)                                                                             \
    X(BACKLOG_POLICY)

#define TACHY_JNI_WS_OPT_ENUM(name) TACHY_JNI_WS_OPT_##name,
enum { TACHY_JNI_WS_OPTIONS(TACHY_JNI_WS_OPT_ENUM) TACHY_JNI_WS_OPT_COUNT };
#undef TACHY_JNI_WS_OPT_ENUM

/* Per-server state owned by the bridge, reachable through tachy_options.log_user. */
typedef struct tachy_jni_server {
    int log_min; /* lowest tachy_log_level forwarded to Java; 0 = none */
    /* 1: pool threads attach as daemon Java threads; 0: as non-daemon threads (the server
     * has no executor, so handlers run on them, and the JDK runs such handlers on its
     * non-daemon dispatcher thread). Written by Native.serverStart before
     * tachy_server_start, read by pool threads (created after it) in the thread-start hook,
     * which gets this struct as thread_hook_user. */
    int daemon_threads;
} tachy_jni_server;

/* The C handler of every Java-backed context: user is the context id (an int). */
int tachy_jni__dispatch(tachy_exchange *ex, void *user);

/* tachy_options hooks (bridge.c). */
void tachy_jni__thread_start(void *user, const char *name);
void tachy_jni__thread_stop(void *user);
void tachy_jni__log(void *user, int level, const char *message);
/* tachy_options.access_log_fn with -Dtachy.accessLog=System.Logger: the line to
 * Native.accessLog (the logger "dev.tachy.httpserver.access", INFO). The access log's
 * writer thread (attached to the JVM by tachy_jni__thread_start). */
void tachy_jni__access_log(void *user, const char *line, size_t len);

/* The calling thread's JNIEnv: pool threads are attached once when they start
 * (tachy_jni__thread_start), so this is a GetEnv; any other thread is attached as a daemon
 * thread (detached at its exit by the key destructor). NULL if the JVM refuses. */
JNIEnv *tachy_jni__env(void);

/*
 * An array the caller of a native lends the bridge as the upcall array of the requests it
 * dispatches on a thread that is not one of the pool's: Native.close on an executor's thread
 * whose close continues the connection (the next pipelined request, a harvest) passes one,
 * so those upcalls neither create a local array nor delete it. It is a local reference of
 * that native call: set by it on entry and put back (the previous value) before it returns,
 * so nested calls (a handler run inline by its executor closes its own exchange) each see
 * their own. array NULL: none.
 */
typedef struct tachy_jni_borrowed {
    jbyteArray array;
    jsize cap;
} tachy_jni_borrowed;

/* Makes b the calling thread's borrowed upcall array; returns the one it replaces. */
tachy_jni_borrowed tachy_jni__borrow_head(tachy_jni_borrowed b);

/* Registers WsNative's methods and caches TachyWebSocket's upcalls (ws_natives.c). */
int tachy_jni__register_ws_natives(JNIEnv *env);

/* Registers TlsNative's methods (tls_natives.c: HttpsServer on OpenSSL). 0 or a JNI error. */
int tachy_jni__register_tls_natives(JNIEnv *env);

/* JNI_OnUnload, on the thread that unloads the library: delete the global references the
 * register functions above cached (env NULL: only forget them) and clear the IDs. */
void tachy_jni__unload_ws_natives(JNIEnv *env);
void tachy_jni__unload_tls_natives(JNIEnv *env);

/* Registers Native's methods on cls (natives.c). Returns 0 or a JNI error. */
int tachy_jni__register_natives(JNIEnv *env, jclass cls);

#endif
