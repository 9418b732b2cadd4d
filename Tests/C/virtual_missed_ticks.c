/* Missed-tick policies, what the C face adds: bad policies are refused and change nothing. Also: a
 * zero-delay one-shot that reschedules itself from its callback does not starve the loop, on a
 * virtual and a real loop. (Each policy's timeline, after lateness below, at and above one
 * interval, is a scenario of the corpus, Tests/Scenarios/grid.jsonl.) */
#include "timeline.h"

/* A policy is refused on anything but a live publisher's handle. */
static void bad_policies(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    cadence_publisher timer, shared;
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &timer));
    const int bad[] = {-1, 3, 4, 100, -2147483647 - 1, 2147483647};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++)
        CHECK_ERR(cadence_publisher_set_missed_ticks(timer, bad[i]), CADENCE_EINVAL);
    CHECK_OK(cadence_publisher_set_missed_ticks(timer, CADENCE_MISSED_TICKS_DELAY));
    CHECK_OK(cadence_publisher_autoconnect(timer, &shared));
    CHECK_OK(cadence_publisher_set_missed_ticks(shared, CADENCE_MISSED_TICKS_SKIP));
    CHECK_ERR(cadence_publisher_set_missed_ticks(shared, 3), CADENCE_EINVAL);
    CHECK_OK(cadence_publisher_release(shared));
    CHECK_ERR(cadence_publisher_set_missed_ticks(shared, CADENCE_MISSED_TICKS_BURST), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_set_missed_ticks((cadence_publisher){0}, 0), CADENCE_EBADF);
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_close(loop));
    CHECK_ERR(cadence_publisher_set_missed_ticks(timer, CADENCE_MISSED_TICKS_SKIP), CADENCE_EBADF);
}

/* ---- A zero-delay one-shot that reschedules itself ---- */

#define MAX_RESCHEDULES 8

typedef struct restarter {
    cadence_loop loop;
    int runs;
    cadence_cancellable handles[MAX_RESCHEDULES + 1];  /* [0]: the first one, then each reschedule */
} restarter;

static void restart(const cadence_tick *tick, void *userdata) {
    (void)tick;
    restarter *r = userdata;
    r->runs++;
    CHECK(r->runs <= MAX_RESCHEDULES);
    CHECK_OK(cadence_loop_schedule(r->loop, 0, 0, "default", restart, r, &r->handles[r->runs]));
}

static void count_call(const cadence_tick *tick, void *userdata) {
    (void)tick;
    ++*(int *)userdata;
}

/* One cadence_loop_run(loop, "default", 0) returns, with each one-shot run exactly once: the
 * rescheduled one was armed during the pass and waits for the next (libuv issue 4245). */
static void self_rescheduling_one_shot(cadence_loop loop) {
    restarter r = {.loop = loop};
    int other = 0;
    cadence_cancellable other_handle;
    CHECK_OK(cadence_loop_schedule(loop, 0, 0, "default", restart, &r, &r.handles[0]));
    CHECK_OK(cadence_loop_schedule(loop, 0, 0, "default", count_call, &other, &other_handle));
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_EQ(r.runs, 1);
    CHECK_EQ(other, 1);
    CHECK_EQ(armed_timers(loop), 1);           /* the rescheduled one */
    /* Each further zero-length run is one more pass: one more call. */
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_EQ(r.runs, 3);
    CHECK_EQ(other, 1);
    CHECK_OK(cadence_cancel(r.handles[r.runs]));
    CHECK_EQ(armed_timers(loop), 0);
    for (int i = 0; i <= r.runs; i++) CHECK_OK(cadence_cancellable_release(r.handles[i]));
    CHECK_OK(cadence_cancellable_release(other_handle));
}

int main(void) {
    bad_policies();

    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    self_rescheduling_one_shot(loop);
    CHECK_EQ(to_ms(timeline_now(loop)), 0);    /* zero-length runs leave a virtual clock alone */
    CHECK_OK(cadence_loop_close(loop));

    CHECK_OK(cadence_loop_create(&loop));      /* the same on a real loop */
    self_rescheduling_one_shot(loop);
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
