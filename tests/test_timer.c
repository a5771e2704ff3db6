/*
 * test_timer.c - the server timers (tachy/timer.h, loop/timers.c) on a started server:
 * one-shot and periodic timers run on pool threads at their time, cancel prevents runs and
 * waits for a running callback, a callback may cancel itself, many timers fire in due
 * order, and stop drops what is pending.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <tachy/tachy.h>
#include <tachy/timer.h>

#include "tsupport.h"

static tachy_server *srv;

static int setup(void **state) {
    (void)state;
    srv = ts_server(NULL);
    return srv && ts_start(srv) > 0 ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    ts_stop(srv);
    return 0;
}

typedef struct rec {
    atomic_int runs;
    atomic_long first_ms, last_ms;
    char thread[16];
    atomic_int named;    /* thread[] written (after runs counted the first run) */
    atomic_int sleep_ms; /* the callback sleeps this long */
    tachy_timer *self;   /* cancelled from the callback after cancel_after runs */
    int cancel_after;
} rec;

static void rec_fn(tachy_timer *t, void *user) {
    rec *r = user;
    long now = ts_now_ms();
    int n = atomic_fetch_add(&r->runs, 1) + 1;
    if (n == 1) {
        atomic_store(&r->first_ms, now);
        pthread_getname_np(pthread_self(), r->thread, sizeof r->thread);
        atomic_store(&r->named, 1);
    }
    atomic_store(&r->last_ms, now);
    int s = atomic_load(&r->sleep_ms);
    if (s)
        ts_sleep_ms(s);
    if (r->cancel_after && n == r->cancel_after) {
        assert_ptr_equal(t, r->self);
        assert_int_equal(tachy_timer_cancel(t), 0); /* running: nothing pending to prevent */
    }
}

static void wait_runs(rec *r, int n, long limit_ms) {
    long end = ts_now_ms() + limit_ms;
    while (atomic_load(&r->runs) < n && ts_now_ms() < end)
        ts_sleep_ms(2);
}

static void one_shot_runs_once_on_a_pool_thread(void **state) {
    (void)state;
    static rec r; /* static: a test's callbacks never share memory with the next test's */
    memset(&r, 0, sizeof r);
    long t0 = ts_now_ms();
    tachy_timer *t;
    assert_int_equal(tachy_timer_schedule(srv, 100, 0, rec_fn, &r, &t), 0);
    assert_int_equal(tachy_timer_pending(srv), 1);
    wait_runs(&r, 1, 3000);
    assert_int_equal(atomic_load(&r.runs), 1);
    long took = atomic_load(&r.first_ms) - t0;
    assert_true(took >= 95 && took < 1000);
    for (long end = ts_now_ms() + 3000; !atomic_load(&r.named) && ts_now_ms() < end;)
        ts_sleep_ms(1); /* runs is counted before the name is read (slow under valgrind) */
    assert_memory_equal(r.thread, "tachy-conn-", 11);
    ts_sleep_ms(150);
    assert_int_equal(atomic_load(&r.runs), 1);
    assert_int_equal(tachy_timer_pending(srv), 0);
    assert_int_equal(tachy_timer_cancel(t), 0); /* already ran: nothing prevented */
}

static void periodic_keeps_its_rate_until_cancelled(void **state) {
    (void)state;
    static rec r; /* static: a test's callbacks never share memory with the next test's */
    memset(&r, 0, sizeof r);
    tachy_timer *t;
    long t0 = ts_now_ms();
    assert_int_equal(tachy_timer_schedule(srv, 20, 20, rec_fn, &r, &t), 0);
    wait_runs(&r, 10, 5000);
    long took = ts_now_ms() - t0;
    assert_true(atomic_load(&r.runs) >= 10);
    assert_true(took >= 190 && took < 2000); /* 10 runs at 20 ms: ~200 ms */
    assert_int_equal(tachy_timer_cancel(t), 1);
    int runs = atomic_load(&r.runs);
    ts_sleep_ms(100);
    assert_int_equal(atomic_load(&r.runs), runs); /* none after cancel returned */
}

static void cancel_prevents_a_pending_run(void **state) {
    (void)state;
    static rec r; /* static: a test's callbacks never share memory with the next test's */
    memset(&r, 0, sizeof r);
    tachy_timer *t;
    assert_int_equal(tachy_timer_schedule(srv, 200, 0, rec_fn, &r, &t), 0);
    assert_int_equal(tachy_timer_cancel(t), 1);
    assert_int_equal(tachy_timer_pending(srv), 0);
    ts_sleep_ms(300);
    assert_int_equal(atomic_load(&r.runs), 0);
}

static void cancel_waits_for_a_running_callback(void **state) {
    (void)state;
    static rec r; /* static: a test's callbacks never share memory with the next test's */
    memset(&r, 0, sizeof r);
    atomic_store(&r.sleep_ms, 300);
    tachy_timer *t;
    assert_int_equal(tachy_timer_schedule(srv, 0, 0, rec_fn, &r, &t), 0);
    wait_runs(&r, 1, 3000);
    long t0 = ts_now_ms();
    assert_int_equal(tachy_timer_cancel(t), 0);
    long waited = ts_now_ms() - t0;
    /* The callback was sleeping: cancel returned only after it had returned. */
    assert_true(waited >= 150);
}

static void a_callback_may_cancel_itself(void **state) {
    (void)state;
    static rec r; /* static: a test's callbacks never share memory with the next test's */
    memset(&r, 0, sizeof r);
    r.cancel_after = 3;
    assert_int_equal(tachy_timer_schedule(srv, 10, 10, rec_fn, &r, &r.self), 0);
    wait_runs(&r, 3, 3000);
    ts_sleep_ms(100);
    assert_int_equal(atomic_load(&r.runs), 3);
}

/* Many timers with shuffled delays all run, none early. */
#define MANY 2000
static atomic_int many_early, many_runs;
static long many_t0;
static long many_due[MANY];

static void many_fn(tachy_timer *t, void *user) {
    (void)t;
    long i = (long)(intptr_t)user;
    if (ts_now_ms() - many_t0 + 2 < many_due[i]) /* ts_now_ms is coarse: 2 ms of slack */
        atomic_fetch_add(&many_early, 1);
    atomic_fetch_add(&many_runs, 1);
}

static void many_timers_run_none_early(void **state) {
    (void)state;
    many_t0 = ts_now_ms();
    for (long i = 0; i < MANY; i++) {
        many_due[i] = (i * 7919) % 300;
        assert_int_equal(tachy_timer_schedule(srv, many_due[i], 0, many_fn, (void *)(intptr_t)i, NULL), 0);
    }
    long end = ts_now_ms() + 5000;
    while (atomic_load(&many_runs) < MANY && ts_now_ms() < end)
        ts_sleep_ms(5);
    assert_int_equal(atomic_load(&many_runs), MANY);
    assert_int_equal(atomic_load(&many_early), 0);
    assert_int_equal(tachy_timer_pending(srv), 0);
}

/* Cancelling timers from anywhere in the heap (not only its top) keeps the rest in order:
 * of 3,000 timers with shuffled delays every third is cancelled before it is due; those
 * never run, every other runs exactly once and none early. */
#define MIXED 3000
static atomic_int mixed_runs[MIXED], mixed_early;
static long mixed_t0;
static long mixed_due[MIXED];

static void mixed_fn(tachy_timer *t, void *user) {
    (void)t;
    long i = (long)(intptr_t)user;
    if (ts_now_ms() - mixed_t0 + 2 < mixed_due[i])
        atomic_fetch_add(&mixed_early, 1);
    atomic_fetch_add(&mixed_runs[i], 1);
}

static void cancelled_in_the_middle_never_run(void **state) {
    (void)state;
    static tachy_timer *h[MIXED];
    mixed_t0 = ts_now_ms();
    for (long i = 0; i < MIXED; i++) {
        mixed_due[i] = 200 + (i * 7919) % 400;
        assert_int_equal(tachy_timer_schedule(srv, mixed_due[i], 0, mixed_fn, (void *)(intptr_t)i, &h[i]), 0);
    }
    int prevented = 0;
    for (long i = 0; i < MIXED; i += 3)
        prevented += tachy_timer_cancel(h[i]);
    assert_true(ts_now_ms() - mixed_t0 < 200); /* all cancelled before the first was due */
    assert_int_equal(prevented, MIXED / 3);
    long end = ts_now_ms() + 5000;
    long want = MIXED - MIXED / 3, got = 0;
    while (ts_now_ms() < end) {
        got = 0;
        for (long i = 0; i < MIXED; i++)
            got += atomic_load(&mixed_runs[i]);
        if (got >= want)
            break;
        ts_sleep_ms(5);
    }
    ts_sleep_ms(50);
    for (long i = 0; i < MIXED; i++)
        assert_int_equal(atomic_load(&mixed_runs[i]), i % 3 == 0 ? 0 : 1);
    assert_int_equal(atomic_load(&mixed_early), 0);
    assert_int_equal(tachy_timer_pending(srv), 0);
    for (long i = 0; i < MIXED; i++)
        if (i % 3)
            tachy_timer_cancel(h[i]);
}

/* A blocking callback does not hold up the timers due after its batch. */
static void a_blocked_callback_does_not_stop_the_others(void **state) {
    (void)state;
    static rec slow, fast;
    memset(&slow, 0, sizeof slow);
    memset(&fast, 0, sizeof fast);
    atomic_store(&slow.sleep_ms, 1000);
    tachy_timer *a, *b;
    assert_int_equal(tachy_timer_schedule(srv, 0, 0, rec_fn, &slow, &a), 0);
    wait_runs(&slow, 1, 3000);
    long t0 = ts_now_ms();
    assert_int_equal(tachy_timer_schedule(srv, 50, 0, rec_fn, &fast, &b), 0);
    wait_runs(&fast, 1, 3000);
    assert_int_equal(atomic_load(&fast.runs), 1);
    assert_true(atomic_load(&fast.first_ms) - t0 < 700);
    tachy_timer_cancel(a);
    tachy_timer_cancel(b);
}

static void bad_arguments_and_states(void **state) {
    (void)state;
    static rec r; /* static: a test's callbacks never share memory with the next test's */
    memset(&r, 0, sizeof r);
    tachy_timer *t = (tachy_timer *)&r;
    assert_int_equal(tachy_timer_schedule(NULL, 1, 0, rec_fn, &r, &t), TACHY_EINVAL);
    assert_null(t);
    assert_int_equal(tachy_timer_schedule(srv, -1, 0, rec_fn, &r, NULL), TACHY_EINVAL);
    assert_int_equal(tachy_timer_schedule(srv, 1, -1, rec_fn, &r, NULL), TACHY_EINVAL);
    assert_int_equal(tachy_timer_schedule(srv, 1, 0, NULL, &r, NULL), TACHY_EINVAL);
    assert_int_equal(tachy_timer_cancel(NULL), TACHY_EINVAL);
    /* Not started, then stopped with a timer pending: dropped, handle still valid. */
    tachy_server *other = ts_server(NULL);
    assert_non_null(other);
    assert_int_equal(tachy_timer_schedule(other, 1, 0, rec_fn, &r, NULL), TACHY_ESTATE);
    assert_true(ts_start(other) > 0);
    assert_int_equal(tachy_timer_schedule(other, 60000, 0, rec_fn, &r, &t), 0);
    assert_int_equal(tachy_timer_schedule(other, 60000, 1000, rec_fn, &r, NULL), 0);
    assert_int_equal(tachy_timer_pending(other), 2);
    tachy_server_stop(other, 0);
    assert_int_equal(tachy_timer_pending(other), 0);
    assert_int_equal(tachy_timer_schedule(other, 1, 0, rec_fn, &r, NULL), TACHY_ESTOPPED);
    tachy_server_destroy(other);
    assert_int_equal(tachy_timer_cancel(t), 0); /* the handle outlives the server */
    assert_int_equal(atomic_load(&r.runs), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_shot_runs_once_on_a_pool_thread),
        cmocka_unit_test(periodic_keeps_its_rate_until_cancelled),
        cmocka_unit_test(cancel_prevents_a_pending_run),
        cmocka_unit_test(cancel_waits_for_a_running_callback),
        cmocka_unit_test(a_callback_may_cancel_itself),
        cmocka_unit_test(many_timers_run_none_early),
        cmocka_unit_test(cancelled_in_the_middle_never_run),
        cmocka_unit_test(a_blocked_callback_does_not_stop_the_others),
        cmocka_unit_test(bad_arguments_and_states),
    };
    return cmocka_run_group_tests_name("timer", tests, setup, teardown);
}
