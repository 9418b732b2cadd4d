/* A loop driven by a poll() loop over cadence_loop_fd and cadence_loop_run_pass (real clock):
 *  - the same schedule gives the same grid points as cadence_loop_run: three repeating timers
 *    (0.1 s, 0.15 s with 0.05 s tolerance, 0.25 s) and a one-shot at 0.61 s that ends the drive;
 *    each fire is on its timer's grid and never early, and the grid points served (fired or
 *    counted as skipped) up to the end are the same both ways;
 *  - after a pass the descriptor is unreadable unless the loop says a wake-up is due now, and a
 *    zero-delay timer armed during a pass waits for the next pass, with the descriptor readable;
 *  - a timer armed from another thread wakes a poll() that waits with nothing armed, at once for
 *    a zero delay, at its fire date (never before) for a 0.03 s one;
 *  - a timer cancelled from another thread before it is due leaves the descriptor unreadable at
 *    its due time;
 *  - cadence_loop_run with INFINITY runs until cadence_loop_stop, from a callback or a thread;
 *  - the descriptor of a virtual loop is CADENCE_ENOTSUP, and a pass on it fires what is due at
 *    its clock without moving it. */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>

#include "recorder.h"

#define TIMERS 3
#define MAX_POINTS 16
static const double intervals[TIMERS] = {0.1, 0.15, 0.25};
static const double tolerances[TIMERS] = {0, 0.05, 0};
#define END 0.61

typedef struct drive {
    cadence_loop loop;
    int done, early, off_grid;
    double first[TIMERS];
    int fires[TIMERS];
    /* Grid points served, as step counts from the connect time: points[t][k] = 1. */
    int points[TIMERS][MAX_POINTS];
    double end;                     /* the one-shot's fire date */
} drive;

typedef struct ref { drive *d; int index; } ref;

static void on_tick(const cadence_tick *tick, void *userdata) {
    ref *r = userdata;
    drive *d = r->d;
    double t = intervals[r->index];
    if (loop_now(d->loop) < tick->fire_date) d->early++;
    /* The first fire is k = 1 + skipped steps from connect; later ones on the same grid. */
    if (d->fires[r->index]++ == 0) d->first[r->index] = tick->fire_date - (1 + (double)tick->skipped) * t;
    double steps = (tick->fire_date - d->first[r->index]) / t;
    long k = lround(steps);
    if (fabs(steps - (double)k) * t > 1e-5) d->off_grid++;
    for (long j = k - (long)tick->skipped; j <= k; j++) {
        if (j >= 0 && j < MAX_POINTS) d->points[r->index][j]++;
    }
}

static void on_end(const cadence_tick *tick, void *userdata) {
    (void)tick;
    drive *d = userdata;
    d->done = 1;
    d->end = tick->fire_date;
    CHECK_OK(cadence_loop_stop(d->loop));    /* ends cadence_loop_run; nothing when polling */
}

static ref refs[2][TIMERS];

static void arm(drive *d, int which) {
    for (int i = 0; i < TIMERS; i++) {
        refs[which][i] = (ref){d, i};
        cadence_cancellable c;
        CHECK_OK(cadence_loop_schedule_repeating(d->loop, intervals[i], intervals[i], tolerances[i],
                                                 CADENCE_MISSED_TICKS_SKIP, "default", on_tick, &refs[which][i], &c));
        CHECK_OK(cadence_cancellable_detach(c));  /* runs until the loop is destroyed */
        CHECK_OK(cadence_cancellable_release(c));
    }
    cadence_cancellable end;
    CHECK_OK(cadence_loop_schedule(d->loop, END, 0, "default", on_end, d, &end));
    CHECK_OK(cadence_cancellable_release(end));
}

/* poll() on the descriptor for up to `ms`; 1 if it is readable. */
static int wait_readable(int fd, int ms) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, ms);
    CHECK(r >= 0);
    return r > 0 && (p.revents & POLLIN);
}

static void check_unreadable_after_pass(cadence_loop loop, int fd) {
    if (!wait_readable(fd, 0)) return;
    double timeout = -1;                       /* readable: then a wake-up must be due now */
    CHECK_OK(cadence_loop_timeout(loop, &timeout));
    CHECK_RANGE(timeout, 0, 0);
}

static void same_grid_as_run(void) {
    static drive by_run, by_poll;
    CHECK_OK(cadence_loop_create(&by_run.loop));
    arm(&by_run, 0);
    CHECK_OK(cadence_loop_run(by_run.loop, "default", INFINITY));  /* until on_end stops it */
    CHECK(by_run.done);

    CHECK_OK(cadence_loop_create(&by_poll.loop));
    int fd = -1;
    CHECK_OK(cadence_loop_fd(by_poll.loop, &fd));
    CHECK(fd >= 0);
    CHECK(!wait_readable(fd, 0));              /* nothing armed */
    arm(&by_poll, 1);
    int passes = 0;
    while (!by_poll.done) {
        double timeout = -1;
        CHECK_OK(cadence_loop_timeout(by_poll.loop, &timeout));
        CHECK_RANGE(timeout, 0, 0.25);         /* a grid point at most 0.1 s ahead, a little more late */
        CHECK(wait_readable(fd, 2000));        /* the next point is 0.1 s ahead at most */
        CHECK_OK(cadence_loop_run_pass(by_poll.loop, "default"));
        passes++;
        check_unreadable_after_pass(by_poll.loop, fd);
    }
    /* One pass per wake-up at most (about 10 due by 0.61 s; fewer when the machine is late and a
     * pass serves several), never a spin. */
    CHECK_RANGE(passes, 1, 40);

    for (int which = 0; which < 2; which++) {
        drive *d = which == 0 ? &by_run : &by_poll;
        CHECK_EQ(d->early, 0);
        CHECK_EQ(d->off_grid, 0);
        CHECK_OK(cadence_loop_close(d->loop));
    }
    /* Every grid point before the end served once, the same ones both ways (a pass that ends
     * the drive late may also serve points after it). The timers were armed before the
     * one-shot, so these are the same points in both drives: k * interval < 0.61 s. */
    for (int i = 0; i < TIMERS; i++) {
        for (int k = 1; k < MAX_POINTS; k++) {
            for (int which = 0; which < 2; which++) {
                const drive *d = which == 0 ? &by_run : &by_poll;
                int before_end = d->first[i] + k * intervals[i] < d->end;
                CHECK_EQ(before_end, k * intervals[i] < END);
                if (before_end) CHECK_EQ(d->points[i][k], 1);
                if (!before_end) CHECK(d->points[i][k] <= 1);
            }
        }
    }
}

typedef struct remote {
    cadence_loop loop;
    double delay, armed_at, cancelled_at;
    int cancel_result;
    cadence_cancellable timer;
    atomic_int ready;
} remote;

static void on_remote(const cadence_tick *tick, void *userdata) {
    remote *r = userdata;
    CHECK(loop_now(r->loop) >= tick->fire_date);
    r->armed_at = -r->armed_at;                /* marks the fire: negative until then */
}

static void *arm_later(void *userdata) {
    remote *r = userdata;
    while (!atomic_load(&r->ready)) {}
    sleep_seconds(0.05);                       /* let main block in poll(); the result does not depend on it */
    r->armed_at = loop_now(r->loop);
    CHECK_OK(cadence_loop_schedule(r->loop, r->delay, 0, "default", on_remote, r, &r->timer));
    return NULL;
}

static void poll_woken_from_thread(double delay) {
    remote r = {.delay = delay};
    CHECK_OK(cadence_loop_create(&r.loop));
    int fd = -1;
    CHECK_OK(cadence_loop_fd(r.loop, &fd));
    pthread_t thread;
    CHECK_EQ(pthread_create(&thread, NULL, arm_later, &r), 0);
    atomic_store(&r.ready, 1);
    CHECK(wait_readable(fd, 5000));            /* nothing was armed when it began to wait */
    double woke = loop_now(r.loop);
    CHECK_EQ(pthread_join(thread, NULL), 0);
    CHECK_RANGE(woke - r.armed_at, delay, delay + 0.1 + timing_slack());  /* a few ms, typically */
    CHECK_OK(cadence_loop_run_pass(r.loop, "default"));
    CHECK(r.armed_at < 0);                     /* fired in that pass */
    CHECK(!wait_readable(fd, 0));
    CHECK_OK(cadence_cancellable_release(r.timer));
    CHECK_OK(cadence_loop_close(r.loop));
}

static void on_never(const cadence_tick *tick, void *userdata) {
    (void)tick;
    (*(int *)userdata)++;
}

static void *cancel_now(void *userdata) {
    remote *r = userdata;
    r->cancel_result = cadence_cancel(r->timer);
    r->cancelled_at = loop_now(r->loop);
    return NULL;
}

static void cancelled_from_thread(void) {
    remote r = {0};
    int fired = 0;
    CHECK_OK(cadence_loop_create(&r.loop));
    int fd = -1;
    CHECK_OK(cadence_loop_fd(r.loop, &fd));
    double armed = loop_now(r.loop);
    CHECK_OK(cadence_loop_schedule(r.loop, 0.5, 0, "default", on_never, &fired, &r.timer));
    double timeout = -1;
    CHECK_OK(cadence_loop_timeout(r.loop, &timeout));
    CHECK_RANGE(timeout, 0.25, 0.5);
    /* The cancel is made and done on another thread first, so that a slow machine cannot make it
     * come after the due time; then the descriptor is watched until well past that time. */
    pthread_t thread;
    CHECK_EQ(pthread_create(&thread, NULL, cancel_now, &r), 0);
    CHECK_EQ(pthread_join(thread, NULL), 0);
    CHECK_OK(r.cancel_result);
    CHECK(r.cancelled_at - armed < 0.5);       /* the cancel came before the due time */
    double left = armed + 0.8 - loop_now(r.loop);
    CHECK(!wait_readable(fd, left > 0 ? (int)ceil(left * 1000) : 0));  /* never readable */
    CHECK(loop_now(r.loop) - armed >= 0.8);
    CHECK_OK(cadence_loop_timeout(r.loop, &timeout));
    CHECK(isinf(timeout));
    CHECK_OK(cadence_loop_run_pass(r.loop, "default"));
    CHECK_EQ(fired, 0);
    CHECK_OK(cadence_cancellable_release(r.timer));
    CHECK_OK(cadence_loop_close(r.loop));
}

typedef struct stopper { cadence_loop loop; atomic_int returned; } stopper;

/* After 0.1 s, stops the loop every 10 ms until its run has returned: a stop before the run
 * begins does nothing. */
static void *stop_later(void *userdata) {
    stopper *s = userdata;
    sleep_seconds(0.1);
    while (!atomic_load(&s->returned)) {
        CHECK_OK(cadence_loop_stop(s->loop));
        sleep_seconds(0.01);
    }
    return NULL;
}

static void run_until_stopped_from_thread(void) {
    static stopper s;
    CHECK_OK(cadence_loop_create(&s.loop));
    cadence_loop loop = s.loop;
    pthread_t thread;
    double start = loop_now(loop);
    CHECK_EQ(pthread_create(&thread, NULL, stop_later, &s), 0);
    CHECK_OK(cadence_loop_run(loop, "default", INFINITY));   /* nothing armed: sleeps until stop */
    atomic_store(&s.returned, 1);
    CHECK(loop_now(loop) - start >= 0.1);
    CHECK_EQ(pthread_join(thread, NULL), 0);
    CHECK_ERR(cadence_loop_run(loop, "default", -INFINITY), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_run(loop, "default", NAN), CADENCE_EINVAL);
    CHECK_OK(cadence_loop_close(loop));
}

/* A stop of a loop that is not running makes its descriptor readable until the next pass, so that
 * a program's loop waiting on it wakes; a stop before the descriptor was asked for does nothing. */
static void stop_wakes_descriptor(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    CHECK_OK(cadence_loop_stop(loop));
    int fd = -1;
    CHECK_OK(cadence_loop_fd(loop, &fd));
    CHECK_OK(cadence_loop_run_pass(loop, "default"));
    CHECK(!wait_readable(fd, 0));
    CHECK_OK(cadence_loop_stop(loop));
    CHECK(wait_readable(fd, 1000));
    CHECK_OK(cadence_loop_run_pass(loop, "default"));
    CHECK(!wait_readable(fd, 0));
    CHECK_OK(cadence_loop_stop(loop));
    CHECK_OK(cadence_loop_run(loop, "default", 0));  /* a run takes the wake-up in too */
    CHECK(!wait_readable(fd, 0));
    CHECK_OK(cadence_loop_close(loop));
}

/* A stop from the release function that the loop's destroy calls, once its libuv handles are
 * gone, does nothing (under valgrind: touches no freed memory). */
static cadence_loop stopped_in_release;
static int stops_in_release;
static void stop_on_release(void *userdata) {
    (void)userdata;
    CHECK_OK(cadence_loop_stop(stopped_in_release));
    stops_in_release++;
}

static void stop_from_destroy_release(void) {
    CHECK_OK(cadence_loop_create(&stopped_in_release));
    CHECK_OK(cadence_loop_set_callbacks(stopped_in_release, NULL, stop_on_release));
    int fd = -1;
    CHECK_OK(cadence_loop_fd(stopped_in_release, &fd));
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule(stopped_in_release, 10, 0, "default", on_never, &fd, &timer));
    CHECK_OK(cadence_loop_close(stopped_in_release));
    CHECK_EQ(stops_in_release, 1);
    CHECK_ERR(cadence_loop_stop(stopped_in_release), CADENCE_EBADF);
}

static void virtual_loop(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    int fd = -1;
    CHECK_ERR(cadence_loop_fd(loop, &fd), CADENCE_ENOTSUP);
    CHECK_EQ(fd, -1);
    CHECK_ERR(cadence_loop_run(loop, "default", INFINITY), CADENCE_EINVAL);  /* the clock's end */
    recorder r = {.loop = loop};
    cadence_cancellable once;
    CHECK_OK(cadence_loop_schedule(loop, 2, 0, "default", record_tick, &r, &once));
    double timeout = -1;
    CHECK_OK(cadence_loop_timeout(loop, &timeout));
    CHECK_RANGE(timeout, 2, 2);
    CHECK_OK(cadence_loop_run_pass(loop, "default"));
    CHECK_EQ(r.count, 0);                      /* not due at 0 */
    CHECK_OK(cadence_loop_jump_clock(loop, 2));
    CHECK_OK(cadence_loop_timeout(loop, &timeout));
    CHECK_RANGE(timeout, 0, 0);
    CHECK_OK(cadence_loop_run_pass(loop, "default"));
    CHECK_EQ(r.count, 1);
    CHECK_RANGE(r.dates[0], 2, 2);
    CHECK_RANGE(loop_now(loop), 2, 2);         /* a pass does not move the clock */
    CHECK_OK(cadence_loop_timeout(loop, &timeout));
    CHECK(isinf(timeout));
    /* Bad arguments. */
    CHECK_ERR(cadence_loop_run_pass(loop, "common"), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_run_pass(loop, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_run_pass(loop, "unknown"), CADENCE_ENOENT);
    CHECK_ERR(cadence_loop_timeout(loop, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_fd(loop, NULL), CADENCE_EINVAL);
    CHECK_OK(cadence_cancellable_release(once));
    CHECK_OK(cadence_loop_close(loop));
    CHECK_ERR(cadence_loop_run_pass(loop, "default"), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_timeout(loop, &timeout), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_fd(loop, &fd), CADENCE_EBADF);
}

static void on_pass_inside(const cadence_tick *tick, void *userdata) {
    (void)tick;
    cadence_loop *loop = userdata;
    CHECK_ERR(cadence_loop_run_pass(*loop, "default"), CADENCE_EBUSY);
}

static void pass_inside_callback(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    cadence_cancellable once;
    CHECK_OK(cadence_loop_schedule(loop, 0, 0, "default", on_pass_inside, &loop, &once));
    CHECK_OK(cadence_loop_run_pass(loop, "default"));
    int cancelled = 0;
    CHECK_OK(cadence_is_cancelled(once, &cancelled));
    CHECK_EQ(cancelled, 1);                    /* it fired */
    CHECK_OK(cadence_cancellable_release(once));
    CHECK_OK(cadence_loop_close(loop));
}

typedef struct restarter { cadence_loop loop; int fires; } restarter;

/* A zero-delay one-shot that schedules itself again from its callback. */
static void on_restart(const cadence_tick *tick, void *userdata) {
    (void)tick;
    restarter *r = userdata;
    r->fires++;
    cadence_cancellable again;
    CHECK_OK(cadence_loop_schedule(r->loop, 0, 0, "default", on_restart, r, &again));
    CHECK_OK(cadence_cancellable_release(again));
}

/* A timer armed during a pass waits for the next one, and leaves the descriptor readable. */
static void armed_during_a_pass(void) {
    static restarter r;
    CHECK_OK(cadence_loop_create(&r.loop));
    int fd = -1;
    CHECK_OK(cadence_loop_fd(r.loop, &fd));
    cadence_cancellable first;
    CHECK_OK(cadence_loop_schedule(r.loop, 0, 0, "default", on_restart, &r, &first));
    CHECK_OK(cadence_cancellable_release(first));
    CHECK(wait_readable(fd, 1000));            /* due at once */
    for (int pass = 1; pass <= 3; pass++) {
        CHECK_OK(cadence_loop_run_pass(r.loop, "default"));
        CHECK_EQ(r.fires, pass);               /* one fire per pass, never a spin */
        CHECK(wait_readable(fd, 0));           /* the re-armed timer is due already */
        double timeout = -1;
        CHECK_OK(cadence_loop_timeout(r.loop, &timeout));
        CHECK_RANGE(timeout, 0, 0);
    }
    CHECK_OK(cadence_loop_close(r.loop));
}

int main(void) {
    same_grid_as_run();
    armed_during_a_pass();
    poll_woken_from_thread(0);
    poll_woken_from_thread(0.03);
    cancelled_from_thread();
    run_until_stopped_from_thread();
    stop_wakes_descriptor();
    stop_from_destroy_release();
    virtual_loop();
    pass_inside_callback();
    return 0;
}
