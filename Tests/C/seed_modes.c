/* Seed article, run loop modes: while the loop runs in a custom common mode (UIKit's tracking
 * mode, as if the user were scrolling), a "default" timer waits and a "common" one ticks. When
 * the default mode runs again, the overdue timer fires once, not in a burst. */
#include "recorder.h"

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    CHECK_OK(cadence_loop_add_common_mode(loop, "ExampleTrackingMode"));
    recorder in_default = {.loop = loop}, in_common = {.loop = loop};

    cadence_cancellable default_sub = subscribe_autoconnect(loop, 0.05, 0, "default", record_tick, &in_default);
    cadence_cancellable common_sub = subscribe_autoconnect(loop, 0.05, 0, "common", record_tick, &in_common);

    CHECK_OK(cadence_loop_run(loop, "ExampleTrackingMode", 0.5));
    CHECK_EQ(in_default.count, 0);
    CHECK(in_common.count >= 8);
    check_on_grid(&in_common, 0.05);

    /* Back in the default mode, the waiting timer fires once for everything it missed. */
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_EQ(in_default.count, 1);
    CHECK(in_default.skipped[0] >= 8);

    CHECK_OK(cadence_cancellable_release(default_sub));  /* releasing a subscription cancels it */
    CHECK_OK(cadence_cancellable_release(common_sub));
    CHECK_OK(cadence_loop_destroy(loop));
    return 0;
}
