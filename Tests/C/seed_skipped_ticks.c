/* Seed article, "Missed ticks are skipped, not replayed": a loop blocked for 0.55 s fires a
 * 0.1 s timer once for the whole gap, reports the skipped ticks, and stays on its grid. */
#include "recorder.h"

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    recorder ticks = {.loop = loop};

    double start = loop_now(loop);
    cadence_cancellable subscription = subscribe_autoconnect(loop, 0.1, 0, "common", record_tick, &ticks);
    CHECK_OK(cadence_loop_run(loop, "default", 0.25));
    sleep_seconds(0.55);                            /* the loop's thread is blocked */
    CHECK_OK(cadence_loop_run(loop, "default", 0.35));
    CHECK_OK(cadence_cancel(subscription));

    CHECK(ticks.count >= 4);
    int long_gaps = 0, skipping_fires = 0;
    for (int i = 1; i < ticks.count; i++) {
        double gap = ticks.dates[i] - ticks.dates[i - 1];
        CHECK(gap > 0.099);
        if (gap > 0.5) long_gaps++;
        if (ticks.skipped[i] >= 4) skipping_fires++;
    }
    CHECK_EQ(long_gaps, 1);                         /* one gap where the ticks were skipped */
    CHECK_EQ(skipping_fires, 1);                    /* one fire reports them */
    check_on_grid(&ticks, 0.1);                     /* and the grid did not move */
    /* Counting ticks undercounts time. */
    CHECK(ticks.dates[ticks.count - 1] - start - ticks.count * 0.1 > 0.3);

    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_loop_destroy(loop));
    return 0;
}
