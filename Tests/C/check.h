/* Assertion macros for the C tests: on failure, print file:line, the expression and the values,
 * then exit(1) (not abort, so valgrind runs end with a plain status). */
#ifndef CADENCE_TEST_CHECK_H
#define CADENCE_TEST_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cadence.h>

#define CHECK_FAIL_(...)                                    \
    do {                                                    \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);     \
        fprintf(stderr, __VA_ARGS__);                       \
        fputc('\n', stderr);                                \
        exit(1);                                            \
    } while (0)

/* A condition that must hold. */
#define CHECK(cond)                                         \
    do {                                                    \
        if (!(cond)) CHECK_FAIL_("CHECK(%s) failed", #cond); \
    } while (0)

/* Two integers that must be equal. */
#define CHECK_EQ(actual, expected)                                                        \
    do {                                                                                  \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                   \
        if (a_ != e_) CHECK_FAIL_("%s == %s failed: got %lld, expected %lld", #actual,    \
                                  #expected, a_, e_);                                     \
    } while (0)

/* A Cadence call that must return `code` (0 or a CADENCE_E* error). */
#define CHECK_ERR(call, code)                                                             \
    do {                                                                                  \
        int r_ = (call), c_ = (code);                                                     \
        if (r_ != c_) CHECK_FAIL_("%s returned %d (%s), expected %d (%s)", #call, r_,     \
                                  cadence_err_name(r_), c_, cadence_err_name(c_));        \
    } while (0)

/* A Cadence call that must fail with `code` and leave `message` as the thread's last error
 * message: the C function, the argument, the rule and the value. */
#define CHECK_ERR_MSG(call, code, message)                                                \
    do {                                                                                  \
        CHECK_ERR(call, code);                                                            \
        CHECK_STR(cadence_last_error_message(), message);                                 \
    } while (0)

/* Extra seconds of lateness to allow when CTest runs a program under valgrind (it sets
 * CADENCE_TEST_SLOW=1): valgrind slows every callback, but it must never make a timer early, so
 * only upper bounds on lateness use this. */
static inline double timing_slack(void) {
    const char *slow = getenv("CADENCE_TEST_SLOW");
    return slow != NULL && slow[0] == '1' ? 0.5 : 0.0;
}

/* Seconds of CLOCK_MONOTONIC, for waits in real time. */
static inline double test_monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits until condition(context) holds, checking it every millisecond, for at most `timeout`
 * seconds of real time (plus the valgrind slack), and returns whether it held: for a state that
 * another thread (a loop's own thread) reaches, without a blind sleep. The test goes on as soon
 * as the state is reached, and a state never reached fails instead of hanging. Swift's twin is
 * waitUntil (Tests/CadenceTests/Support/WaitUntil.swift), Python's wait_for (test_thread.py).
 * To show that something does not happen, wait for a later event that would follow it (a
 * one-shot due past the next grid points), not for a time. */
static inline bool wait_until(bool (*condition)(void *context), void *context, double timeout) {
    double end = test_monotonic() + timeout + timing_slack();
    while (!condition(context)) {
        if (test_monotonic() > end) return condition(context);
        struct timespec millisecond = {0, 1000 * 1000};
        nanosleep(&millisecond, NULL);
    }
    return true;
}

/* An expression that must come to hold within 10 seconds (wait_until, for an expression). */
#define CHECK_EVENTUALLY(cond)                                                            \
    do {                                                                                  \
        double end_ = test_monotonic() + 10 + timing_slack();                             \
        while (!(cond)) {                                                                 \
            if (test_monotonic() > end_) {                                                \
                if (!(cond)) CHECK_FAIL_("CHECK_EVENTUALLY(%s) still false after 10 s", #cond); \
                break;                                                                    \
            }                                                                             \
            nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);                          \
        }                                                                                 \
    } while (0)

/* A Cadence call that must succeed. */
#define CHECK_OK(call) CHECK_ERR(call, 0)

/* A number that must lie in [lo, hi]. */
#define CHECK_RANGE(value, lo, hi)                                                        \
    do {                                                                                  \
        double v_ = (double)(value), l_ = (double)(lo), h_ = (double)(hi);                \
        if (!(v_ >= l_ && v_ <= h_)) CHECK_FAIL_("%s = %.6f is outside [%s, %s] = [%.6f, %.6f]", \
                                                 #value, v_, #lo, #hi, l_, h_);           \
    } while (0)

/* Two strings that must be equal. */
#define CHECK_STR(actual, expected)                                                       \
    do {                                                                                  \
        const char *a_ = (actual), *e_ = (expected);                                      \
        if (strcmp(a_, e_) != 0) CHECK_FAIL_("%s == %s failed: got \"%s\", expected \"%s\"", \
                                             #actual, #expected, a_, e_);                 \
    } while (0)

/* cadence_loop_schedule_default with its handle in `*out`, as the other starts give theirs:
 * returns 0 or the error code. */
static inline int schedule_default(cadence_loop loop, double delay, void *userdata, cadence_cancellable *out) {
    int64_t result = cadence_loop_schedule_default(loop, delay, userdata);
    if (result < 0) return (int)result;
    out->id = (uint64_t)result;
    return 0;
}

/* Subscribes `fn` to an autoconnect publisher of a new timer (`interval`, `tolerance`, `mode`),
 * so the timer starts now; returns the subscription. The publisher handles stay with the loop
 * until it is destroyed, as the tests' other handles do. */
static inline cadence_cancellable subscribe_autoconnect(cadence_loop loop, double interval, double tolerance,
                                                        const char *mode, cadence_tick_fn fn, void *userdata) {
    cadence_publisher timer, shared;
    cadence_cancellable subscription;
    CHECK_OK(cadence_publisher_create(loop, interval, tolerance, mode, &timer));
    CHECK_OK(cadence_publisher_autoconnect(timer, &shared));
    CHECK_OK(cadence_publisher_subscribe(shared, fn, userdata, &subscription));
    return subscription;
}

#endif /* CADENCE_TEST_CHECK_H */
