/* cadence_loop_run_until_idle and unreferenced timers (libuv's UV_RUN_DEFAULT with uv_unref):
 * the cases of Tests/CadenceTests/RunUntilIdleTests.swift and
 * bindings/python/tests/test_run_until_idle.py, in virtual time, then one on the real clock. */
#include <pthread.h>
#include <time.h>

#include "timeline.h"

static long long now_ms(cadence_loop loop) { return to_ms(timeline_now(loop)); }

static int has_ref(cadence_cancellable timer) {
    int out = -1;
    CHECK_OK(cadence_timer_has_ref(timer, &out));
    return out;
}

/* The run returns right after the last one-shot fires, the clock at its fire date. */
static void one_shot(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline t = {.loop = loop};
    cadence_cancellable once;
    CHECK_OK(cadence_loop_schedule(loop, 0.25, 0, "default", timeline_tick, &t, &once));
    CHECK_EQ(has_ref(once), 1);
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));
    CHECK_TIMELINE(t, "0@250");
    CHECK_EQ(now_ms(loop), 250);
    CHECK_EQ(has_ref(once), 0);                        /* it has ended */
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));  /* nothing armed: at once */
    CHECK_EQ(now_ms(loop), 250);
    CHECK_OK(cadence_loop_close(loop));
}

static void nothing(const cadence_tick *tick, void *userdata) { (void)tick, (void)userdata; }

/* An unreferenced repeating timer does not keep the run going, but fires while a one-shot does. */
static void unreferenced_repeating(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline t = {.loop = loop};
    cadence_cancellable every, once;
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.1, 0.1, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             timeline_tick, &t, &every));
    CHECK_OK(cadence_timer_unref(every));
    CHECK_OK(cadence_timer_unref(every));             /* twice is harmless */
    CHECK_EQ(has_ref(every), 0);
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));
    CHECK_EQ(t.count, 0);
    CHECK_EQ(now_ms(loop), 0);                         /* nothing referenced: at once */
    CHECK_OK(cadence_loop_schedule(loop, 0.35, 0, "default", nothing, NULL, &once));
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));
    CHECK_TIMELINE(t, "0@100", "1@200", "2@300");
    CHECK_EQ(now_ms(loop), 350);
    CHECK_EQ(has_ref(every), 0);                       /* still unreferenced after its ticks */
    CHECK_EQ(armed_timers(loop), 1);
    CHECK_OK(cadence_loop_close(loop));
}

/* A countdown keeps the run going until it finishes, at its deadline. */
static void countdown(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline t = {.loop = loop};
    cadence_cancellable handle;
    CHECK_OK(cadence_countdown_start(loop, timeline_now(loop) + 3, 0.25, timeline_countdown, &t, &handle));
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));
    CHECK(t.count >= 2 && t.count <= TIMELINE_MAX);  /* its timeline: countdown.jsonl */
    CHECK_STR(t.events[t.count - 1], "|@3000");      /* the run ends with the finish */
    CHECK_EQ(now_ms(loop), 3000);
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_ERR(cadence_timer_unref(handle), CADENCE_ENOTSUP);  /* not a scheduled timer */
    CHECK_OK(cadence_loop_close(loop));
}

typedef struct self_cancelling {
    timeline t;
    cadence_cancellable timer;
} self_cancelling;

static void tick_and_cancel_third(const cadence_tick *tick, void *userdata) {
    self_cancelling *s = userdata;
    timeline_tick(tick, &s->t);
    if (s->t.count == 3) CHECK_OK(cadence_cancel(s->timer));
}

/* An unreferenced timer referenced again keeps the run going (until its callback cancels it). */
static void referenced_again(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    self_cancelling s = {.t = {.loop = loop}};
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.1, 0.1, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             tick_and_cancel_third, &s, &s.timer));
    CHECK_OK(cadence_timer_unref(s.timer));
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));
    CHECK_EQ(s.t.count, 0);
    CHECK_EQ(now_ms(loop), 0);
    CHECK_OK(cadence_timer_ref(s.timer));
    CHECK_OK(cadence_timer_ref(s.timer));             /* twice is harmless */
    CHECK_EQ(has_ref(s.timer), 1);
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));
    CHECK_TIMELINE(s.t, "0@100", "1@200", "2@300");
    CHECK_EQ(now_ms(loop), 300);
    CHECK_OK(cadence_timer_ref(s.timer));             /* on a cancelled timer: nothing */
    CHECK_EQ(has_ref(s.timer), 0);
    CHECK_OK(cadence_loop_close(loop));
}

typedef struct reentry {
    cadence_loop loop;
    int ticks;
    int nested;
} reentry;

static void run_again_then_stop(const cadence_tick *tick, void *userdata) {
    (void)tick;
    reentry *r = userdata;
    r->ticks++;
    r->nested = cadence_loop_run_until_idle(r->loop, "default");
    if (r->ticks == 3) CHECK_OK(cadence_loop_stop(r->loop));
}

/* EBUSY from a callback; stop() ends a run that a referenced repeating timer keeps going. */
static void busy_and_stop(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    reentry r = {.loop = loop};
    cadence_cancellable every;
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.1, 0.1, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             run_again_then_stop, &r, &every));
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));
    CHECK_ERR(r.nested, CADENCE_EBUSY);
    CHECK_EQ(r.ticks, 3);
    CHECK_EQ(now_ms(loop), 300);
    CHECK_OK(cadence_loop_close(loop));
}

/* Only timers that can fire in the running mode count. */
static void modes(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_add_mode(loop, "other"));
    timeline t = {.loop = loop};
    cadence_cancellable other, common;
    CHECK_OK(cadence_loop_schedule(loop, 0.1, 0, "other", timeline_tick, &t, &other));
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));
    CHECK_EQ(t.count, 0);
    CHECK_EQ(now_ms(loop), 0);                         /* it can never fire in a default run */
    CHECK_OK(cadence_loop_schedule(loop, 0.2, 0, "common", timeline_tick, &t, &common));
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));  /* default is a common mode */
    CHECK_TIMELINE(t, "0@200");
    CHECK_OK(cadence_loop_run_until_idle(loop, "other"));    /* its own mode, overdue */
    CHECK_TIMELINE(t, "0@200", "1@100");
    CHECK_EQ(now_ms(loop), 200);
    CHECK_ERR(cadence_loop_run_until_idle(loop, "common"), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_run_until_idle(loop, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_run_until_idle(loop, "missing"), CADENCE_ENOENT);
    CHECK_ERR(cadence_timer_has_ref(other, NULL), CADENCE_EINVAL);
    CHECK_OK(cadence_loop_close(loop));
}

/* On a destroyed loop, and with handles the loop released. */
static void closed_loop(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    cadence_cancellable once;
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", nothing, NULL, &once));
    CHECK_OK(cadence_loop_close(loop));
    CHECK_ERR(cadence_loop_run_until_idle(loop, "default"), CADENCE_EBADF);
    CHECK_ERR(cadence_timer_unref(once), CADENCE_EBADF);
    CHECK_ERR(cadence_timer_ref(once), CADENCE_EBADF);
    int out = -1;
    CHECK_ERR(cadence_timer_has_ref(once, &out), CADENCE_EBADF);
    CHECK_EQ(out, -1);
    CHECK_ERR(cadence_loop_run_until_idle((cadence_loop){0}, "default"), CADENCE_EBADF);
}

static double monotonic_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void count_tick(const cadence_tick *tick, void *userdata) {
    (void)tick;
    ++*(int *)userdata;
}

static void *cancel_later(void *userdata) {
    struct timespec pause = {0, 20 * 1000 * 1000};  /* so that the run is most likely asleep */
    nanosleep(&pause, NULL);
    CHECK_OK(cadence_cancel(*(cadence_cancellable *)userdata));
    return NULL;
}

/* On the real clock: the run returns after the referenced one-shot, the unreferenced repeating
 * timer fired on the way; then a cancel from another thread of the last referenced timer, due in
 * a minute, wakes the sleeping run, which returns. */
static void real_clock(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    int ticks = 0, fired = 0;
    cadence_cancellable every, once, far;
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.01, 0.01, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             count_tick, &ticks, &every));
    CHECK_OK(cadence_timer_unref(every));
    double start = monotonic_seconds();  /* before the one-shot is armed: it is due 0.05 s after */
    CHECK_OK(cadence_loop_schedule(loop, 0.05, 0, "default", count_tick, &fired, &once));
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));
    double elapsed = monotonic_seconds() - start;
    CHECK_EQ(fired, 1);
    CHECK_RANGE(elapsed, 0.05, 5);
    CHECK_RANGE(ticks, 1, elapsed / 0.01 + 1);

    CHECK_OK(cadence_loop_schedule(loop, 60, 0, "default", nothing, NULL, &far));
    pthread_t thread;
    CHECK_EQ(pthread_create(&thread, NULL, cancel_later, &far), 0);
    start = monotonic_seconds();
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));
    CHECK_RANGE(monotonic_seconds() - start, 0, 30);
    CHECK_EQ(pthread_join(thread, NULL), 0);
    CHECK_OK(cadence_loop_close(loop));
}

/* cadence_loop_alive: what a run until idle counts, for a host that drives the loop itself. */
static int alive(cadence_loop loop, const char *mode) {
    int out = -1;
    CHECK_OK(cadence_loop_alive(loop, mode, &out));
    return out;
}

static void loop_alive(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_EQ(alive(loop, "default"), 0);
    cadence_cancellable once, other;
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", nothing, NULL, &once));
    CHECK_EQ(alive(loop, "default"), 1);
    CHECK_OK(cadence_timer_unref(once));
    CHECK_EQ(alive(loop, "default"), 0);
    CHECK_OK(cadence_timer_ref(once));
    CHECK_EQ(alive(loop, "default"), 1);
    CHECK_OK(cadence_cancel(once));
    CHECK_EQ(alive(loop, "default"), 0);
    CHECK_OK(cadence_loop_add_mode(loop, "other"));
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "other", nothing, NULL, &other));
    CHECK_EQ(alive(loop, "default"), 0);
    CHECK_EQ(alive(loop, "other"), 1);
    int out = -1;
    CHECK_ERR(cadence_loop_alive(loop, "common", &out), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_alive(loop, NULL, &out), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_alive(loop, "missing", &out), CADENCE_ENOENT);
    CHECK_ERR(cadence_loop_alive(loop, "default", NULL), CADENCE_EINVAL);
    CHECK_EQ(out, -1);
    CHECK_OK(cadence_cancellable_release(once));
    CHECK_OK(cadence_cancellable_release(other));
    CHECK_OK(cadence_loop_close(loop));
    CHECK_ERR(cadence_loop_alive(loop, "default", &out), CADENCE_EBADF);
}

int main(void) {
    one_shot();
    unreferenced_repeating();
    countdown();
    referenced_again();
    busy_and_stop();
    modes();
    closed_loop();
    loop_alive();
    real_clock();
    return 0;
}
