/* A cancel from another thread waits for the callback it races with: while a one-shot's callback
 * runs on the loop's thread, cadence_cancel on the main thread reports CADENCE_EALREADY (the
 * one-shot has fired) and returns only after the callback has returned. The callback sleeps after
 * it sees the cancel coming, so a cancel that did not wait would return with the callback still
 * running. A second cancel then returns at once. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"

typedef struct shared {
    atomic_int started, cancelling, returned;
} shared;

static void sleep_ms(long ms) {
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void on_fire(const cadence_tick *tick, void *userdata) {
    (void)tick;
    shared *s = userdata;
    atomic_store(&s->started, 1);
    while (!atomic_load(&s->cancelling)) sleep_ms(1);
    sleep_ms(50);  /* the cancel is on its way: it must wait for this */
    atomic_store(&s->returned, 1);
}

int main(void) {
    shared s = {0};
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    CHECK_OK(cadence_loop_start_thread(loop, "default"));
    cadence_cancellable once;
    CHECK_OK(cadence_loop_schedule(loop, 0, 0, "default", on_fire, &s, &once));
    while (!atomic_load(&s.started)) sleep_ms(1);

    atomic_store(&s.cancelling, 1);
    CHECK_ERR(cadence_cancel(once), CADENCE_EALREADY);
    CHECK_EQ(atomic_load(&s.returned), 1);
    CHECK_ERR(cadence_cancel(once), CADENCE_EALREADY);

    CHECK_OK(cadence_loop_stop_thread(loop));
    CHECK_OK(cadence_cancellable_release(once));
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
