/* The loop's release function (cadence_loop_set_callbacks) runs on the thread that ended the
 * registration, after its callback running on the loop's own thread has returned: a cancel or a
 * release from the main thread while the callback runs waits for it, then releases, on the main
 * thread, once. The callback sleeps after it sees the end coming, so a release that did not wait
 * would come while it still runs. A one-shot whose callback has started ended by it: no release. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"

typedef struct shared {
    atomic_int started, ending, returned, releases, released_while_running, calls;
    pthread_t released_on;
} shared;

static void sleep_ms(long ms) {
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void slow_callback(shared *s) {
    atomic_fetch_add(&s->calls, 1);
    if (atomic_load(&s->started)) return;  /* later ticks, if any, return at once */
    atomic_store(&s->started, 1);
    while (!atomic_load(&s->ending)) sleep_ms(1);
    sleep_ms(50);  /* the end is on its way: it must wait for this */
    atomic_store(&s->returned, 1);
}

static void on_tick(const cadence_tick *tick, void *userdata) {
    (void)tick;
    slow_callback(userdata);
}

static void on_fire(void *userdata, double fire_date, uint64_t skipped, int final) {
    (void)fire_date;
    (void)skipped;
    CHECK_EQ(final, 1);
    slow_callback(userdata);
}

static void on_release(void *userdata) {
    shared *s = userdata;
    if (!atomic_load(&s->returned)) atomic_store(&s->released_while_running, 1);
    s->released_on = pthread_self();
    atomic_fetch_add(&s->releases, 1);
}

/* Ends `h` from this thread (`give_up`: by releasing it, else by cancelling it) while its callback
 * runs on the loop's thread, and checks the release came once, here, after the callback. */
static void end_while_running(cadence_cancellable h, shared *s, int give_up) {
    while (!atomic_load(&s->started)) sleep_ms(1);
    atomic_store(&s->ending, 1);
    if (give_up) {
        CHECK_OK(cadence_cancellable_release(h));
    } else {
        CHECK_OK(cadence_cancel(h));
    }
    CHECK_EQ(atomic_load(&s->returned), 1);
    CHECK_EQ(atomic_load(&s->releases), 1);
    CHECK_EQ(atomic_load(&s->released_while_running), 0);
    CHECK(pthread_equal(s->released_on, pthread_self()));
    if (!give_up) CHECK_OK(cadence_cancellable_release(h));
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, on_fire, on_release));
    CHECK_OK(cadence_loop_start_thread(loop, "default"));

    shared cancelled = {0}, released = {0}, subscription = {0}, once = {0}, pending = {0};
    cadence_cancellable h;
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0, 0.01, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &cancelled, &h));
    end_while_running(h, &cancelled, 0);
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0, 0.01, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &released, &h));
    end_while_running(h, &released, 1);
    h = subscribe_autoconnect(loop, 0.01, 0, "default", on_tick, &subscription);
    end_while_running(h, &subscription, 1);

    /* A one-shot's fire is its final call: a cancel racing with it releases nothing. */
    CHECK_OK(schedule_default(loop, 0, &once, &h));
    while (!atomic_load(&once.started)) sleep_ms(1);
    atomic_store(&once.ending, 1);
    CHECK_ERR(cadence_cancel(h), CADENCE_EALREADY);
    CHECK_EQ(atomic_load(&once.returned), 1);
    CHECK_OK(cadence_cancellable_release(h));

    /* Destroyed with a pending timer: released inside cadence_loop_close, on this thread. */
    CHECK_OK(schedule_default(loop, 3600, &pending, &h));
    CHECK_OK(cadence_loop_stop_thread(loop));
    CHECK_OK(cadence_loop_close(loop));
    CHECK_EQ(atomic_load(&pending.releases), 1);
    CHECK(pthread_equal(pending.released_on, pthread_self()));

    CHECK_EQ(atomic_load(&once.releases), 0);
    CHECK_EQ(atomic_load(&once.calls), 1);
    CHECK_EQ(atomic_load(&cancelled.releases), 1);
    CHECK_EQ(atomic_load(&released.releases), 1);
    CHECK_EQ(atomic_load(&subscription.releases), 1);
    return 0;
}
