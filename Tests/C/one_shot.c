/* One-shot timers (cadence_loop_schedule): fire once, never early, cancel before the fire
 * prevents it, and a fired timer counts as cancelled. */
#include "recorder.h"

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    recorder fired = {.loop = loop}, prevented = {.loop = loop}, released = {.loop = loop};
    cadence_cancellable once, cancelled_early, fire_and_forget;

    double scheduled_at = loop_now(loop);
    CHECK_OK(cadence_loop_schedule(loop, 0.05, 0, "default", record_tick, &fired, &once));
    CHECK_OK(cadence_loop_schedule(loop, 0.05, 0, "common", record_tick, &prevented, &cancelled_early));
    CHECK_OK(cadence_loop_schedule(loop, 0.05, 0, "default", record_tick, &released, &fire_and_forget));
    CHECK_OK(cadence_cancellable_release(fire_and_forget));  /* releasing does not cancel */
    int is_cancelled = -1;
    CHECK_OK(cadence_is_cancelled(once, &is_cancelled));
    CHECK_EQ(is_cancelled, 0);
    CHECK_OK(cadence_cancel(cancelled_early));
    CHECK_ERR(cadence_cancel(cancelled_early), CADENCE_EALREADY);

    CHECK_OK(cadence_loop_run(loop, "default", 0.2));
    CHECK_EQ(fired.count, 1);
    CHECK(fired.dates[0] >= scheduled_at + 0.05);
    CHECK_RANGE(fired.lateness[0], 0, 0.05 + timing_slack());
    CHECK_EQ(fired.skipped[0], 0);
    CHECK_EQ(prevented.count, 0);
    CHECK_EQ(released.count, 1);

    CHECK_OK(cadence_is_cancelled(once, &is_cancelled));
    CHECK_EQ(is_cancelled, 1);                 /* a fired one-shot counts as cancelled */
    CHECK_ERR(cadence_cancel(once), CADENCE_EALREADY);

    /* A zero delay fires on the next pass. */
    CHECK_OK(cadence_loop_schedule(loop, 0, 0, "default", record_tick, &fired, &fire_and_forget));
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_EQ(fired.count, 2);

    CHECK_OK(cadence_cancellable_release(fire_and_forget));
    CHECK_OK(cadence_cancellable_release(once));
    CHECK_OK(cadence_cancellable_release(cancelled_early));
    CHECK_OK(cadence_loop_destroy(loop));
    return 0;
}
