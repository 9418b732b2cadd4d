/* cadence_cancel is one atomic operation in the engine: two threads cancelling the same countdown,
 * poller or scheduled timer get exactly one 0 and one CADENCE_EALREADY, every time. */
#include <pthread.h>

#include "check.h"

enum { ROUNDS = 10000 };

typedef struct race {
    cadence_cancellable handles[ROUNDS];
    int results[2][ROUNDS];
    pthread_barrier_t start;
} race;

typedef struct worker {
    race *race;
    int index;
} worker;

static int calls; /* callbacks after the countdowns' first values; on the main thread only */

static void on_countdown(const cadence_countdown_event *event, void *userdata) { (void)event; (void)userdata; calls++; }
static void on_poll(const cadence_poll *poll, void *userdata) { (void)poll; (void)userdata; calls++; }
static void on_tick(const cadence_tick *tick, void *userdata) { (void)tick; (void)userdata; calls++; }

/* Both threads cancel every handle in the same order, so that they meet on each one. */
static void *cancel_all(void *argument) {
    worker *w = argument;
    pthread_barrier_wait(&w->race->start);
    for (int i = 0; i < ROUNDS; i++) w->race->results[w->index][i] = cadence_cancel(w->race->handles[i]);
    return NULL;
}

static void run_race(race *r, const char *kind) {
    pthread_t threads[2];
    worker workers[2] = {{r, 0}, {r, 1}};
    CHECK(pthread_barrier_init(&r->start, NULL, 2) == 0);
    for (int t = 0; t < 2; t++) CHECK(pthread_create(&threads[t], NULL, cancel_all, &workers[t]) == 0);
    for (int t = 0; t < 2; t++) CHECK(pthread_join(threads[t], NULL) == 0);
    pthread_barrier_destroy(&r->start);
    for (int i = 0; i < ROUNDS; i++) {
        int a = r->results[0][i], b = r->results[1][i];
        int ok = (a == 0 && b == CADENCE_EALREADY) || (a == CADENCE_EALREADY && b == 0);
        if (!ok) CHECK_FAIL_("%s %d: cancels returned %d (%s) and %d (%s), expected one 0 and one EALREADY",
                             kind, i, a, cadence_err_name(a), b, cadence_err_name(b));
        CHECK_ERR(cadence_cancel(r->handles[i]), CADENCE_EALREADY);
        CHECK_OK(cadence_cancellable_release(r->handles[i]));
    }
}

static uint64_t armed_timers(cadence_loop loop) {
    uint64_t armed = 0;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    return armed;
}

int main(void) {
    static race r;
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    double now = 0;
    CHECK_OK(cadence_loop_now(loop, &now));

    for (int i = 0; i < ROUNDS; i++)
        CHECK_OK(cadence_countdown_start(loop, now + 60, 1, on_countdown, NULL, &r.handles[i]));
    calls = 0;  /* a countdown's first value may come when it starts */
    run_race(&r, "countdown");
    CHECK_EQ(armed_timers(loop), 0);

    for (int i = 0; i < ROUNDS; i++)
        CHECK_OK(cadence_poller_start(loop, 1, CADENCE_TOLERANCE_DEFAULT, on_poll, NULL, &r.handles[i]));
    run_race(&r, "poller");
    CHECK_EQ(armed_timers(loop), 0);

    for (int i = 0; i < ROUNDS; i++) {
        if (i % 2) CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", on_tick, NULL, &r.handles[i]));
        else CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                                      NULL, &r.handles[i]));
    }
    run_race(&r, "scheduled timer");
    CHECK_EQ(armed_timers(loop), 0);

    CHECK_OK(cadence_loop_run(loop, "default", 120));
    CHECK_EQ(calls, 0);  /* nothing cancelled fires */
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
