/* A hosted loop coalesces as an owned one does (real clock).
 *
 * One schedule, run three ways: by cadence_loop_run, by a poll() host over cadence_loop_fd,
 * cadence_loop_timeout and cadence_loop_run_pass, and on a host's uv_loop_t. Timers are armed
 * before the run, from a callback during it and from another thread, each with its fire date at
 * a fixed time from the start; overlapping windows share a wake-up. Every way makes the optimum
 * number of wake-ups (cadence_loop_wakeups), fires each timer in the same wake-up (the counter
 * read in its callback) and at the same date, and none early.
 *
 * Then timers armed from the host's thread between passes, in the order that once made a hosted
 * loop wake twice (the earlier fire date first): the descriptor is not readable before the time
 * cadence_loop_timeout reported, and one pass serves both; and the same from a uv_timer_t's
 * callback of a host's uv_loop_t.
 *
 * Under valgrind (CADENCE_TEST_SLOW=1) a loaded machine may merge wake-ups: only never-early and
 * every timer fired are checked there. */
#include <poll.h>
#include <pthread.h>

#include <cadence/uv.h>

#include "recorder.h"

enum { T, A, B, C, D, E, F, TIMERS };
/* Fire dates in seconds from the start, and tolerances: T fires alone; A and B share a wake-up
 * at B's date (A's window [0.40, 0.55] holds 0.44 with room for an arm made late on a loaded
 * machine), and so do C and D (armed by T's callback) and E and F (armed by another thread at
 * THREAD_AT). Groups are 0.25 s apart or more, so a host that wakes a little late still serves
 * them apart. */
static const double DUE[TIMERS] = {0.05, 0.40, 0.44, 0.70, 0.74, 1.20, 1.24};
static const double TOLERANCE[TIMERS] = {0, 0.15, 0.15, 0.15, 0.15, 0.15, 0.15};
static const int GROUP[TIMERS] = {0, 1, 1, 2, 2, 3, 3};
#define WAKEUPS 4
#define THREAD_AT 0.90
#define END 1.45

typedef struct way way;
typedef struct timer_ref { way *w; int timer; } timer_ref;

struct way {
    const char *name;
    cadence_loop loop;
    double origin;                 /* the loop's clock at the start of the schedule */
    uint64_t wakeups_at_start;
    timer_ref refs[TIMERS];
    int fired[TIMERS];
    int group[TIMERS];             /* the wake-up each timer fired in, counted from the start */
    double date[TIMERS];           /* its fire date, from the start */
    int early;
    pthread_t thread;
};

static void on_fire(const cadence_tick *tick, void *userdata);

/* Arms `timer` so that its fire date is DUE[timer] after the start, whenever it is armed. */
static void arm(way *w, int timer) {
    double delay = w->origin + DUE[timer] - loop_now(w->loop);
    CHECK(delay > 0);
    w->refs[timer] = (timer_ref){w, timer};
    cadence_cancellable handle;
    CHECK_OK(cadence_loop_schedule(w->loop, delay, TOLERANCE[timer], "default", on_fire, &w->refs[timer], &handle));
    CHECK_OK(cadence_cancellable_release(handle));  /* a one-shot fires all the same */
}

static void on_fire(const cadence_tick *tick, void *userdata) {
    timer_ref *ref = userdata;
    way *w = ref->w;
    if (loop_now(w->loop) < tick->fire_date) w->early++;
    uint64_t wakeups = 0;
    CHECK_OK(cadence_loop_wakeups(w->loop, &wakeups));  /* counted after the pass: the pass's number */
    w->fired[ref->timer]++;
    w->group[ref->timer] = (int)(wakeups - w->wakeups_at_start);
    w->date[ref->timer] = tick->fire_date - w->origin;
    if (ref->timer == T) {                             /* armed during the run, on its thread */
        arm(w, C);
        arm(w, D);
    }
}

static void *arm_from_thread(void *arg) {
    way *w = arg;
    double wait = w->origin + THREAD_AT - loop_now(w->loop);
    if (wait > 0) sleep_seconds(wait);                 /* the schedule's time, not a wait to pass */
    arm(w, E);
    arm(w, F);
    return NULL;
}

static void start(way *w, const char *name) {
    w->name = name;
    CHECK_OK(cadence_loop_wakeups(w->loop, &w->wakeups_at_start));
    w->origin = loop_now(w->loop);
    arm(w, T);
    arm(w, A);
    arm(w, B);
    CHECK(pthread_create(&w->thread, NULL, arm_from_thread, w) == 0);
}

static void finish(way *w) {
    CHECK(pthread_join(w->thread, NULL) == 0);
    CHECK_EQ(w->early, 0);
    for (int i = 0; i < TIMERS; i++) {
        CHECK_EQ(w->fired[i], 1);
        /* As armed (a delay from a clock read just before, so a little later on a slow machine). */
        CHECK_RANGE(w->date[i], DUE[i] - 1e-6, DUE[i] + 0.05 + timing_slack());
    }
    if (timing_slack() > 0) return;
    uint64_t wakeups = 0;
    CHECK_OK(cadence_loop_wakeups(w->loop, &wakeups));
    if (wakeups - w->wakeups_at_start != WAKEUPS) CHECK_FAIL_("%s: %llu wake-ups, expected %d", w->name,
                                                              (unsigned long long)(wakeups - w->wakeups_at_start), WAKEUPS);
    for (int i = 0; i < TIMERS; i++)
        if (w->group[i] != GROUP[i]) CHECK_FAIL_("%s: timer %d fired in wake-up %d, expected %d", w->name, i,
                                                 w->group[i], GROUP[i]);
}

/* poll() on `fd` for up to `seconds` (rounded up to whole milliseconds; < 0: no limit). */
static int wait_readable(int fd, double seconds) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, seconds < 0 ? -1 : (int)ceil(seconds * 1000));
    CHECK(r >= 0);
    return r > 0 && (p.revents & POLLIN);
}

static void by_run(void) {
    static way w;
    CHECK_OK(cadence_loop_create(&w.loop));
    start(&w, "cadence_loop_run");
    CHECK_OK(cadence_loop_run(w.loop, "default", END));
    finish(&w);
    CHECK_OK(cadence_loop_close(w.loop));
}

/* The documented poll host: wait for the descriptor or the timeout, then one pass. */
static void by_poll(void) {
    static way w;
    CHECK_OK(cadence_loop_create(&w.loop));
    int fd = -1;
    CHECK_OK(cadence_loop_fd(w.loop, &fd));
    start(&w, "poll host");
    for (double left; (left = w.origin + END - loop_now(w.loop)) > 0;) {
        double timeout = 0;
        CHECK_OK(cadence_loop_timeout(w.loop, &timeout));
        wait_readable(fd, timeout < left ? timeout : left);
        CHECK_OK(cadence_loop_run_pass(w.loop, "default"));
    }
    finish(&w);
    CHECK_OK(cadence_loop_close(w.loop));
}

static void stop_uv(uv_timer_t *timer) { uv_stop(timer->loop); }

static void by_uv(void) {
    static way w;
    uv_loop_t uv;
    CHECK(uv_loop_init(&uv) == 0);
    CHECK_OK(cadence_loop_create_on_uv(&uv, "default", &w.loop));
    uv_timer_t end;
    CHECK(uv_timer_init(&uv, &end) == 0);
    start(&w, "uv_loop_t host");
    CHECK(uv_timer_start(&end, stop_uv, (uint64_t)ceil(END * 1000), 0) == 0);
    uv_run(&uv, UV_RUN_DEFAULT);
    finish(&w);
    CHECK_OK(cadence_loop_close(w.loop));
    uv_close((uv_handle_t *)&end, NULL);
    uv_run(&uv, UV_RUN_NOWAIT);
    CHECK(uv_loop_close(&uv) == 0);
}

/* The host's thread arms A then B between passes: the descriptor stays unreadable until the time
 * cadence_loop_timeout reports, B's date, and then one pass fires both. */
static void descriptor_not_early(void) {
    static way w;
    CHECK_OK(cadence_loop_create(&w.loop));
    int fd = -1;
    CHECK_OK(cadence_loop_fd(w.loop, &fd));
    CHECK_OK(cadence_loop_run_pass(w.loop, "default"));  /* a host already driving it */
    CHECK_OK(cadence_loop_wakeups(w.loop, &w.wakeups_at_start));
    w.origin = loop_now(w.loop);
    arm(&w, A);
    arm(&w, B);
    double timeout = 0;
    double asked = loop_now(w.loop);  /* before the question: the answer counts from a later read */
    CHECK_OK(cadence_loop_timeout(w.loop, &timeout));
    CHECK_RANGE(asked + timeout - w.origin, DUE[B] - 0.05 - timing_slack(), DUE[B] + 0.05 + timing_slack());
    CHECK(wait_readable(fd, 5));                       /* the descriptor alone, no timeout of ours */
    CHECK(loop_now(w.loop) >= asked + timeout);
    CHECK_OK(cadence_loop_run_pass(w.loop, "default"));
    CHECK_EQ(w.fired[A] + w.fired[B], 2);
    CHECK_EQ(w.early, 0);
    CHECK_EQ(w.group[A], 0);
    CHECK_EQ(w.group[B], 0);
    uint64_t wakeups = 0;
    CHECK_OK(cadence_loop_wakeups(w.loop, &wakeups));
    CHECK_EQ(wakeups - w.wakeups_at_start, 1);
    CHECK(!wait_readable(fd, 0));
    CHECK_OK(cadence_loop_close(w.loop));
}

/* The same from a uv_timer_t callback of the host's uv_loop_t. */
static void arm_a_b(uv_timer_t *timer) {
    way *w = timer->data;
    arm(w, A);
    arm(w, B);
}

static void uv_host_thread_arms(void) {
    static way w;
    uv_loop_t uv;
    CHECK(uv_loop_init(&uv) == 0);
    CHECK_OK(cadence_loop_create_on_uv(&uv, "default", &w.loop));
    uv_timer_t arming, end;
    CHECK(uv_timer_init(&uv, &arming) == 0);
    CHECK(uv_timer_init(&uv, &end) == 0);
    arming.data = &w;
    CHECK_OK(cadence_loop_wakeups(w.loop, &w.wakeups_at_start));
    w.origin = loop_now(w.loop);
    CHECK(uv_timer_start(&arming, arm_a_b, 50, 0) == 0);
    CHECK(uv_timer_start(&end, stop_uv, 700, 0) == 0);
    uv_run(&uv, UV_RUN_DEFAULT);
    CHECK_EQ(w.fired[A] + w.fired[B], 2);
    CHECK_EQ(w.early, 0);
    if (timing_slack() == 0) {
        CHECK_EQ(w.group[A], 0);
        CHECK_EQ(w.group[B], 0);
        uint64_t wakeups = 0;
        CHECK_OK(cadence_loop_wakeups(w.loop, &wakeups));
        CHECK_EQ(wakeups - w.wakeups_at_start, 1);
    }
    CHECK_OK(cadence_loop_close(w.loop));
    uv_close((uv_handle_t *)&arming, NULL);
    uv_close((uv_handle_t *)&end, NULL);
    uv_run(&uv, UV_RUN_NOWAIT);
    CHECK(uv_loop_close(&uv) == 0);
}

int main(void) {
    by_run();
    by_poll();
    by_uv();
    descriptor_not_early();
    uv_host_thread_arms();
    printf("hosted coalescing: cadence_loop_run, a poll host and a uv_loop_t host agree\n");
    return 0;
}
