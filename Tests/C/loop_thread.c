/* A loop on a thread of its own (real clock): timers published, connected, scheduled and
 * cancelled from the main thread fire on the loop's thread; the loop cannot be run or destroyed
 * meanwhile (CADENCE_EBUSY), nor its thread stopped from a callback; stopping from main joins. */
#include <pthread.h>
#include <stdatomic.h>

#include "recorder.h"

#define INTERVAL 0.02

typedef struct shared {
    cadence_loop loop;
    pthread_t main_thread;
    atomic_int ticks, once, on_main, sentinel;
    atomic_int stop_result, run_result;   /* from inside the one-shot */
    /* Written by the loop's thread, read by main once stop_thread has joined it. */
    double dates[RECORDER_MAX], lateness[RECORDER_MAX];
    uint64_t skipped[RECORDER_MAX];
} shared;

static void count(shared *s, atomic_int *counter) {
    atomic_fetch_add(counter, 1);
    if (pthread_equal(pthread_self(), s->main_thread)) atomic_fetch_add(&s->on_main, 1);
}

static void on_tick(const cadence_tick *tick, void *userdata) {
    shared *s = userdata;
    int n = atomic_load(&s->ticks);
    if (n < RECORDER_MAX) {
        s->dates[n] = tick->fire_date;
        s->lateness[n] = loop_now(s->loop) - tick->fire_date;
        s->skipped[n] = tick->skipped;
    }
    count(s, &s->ticks);
}

static void on_sentinel(const cadence_tick *tick, void *userdata) {
    (void)tick;
    atomic_store(&((shared *)userdata)->sentinel, 1);
}

static void on_once(const cadence_tick *tick, void *userdata) {
    (void)tick;
    shared *s = userdata;
    count(s, &s->once);
    atomic_store(&s->stop_result, cadence_loop_stop_thread(s->loop));  /* cannot wait for itself */
    atomic_store(&s->run_result, cadence_loop_run(s->loop, "default", 0));
}

int main(void) {
    shared s = {.main_thread = pthread_self(), .stop_result = 1, .run_result = 1};
    CHECK_OK(cadence_loop_create(&s.loop));
    CHECK_OK(cadence_loop_start_thread(s.loop, "default"));
    CHECK_ERR(cadence_loop_start_thread(s.loop, "default"), CADENCE_EBUSY);  /* it has one */

    cadence_publisher timer;
    cadence_cancellable sub, connection, once;
    CHECK_OK(cadence_publisher_create(s.loop, INTERVAL, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, on_tick, &s, &sub));
    double before_connect = loop_now(s.loop);
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    double after_connect = loop_now(s.loop);
    CHECK_OK(cadence_loop_schedule(s.loop, 0.05, 0, "default", on_once, &s, &once));
    CHECK_ERR(cadence_loop_run(s.loop, "default", 0.01), CADENCE_EBUSY);
    CHECK_ERR(cadence_loop_close(s.loop), CADENCE_EBUSY);

    CHECK_EVENTUALLY(atomic_load(&s.ticks) >= 5 && atomic_load(&s.once) == 1);
    CHECK_EQ(atomic_load(&s.on_main), 0);      /* every callback on the loop's thread */
    CHECK_ERR(atomic_load(&s.stop_result), CADENCE_EBUSY);
    CHECK_ERR(atomic_load(&s.run_result), CADENCE_EBUSY);

    /* Once cancel returns no new tick starts; one already running may finish. */
    CHECK_OK(cadence_cancel(connection));
    int at_cancel = atomic_load(&s.ticks);
    /* A one-shot due three grid points later: once it has run, a tick the cancel failed to stop
     * would have run before it (fire-date order). */
    cadence_cancellable sentinel;
    CHECK_OK(cadence_loop_schedule(s.loop, 3 * INTERVAL, 0, "default", on_sentinel, &s, &sentinel));
    CHECK_EVENTUALLY(atomic_load(&s.sentinel) == 1);
    CHECK_RANGE(atomic_load(&s.ticks), at_cancel, at_cancel + 1);

    /* Stopping joins the thread: a one-shot due meanwhile waits for someone to run the loop. */
    cadence_cancellable later;
    CHECK_OK(cadence_loop_schedule(s.loop, 0.05, 0, "default", on_once, &s, &later));
    double later_due = loop_now(s.loop) + 0.05;
    CHECK_OK(cadence_loop_stop_thread(s.loop));
    CHECK_EVENTUALLY(loop_now(s.loop) >= later_due + 0.01);  /* past its date, with no thread */
    CHECK_EQ(atomic_load(&s.once), 1);

    /* The thread is joined: its records can be read. Never early, and on the grid: the first
     * date 1 + skipped intervals after connect, each next one 1 + skipped intervals after the one
     * before. */
    int ticks = atomic_load(&s.ticks);
    int n = ticks < RECORDER_MAX ? ticks : RECORDER_MAX;
    double first = (1 + (double)s.skipped[0]) * INTERVAL;  /* a late first fire skips too */
    CHECK_RANGE(s.dates[0], before_connect + first - 1e-6, after_connect + first + 1e-6);
    for (int i = 0; i < n; i++) {
        CHECK(s.lateness[i] >= 0);
        if (i > 0) {
            double steps = (s.dates[i] - s.dates[i - 1]) / INTERVAL;
            CHECK_RANGE(steps, 1 + (double)s.skipped[i] - 1e-4, 1 + (double)s.skipped[i] + 1e-4);
        }
    }
    CHECK_OK(cadence_loop_stop_thread(s.loop));  /* no thread: nothing to do */
    CHECK_OK(cadence_loop_run(s.loop, "default", 0));
    CHECK_EQ(atomic_load(&s.once), 2);         /* now on the main thread */
    CHECK_EQ(atomic_load(&s.on_main), 1);
    CHECK_OK(atomic_load(&s.stop_result));     /* no thread to stop */

    cadence_cancellable handles[] = {sub, connection, once, later, sentinel};
    for (int i = 0; i < 5; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_close(s.loop));
    return 0;
}
