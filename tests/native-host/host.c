/*
 * tests/native-host/host.c - loads a shipped libtachy_jni.so without a JVM and has it serve
 * one real HTTP request on 127.0.0.1.
 *
 *   tachy-native-host path/to/libtachy_jni.so
 *
 * Why: the jar ships natives for four platforms (x86_64/aarch64, glibc/musl) and this build
 * host has a JVM for only one of them. Built by Zig for each target and run natively or
 * under qemu-aarch64 (scripts/cross-test.sh), this program proves for each library that it
 * loads with the target's C library and dynamic linker (dlopen RTLD_NOW: every symbol
 * resolves), that JNI_OnLoad succeeds and registers the natives the Java side declares, and
 * that the core inside it serves a request through them: the natives are called exactly as
 * Native.java calls them, with this file's minimal JavaVM/JNIEnv standing in for the JVM.
 *
 * The fake JNI implements only the functions the bridge calls on this path (an unexpected
 * one aborts with a message): objects are plain heap blocks, never freed (the program is
 * short-lived), exceptions never pend. The upcall Native.dispatch answers 200 with a fixed
 * body from C. Every pool thread shares the one JNIEnv (the fake keeps no per-thread state).
 *
 * Output: one line per check and a summary "N passed, M failed"; exit status 0 only when
 * all passed. Bounded: socket timeouts of 10 s, one request.
 */
#include <jni.h>

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* ---- the fake JVM's objects ------------------------------------------------------------ */

enum kind { K_CLASS = 1, K_STRING, K_BYTES, K_LONGS };

typedef struct fobj {
    enum kind kind;
    jsize len;  /* array length, string length */
    void *data; /* array elements, NUL-terminated string, class name */
} fobj;

typedef struct fmember { /* a jmethodID / jfieldID */
    char name[64];
    char sig[128];
} fmember;

#define MAX_NATIVES 128
static struct {
    char cls[128];
    char name[64];
    char sig[128];
    void *fn;
} natives[MAX_NATIVES];
static int native_count;

static void die(const char *what) {
    fprintf(stderr, "native-host: %s\n", what);
    abort();
}

static fobj *obj_new(enum kind k, jsize len, size_t elem) {
    fobj *o = calloc(1, sizeof *o);
    if (o == NULL || (o->data = calloc((size_t)len + 1, elem)) == NULL)
        die("out of memory");
    o->kind = k;
    o->len = len;
    return o;
}

static fobj *as(jobject ref, enum kind k) {
    fobj *o = (fobj *)ref;
    if (o == NULL || o->kind != k)
        die("a JNI call got an object of the wrong kind");
    return o;
}

static void *find_native(const char *name, const char *sig) {
    for (int i = 0; i < native_count; i++)
        if (strcmp(natives[i].name, name) == 0 && strcmp(natives[i].sig, sig) == 0)
            return natives[i].fn;
    return NULL;
}

/* ---- JNIEnv ------------------------------------------------------------------------------ */

static JNIEnv g_env;
static JavaVM g_vm;
static struct JNINativeInterface_ g_fns;
static struct JNIInvokeInterface_ g_vm_fns;

static void unimplemented(void) { die("the library called a JNI function this host does not implement"); }

static jclass f_find_class(JNIEnv *env, const char *name) {
    (void)env;
    fobj *c = obj_new(K_CLASS, (jsize)strlen(name), 1);
    memcpy(c->data, name, strlen(name));
    return (jclass)c;
}

static fmember *member(const char *name, const char *sig) {
    fmember *m = calloc(1, sizeof *m);
    if (m == NULL)
        die("out of memory");
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->sig, sizeof m->sig, "%s", sig);
    return m;
}

static jmethodID f_get_method_id(JNIEnv *env, jclass c, const char *name, const char *sig) {
    (void)env;
    (void)as(c, K_CLASS);
    return (jmethodID)member(name, sig);
}

static jfieldID f_get_field_id(JNIEnv *env, jclass c, const char *name, const char *sig) {
    (void)env;
    (void)as(c, K_CLASS);
    return (jfieldID)member(name, sig);
}

static jint f_register_natives(JNIEnv *env, jclass c, const JNINativeMethod *m, jint n) {
    (void)env;
    fobj *cls = as(c, K_CLASS);
    for (jint i = 0; i < n; i++) {
        if (native_count == MAX_NATIVES)
            die("too many natives");
        snprintf(natives[native_count].cls, sizeof natives[0].cls, "%s", (char *)cls->data);
        snprintf(natives[native_count].name, sizeof natives[0].name, "%s", m[i].name);
        snprintf(natives[native_count].sig, sizeof natives[0].sig, "%s", m[i].signature);
        natives[native_count].fn = m[i].fnPtr;
        if (m[i].fnPtr == NULL)
            die("RegisterNatives with a NULL function");
        native_count++;
    }
    return JNI_OK;
}

static jobject f_new_global_ref(JNIEnv *env, jobject o) { (void)env; return o; }
static void f_delete_ref(JNIEnv *env, jobject o) { (void)env; (void)o; }
static jboolean f_exception_check(JNIEnv *env) { (void)env; return JNI_FALSE; }
static void f_exception_clear(JNIEnv *env) { (void)env; }
static void f_exception_describe(JNIEnv *env) { (void)env; }
static jint f_push_local_frame(JNIEnv *env, jint cap) { (void)env; (void)cap; return 0; }
static jobject f_pop_local_frame(JNIEnv *env, jobject result) { (void)env; return result; }

static jstring f_new_string_utf(JNIEnv *env, const char *s) {
    (void)env;
    fobj *o = obj_new(K_STRING, (jsize)strlen(s), 1);
    memcpy(o->data, s, strlen(s));
    return (jstring)o;
}

static const char *f_get_string_utf_chars(JNIEnv *env, jstring s, jboolean *copy) {
    (void)env;
    if (copy)
        *copy = JNI_FALSE;
    return as(s, K_STRING)->data;
}

static void f_release_string_utf_chars(JNIEnv *env, jstring s, const char *p) {
    (void)env;
    (void)s;
    (void)p;
}

static jsize f_get_array_length(JNIEnv *env, jarray a) {
    (void)env;
    return ((fobj *)a)->len;
}

static jbyteArray f_new_byte_array(JNIEnv *env, jsize len) {
    (void)env;
    return (jbyteArray)obj_new(K_BYTES, len, 1);
}

static void region_check(fobj *o, jsize start, jsize len) {
    if (start < 0 || len < 0 || start > o->len || len > o->len - start)
        die("array region out of bounds");
}

static void f_get_byte_array_region(JNIEnv *env, jbyteArray a, jsize start, jsize len, jbyte *buf) {
    (void)env;
    fobj *o = as(a, K_BYTES);
    region_check(o, start, len);
    memcpy(buf, (jbyte *)o->data + start, (size_t)len);
}

static void f_set_byte_array_region(JNIEnv *env, jbyteArray a, jsize start, jsize len, const jbyte *buf) {
    (void)env;
    fobj *o = as(a, K_BYTES);
    region_check(o, start, len);
    memcpy((jbyte *)o->data + start, buf, (size_t)len);
}

static void f_get_long_array_region(JNIEnv *env, jlongArray a, jsize start, jsize len, jlong *buf) {
    (void)env;
    fobj *o = as(a, K_LONGS);
    region_check(o, start, len);
    memcpy(buf, (jlong *)o->data + start, (size_t)len * sizeof(jlong));
}

/* ---- the upcalls: Native.dispatch answers from C, Native.log prints ---------------------- */

static int g_dispatched;

static void put_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static const char BODY[] = "native-host-ok";

/* What Native.dispatch -> TachyHttpExchange does for a handler that answers 200 + BODY. */
static jint dispatch(jint id, jlong ex, jbyteArray head, jint head_len) {
    jlong (*send_headers)(JNIEnv *, jclass, jlong, jint, jlong, jbyteArray, jint) =
        (jlong(*)(JNIEnv *, jclass, jlong, jint, jlong, jbyteArray, jint))find_native("sendResponseHeaders", "(JIJ[BI)J");
    jint (*write_fn)(JNIEnv *, jclass, jlong, jbyteArray, jint, jint) =
        (jint(*)(JNIEnv *, jclass, jlong, jbyteArray, jint, jint))find_native("write", "(J[BII)I");
    jint (*close_fn)(JNIEnv *, jclass, jlong, jboolean, jbyteArray, jint) =
        (jint(*)(JNIEnv *, jclass, jlong, jboolean, jbyteArray, jint))find_native("close", "(JZ[BI)I");
    if (send_headers == NULL || write_fn == NULL || close_fn == NULL)
        return -1;
    fobj *h = as(head, K_BYTES);
    /* the request head the bridge serialised holds the request's path */
    int saw_path = head_len > 0 && memmem(h->data, (size_t)head_len, "/probe", 6) != NULL;
    (void)id;
    /* response fields as TachyHttpExchange.sendResponseHeaders writes them (Wire.Writer):
     * be32 length + bytes */
    static const char name[] = "Content-Type", value[] = "text/plain";
    unsigned char fields[4 + sizeof name - 1 + 4 + sizeof value - 1];
    put_be32(fields, sizeof name - 1);
    memcpy(fields + 4, name, sizeof name - 1);
    put_be32(fields + 4 + sizeof name - 1, sizeof value - 1);
    memcpy(fields + 8 + sizeof name - 1, value, sizeof value - 1);
    fobj *jf = obj_new(K_BYTES, (jsize)sizeof fields, 1);
    memcpy(jf->data, fields, sizeof fields);
    if (send_headers(&g_env, NULL, ex, saw_path ? 200 : 400, (jlong)(sizeof BODY - 1), (jbyteArray)jf,
                     (jint)sizeof fields) < 0)
        return -1;
    fobj *jb = obj_new(K_BYTES, (jsize)sizeof BODY - 1, 1);
    memcpy(jb->data, BODY, sizeof BODY - 1);
    if (write_fn(&g_env, NULL, ex, (jbyteArray)jb, 0, (jint)sizeof BODY - 1) < 0)
        return -1;
    __atomic_add_fetch(&g_dispatched, 1, __ATOMIC_SEQ_CST);
    return close_fn(&g_env, NULL, ex, JNI_FALSE, NULL, 0) < 0 ? -1 : 0;
}

static jint f_call_static_int_method(JNIEnv *env, jclass c, jmethodID m, ...) {
    (void)env;
    (void)as(c, K_CLASS);
    fmember *mm = (fmember *)m;
    if (strcmp(mm->name, "dispatch") != 0)
        die("unexpected static int upcall");
    va_list ap;
    va_start(ap, m);
    jint id = va_arg(ap, jint);
    jlong ex = va_arg(ap, jlong);
    jbyteArray head = va_arg(ap, jbyteArray);
    jint len = va_arg(ap, jint);
    va_end(ap);
    return dispatch(id, ex, head, len);
}

static void f_call_static_void_method(JNIEnv *env, jclass c, jmethodID m, ...) {
    (void)env;
    (void)c;
    fmember *mm = (fmember *)m;
    if (strcmp(mm->name, "log") != 0)
        die("unexpected static void upcall");
    va_list ap;
    va_start(ap, m);
    jint level = va_arg(ap, jint);
    jstring msg = va_arg(ap, jstring);
    va_end(ap);
    fprintf(stderr, "native-host: log %d: %s\n", (int)level, (char *)as(msg, K_STRING)->data);
}

/* ---- JavaVM -------------------------------------------------------------------------------- */

static jint vm_get_env(JavaVM *vm, void **penv, jint version) {
    (void)vm;
    (void)version;
    *penv = &g_env;
    return JNI_OK;
}

static jint vm_attach(JavaVM *vm, void **penv, void *args) {
    (void)args;
    return vm_get_env(vm, penv, JNI_VERSION_1_8);
}

static jint vm_detach(JavaVM *vm) {
    (void)vm;
    return JNI_OK;
}

static void fake_jvm_init(void) {
    void **slots = (void **)&g_fns;
    for (size_t i = 0; i < sizeof g_fns / sizeof(void *); i++)
        slots[i] = (void *)unimplemented;
    g_fns.FindClass = f_find_class;
    g_fns.GetMethodID = f_get_method_id;
    g_fns.GetStaticMethodID = f_get_method_id;
    g_fns.GetFieldID = f_get_field_id;
    g_fns.RegisterNatives = f_register_natives;
    g_fns.NewGlobalRef = f_new_global_ref;
    g_fns.DeleteGlobalRef = f_delete_ref;
    g_fns.DeleteLocalRef = f_delete_ref;
    g_fns.ExceptionCheck = f_exception_check;
    g_fns.ExceptionClear = f_exception_clear;
    g_fns.ExceptionDescribe = f_exception_describe;
    g_fns.PushLocalFrame = f_push_local_frame;
    g_fns.PopLocalFrame = f_pop_local_frame;
    g_fns.NewStringUTF = f_new_string_utf;
    g_fns.GetStringUTFChars = f_get_string_utf_chars;
    g_fns.ReleaseStringUTFChars = f_release_string_utf_chars;
    g_fns.GetArrayLength = f_get_array_length;
    g_fns.NewByteArray = f_new_byte_array;
    g_fns.GetByteArrayRegion = f_get_byte_array_region;
    g_fns.SetByteArrayRegion = f_set_byte_array_region;
    g_fns.GetLongArrayRegion = f_get_long_array_region;
    g_fns.CallStaticIntMethod = f_call_static_int_method;
    g_fns.CallStaticVoidMethod = f_call_static_void_method;
    g_env = &g_fns;

    void **vslots = (void **)&g_vm_fns;
    for (size_t i = 0; i < sizeof g_vm_fns / sizeof(void *); i++)
        vslots[i] = (void *)unimplemented;
    g_vm_fns.GetEnv = vm_get_env;
    g_vm_fns.AttachCurrentThread = vm_attach;
    g_vm_fns.AttachCurrentThreadAsDaemon = vm_attach;
    g_vm_fns.DetachCurrentThread = vm_detach;
    g_vm = &g_vm_fns;
}

/* ---- checks ---------------------------------------------------------------------------------- */

static int passed, failed;

static void check(int ok, const char *what) {
    printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
    if (ok)
        passed++;
    else
        failed++;
}

/* GET /probe over a fresh connection; the whole response (Connection: close) into buf. */
static size_t fetch(int port, char *buf, size_t cap) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 0;
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    size_t got = 0;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
        static const char req[] = "GET /probe HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        if (send(fd, req, sizeof req - 1, 0) == (ssize_t)(sizeof req - 1)) {
            ssize_t n;
            while (got < cap - 1 && (n = recv(fd, buf + got, cap - 1 - got, 0)) > 0)
                got += (size_t)n;
        }
    }
    buf[got] = '\0';
    close(fd);
    return got;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s path/to/libtachy_jni.so\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    fake_jvm_init();
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        fprintf(stderr, "native-host: %s\n", dlerror());
    check(h != NULL, "dlopen(RTLD_NOW): every symbol resolves with this C library");
    if (h == NULL)
        goto out;
    jint (*on_load)(JavaVM *, void *);
    *(void **)&on_load = dlsym(h, "JNI_OnLoad");
    check(on_load != NULL, "JNI_OnLoad is exported");
    check(dlsym(h, "tachy_server_create") == NULL, "the core's C symbols are not exported");
    if (on_load == NULL)
        goto out;
    check(on_load(&g_vm, NULL) == JNI_VERSION_1_8, "JNI_OnLoad returns JNI_VERSION_1_8");
    printf("      %d natives registered\n", native_count);
    static const char *const need[][2] = {
        {"version", "()Ljava/lang/String;"}, {"serverCreate", "([J)J"},
        {"serverBind", "(JLjava/lang/String;II)I"}, {"serverStart", "(JZ)I"},
        {"serverPort", "(J)I"}, {"contextCreate", "(JLjava/lang/String;I)J"},
        {"serverStop", "(JI)I"}, {"serverDestroy", "(J)V"},
        {"sendResponseHeaders", "(JIJ[BI)J"}, {"write", "(J[BII)I"}, {"close", "(JZ[BI)I"},
        {"lend", "(J)I"},
    };
    int all = 1;
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (find_native(need[i][0], need[i][1]) == NULL) {
            fprintf(stderr, "native-host: no native %s%s\n", need[i][0], need[i][1]);
            all = 0;
        }
    check(all, "RegisterNatives registered the natives Native.java declares");
    if (!all)
        goto out;

    jstring (*version)(JNIEnv *, jclass) = (jstring(*)(JNIEnv *, jclass))find_native("version", "()Ljava/lang/String;");
    const char *v = as(version(&g_env, NULL), K_STRING)->data;
    printf("      version %s\n", v);
    check(strcmp(v, "0.1.0") == 0, "Native.version() is 0.1.0");

    jlong (*server_create)(JNIEnv *, jclass, jlongArray) = (jlong(*)(JNIEnv *, jclass, jlongArray))find_native("serverCreate", "([J)J");
    jint (*server_bind)(JNIEnv *, jclass, jlong, jstring, jint, jint) = (jint(*)(JNIEnv *, jclass, jlong, jstring, jint, jint))find_native("serverBind", "(JLjava/lang/String;II)I");
    jlong (*context_create)(JNIEnv *, jclass, jlong, jstring, jint) = (jlong(*)(JNIEnv *, jclass, jlong, jstring, jint))find_native("contextCreate", "(JLjava/lang/String;I)J");
    jint (*server_start)(JNIEnv *, jclass, jlong, jboolean) =
        (jint(*)(JNIEnv *, jclass, jlong, jboolean))find_native("serverStart", "(JZ)I");
    jint (*server_port)(JNIEnv *, jclass, jlong) = (jint(*)(JNIEnv *, jclass, jlong))find_native("serverPort", "(J)I");
    jint (*server_stop)(JNIEnv *, jclass, jlong, jint) = (jint(*)(JNIEnv *, jclass, jlong, jint))find_native("serverStop", "(JI)I");
    void (*server_destroy)(JNIEnv *, jclass, jlong) = (void (*)(JNIEnv *, jclass, jlong))find_native("serverDestroy", "(J)V");

    fobj *opts = obj_new(K_LONGS, 13, sizeof(jlong));
    for (int i = 0; i < 13; i++)
        ((jlong *)opts->data)[i] = INT64_MIN; /* Native.OPT_DEFAULT: the C defaults */
    jlong srv = server_create(&g_env, NULL, (jlongArray)opts);
    check(srv > 0, "serverCreate (a pointer, not a negative code)");
    int rc = server_bind(&g_env, NULL, srv, f_new_string_utf(&g_env, "127.0.0.1"), 0, 16);
    check(rc == 0, "serverBind 127.0.0.1:0");
    jlong ctx = context_create(&g_env, NULL, srv, f_new_string_utf(&g_env, "/"), 1);
    check(ctx > 0, "contextCreate / with a handler");
    check(server_start(&g_env, NULL, srv, JNI_TRUE) == 0, "serverStart"); /* daemon threads */
    int port = server_port(&g_env, NULL, srv);
    char resp[4096];
    size_t n = port > 0 ? fetch(port, resp, sizeof resp) : 0;
    if (n == 0 || strncmp(resp, "HTTP/1.1 200", 12) != 0)
        fprintf(stderr, "native-host: response: %s\n", resp);
    check(n > 0 && strncmp(resp, "HTTP/1.1 200", 12) == 0, "GET /probe answered 200 (the head carried the path)");
    const char *body = strstr(resp, "\r\n\r\n");
    check(body != NULL && strcmp(body + 4, BODY) == 0, "the body is the one the upcall wrote");
    check(__atomic_load_n(&g_dispatched, __ATOMIC_SEQ_CST) == 1, "one upcall to Native.dispatch");
    check(server_stop(&g_env, NULL, srv, 0) == 0, "serverStop");
    server_destroy(&g_env, NULL, srv);
out:
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
