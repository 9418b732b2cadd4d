/* Repeating scheduled timers (no publisher) as exact virtual-time checks: the first fire after the
 * delay, then the grid every interval; cancelling stops it, releasing the handle does not; bad
 * arguments change nothing; destroying the loop ends it. (Missed-tick policies are scenarios of
 * the corpus, Tests/Scenarios/grid.jsonl.) */
#include "timeline.h"

static cadence_cancellable scheduled(cadence_loop loop, double delay, double interval, int policy,
                                     timeline *t) {
    cadence_cancellable handle = {0};
    CHECK_OK(cadence_loop_schedule_repeating(loop, delay, interval, 0, policy, "default",
                                             timeline_tick, t, &handle));
    return handle;
}

static void grid_and_cancel(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline t = {.loop = loop};
    cadence_cancellable timer = scheduled(loop, 0.05, 0.1, CADENCE_MISSED_TICKS_SKIP, &t);
    CHECK_EQ(armed_timers(loop), 1);
    CHECK_OK(cadence_loop_run(loop, "default", 0.36));
    CHECK_TIMELINE(t, "0@50", "1@150", "2@250", "3@350");
    int cancelled = -1;
    CHECK_OK(cadence_is_cancelled(timer, &cancelled));
    CHECK_EQ(cancelled, 0);  /* a repeating timer goes on after it fires */
    CHECK_OK(cadence_cancel(timer));
    CHECK_ERR(cadence_cancel(timer), CADENCE_EALREADY);
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_EQ(t.count, 4);
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_OK(cadence_loop_close(loop));
}

static void released_and_destroyed(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline t = {.loop = loop}, given_up = {.loop = loop};
    cadence_cancellable timer = scheduled(loop, 0, 0.5, CADENCE_MISSED_TICKS_SKIP, &t);
    cadence_cancellable stopped = scheduled(loop, 0, 0.5, CADENCE_MISSED_TICKS_SKIP, &given_up);
    CHECK_OK(cadence_cancellable_detach(timer));
    CHECK_OK(cadence_cancellable_release(timer));  /* detached: the timer goes on */
    CHECK_ERR(cadence_cancellable_release(timer), CADENCE_EBADF);
    CHECK_OK(cadence_loop_run(loop, "default", 0.7));
    CHECK_OK(cadence_cancellable_release(stopped));  /* not detached: giving it up stops it */
    CHECK_ERR(cadence_cancel(stopped), CADENCE_EBADF);
    CHECK_OK(cadence_loop_run(loop, "default", 0.5));
    CHECK_TIMELINE(t, "0@0", "1@500", "2@1000");
    CHECK_TIMELINE(given_up, "0@0", "1@500");
    CHECK_EQ(armed_timers(loop), 1);
    CHECK_OK(cadence_loop_close(loop));  /* ends it (valgrind: nothing leaks) */
}

static int called;
static void count_call(const cadence_tick *tick, void *userdata) {
    (void)tick;
    (void)userdata;
    called++;
}

static void bad_arguments(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    cadence_cancellable out = {0};
    const double bad_intervals[] = {0, -1, NAN, INFINITY};
    for (int i = 0; i < 4; i++) {
        CHECK_ERR(cadence_loop_schedule_repeating(loop, 0, bad_intervals[i], 0, 0, "default", count_call,
                                                  NULL, &out), CADENCE_EINVAL);
    }
    CHECK_ERR(cadence_loop_schedule_repeating(loop, -1, 1, 0, 0, "default", count_call, NULL, &out),
              CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_repeating(loop, 0, 1, NAN, 0, "default", count_call, NULL, &out),
              CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_repeating(loop, 0, 1, 0, 3, "default", count_call, NULL, &out),
              CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_repeating(loop, 0, 1, 0, -1, "default", count_call, NULL, &out),
              CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_repeating(loop, 0, 1, 0, 0, NULL, count_call, NULL, &out),
              CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_repeating(loop, 0, 1, 0, 0, "nope", count_call, NULL, &out),
              CADENCE_ENOENT);
    CHECK_ERR(cadence_loop_schedule_repeating(loop, 0, 1, 0, 0, "default", NULL, NULL, &out),
              CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_repeating(loop, 0, 1, 0, 0, "default", count_call, NULL, NULL),
              CADENCE_EINVAL);
    CHECK_EQ(out.id, 0);  /* written only on success */
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_run(loop, "default", 5));
    CHECK_EQ(called, 0);  /* on error fn is never called */
    CHECK_OK(cadence_loop_close(loop));
    CHECK_ERR(cadence_loop_schedule_repeating(loop, 0, 1, 0, 0, "default", count_call, NULL, &out),
              CADENCE_EBADF);
}

int main(void) {
    grid_and_cancel();
    released_and_destroyed();
    bad_arguments();
    return 0;
}
