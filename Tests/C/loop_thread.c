/* A loop on a thread of its own (real clock): timers published, connected, scheduled and
 * cancelled from the main thread fire on the loop's thread; the loop cannot be run or destroyed
 * meanwhile (CADENCE_EBUSY), nor its thread stopped from a callback; stopping from main joins. */
#include <pthread.h>
#include <stdatomic.h>

#include "recorder.h"

typedef struct shared {
    cadence_loop loop;
    pthread_t main_thread;
    atomic_int ticks, once, on_main;
    atomic_int stop_result, run_result;   /* from inside the one-shot */
} shared;

static void count(shared *s, atomic_int *counter) {
    atomic_fetch_add(counter, 1);
    if (pthread_equal(pthread_self(), s->main_thread)) atomic_fetch_add(&s->on_main, 1);
}

static void on_tick(const cadence_tick *tick, void *userdata) {
    (void)tick;
    count(userdata, &((shared *)userdata)->ticks);
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
    CHECK_OK(cadence_timer_publish(s.loop, 0.02, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, on_tick, &s, &sub));
    double start = loop_now(s.loop);
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    CHECK_OK(cadence_loop_schedule(s.loop, 0.05, 0, "default", on_once, &s, &once));
    CHECK_ERR(cadence_loop_run(s.loop, "default", 0.01), CADENCE_EBUSY);
    CHECK_ERR(cadence_loop_destroy(s.loop), CADENCE_EBUSY);

    sleep_seconds(0.2);
    int ticks = atomic_load(&s.ticks);
    CHECK_RANGE(ticks, 3, (loop_now(s.loop) - start) / 0.02 + 1);
    CHECK_EQ(atomic_load(&s.once), 1);
    CHECK_EQ(atomic_load(&s.on_main), 0);      /* every callback on the loop's thread */
    CHECK_ERR(atomic_load(&s.stop_result), CADENCE_EBUSY);
    CHECK_ERR(atomic_load(&s.run_result), CADENCE_EBUSY);

    /* Once cancel returns no new tick starts; one already running may finish. */
    CHECK_OK(cadence_cancel(connection));
    int at_cancel = atomic_load(&s.ticks);
    sleep_seconds(0.1);
    CHECK_RANGE(atomic_load(&s.ticks), at_cancel, at_cancel + 1);

    /* Stopping joins the thread: a one-shot due meanwhile waits for someone to run the loop. */
    cadence_cancellable later;
    CHECK_OK(cadence_loop_schedule(s.loop, 0.05, 0, "default", on_once, &s, &later));
    CHECK_OK(cadence_loop_stop_thread(s.loop));
    sleep_seconds(0.1);
    CHECK_EQ(atomic_load(&s.once), 1);
    CHECK_OK(cadence_loop_stop_thread(s.loop));  /* no thread: nothing to do */
    CHECK_OK(cadence_loop_run(s.loop, "default", 0));
    CHECK_EQ(atomic_load(&s.once), 2);         /* now on the main thread */
    CHECK_EQ(atomic_load(&s.on_main), 1);
    CHECK_OK(atomic_load(&s.stop_result));     /* no thread to stop */

    cadence_cancellable handles[] = {sub, connection, once, later};
    for (int i = 0; i < 4; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_destroy(s.loop));
    return 0;
}
