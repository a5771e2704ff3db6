/*
 * base/clock.c - the one clock: CLOCK_MONOTONIC, in milliseconds, for every timeout in
 * tachy (see base.h). Timed condition-variable waits use the same clock, so a deadline
 * computed from tachy__now_ms() and a wait for it agree, and setting the wall clock moves
 * neither.
 */
#include "base/base.h"

#include <errno.h>
#include <time.h>

long tachy__now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tachy__cond_init(pthread_cond_t *cond) {
    pthread_condattr_t ca;
    int rc = pthread_condattr_init(&ca);
    if (rc != 0)
        return rc;
    rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(cond, &ca);
    pthread_condattr_destroy(&ca);
    return rc;
}

int tachy__cond_wait_ms(pthread_cond_t *cond, pthread_mutex_t *mutex, long ms) {
    if (ms < 0)
        return pthread_cond_wait(cond, mutex);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return pthread_cond_timedwait(cond, mutex, &ts) == ETIMEDOUT ? ETIMEDOUT : 0;
}
