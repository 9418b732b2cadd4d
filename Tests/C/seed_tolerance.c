/* Seed article, tolerance: a 0.1 s timer with 0.05 s tolerance keeps its grid (the tolerance never
 * accumulates) and fires within the tolerance, never early. */
#include "recorder.h"

/* Scheduling noise allowed on top of the tolerance on a loaded machine; lateness is never < 0. */
#define SLACK 0.05

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    recorder ticks = {.loop = loop};

    double start = loop_now(loop);
    cadence_cancellable subscription = subscribe_autoconnect(loop, 0.1, 0.05, "common", record_tick, &ticks);
    CHECK_OK(cadence_loop_run(loop, "default", 1.05));
    CHECK_OK(cadence_cancel(subscription));

    CHECK(ticks.count >= 9);
    /* The grid starts when the subscription connects, just after `start`. */
    CHECK_RANGE(ticks.dates[0] - start, 0.1, 0.1 + SLACK + timing_slack());
    for (int i = 0; i < ticks.count; i++)
        CHECK_RANGE(ticks.lateness[i], 0, 0.05 + SLACK + timing_slack());  /* never early */
    check_on_grid(&ticks, 0.1);                /* fire dates on the grid */

    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_loop_destroy(loop));
    return 0;
}
