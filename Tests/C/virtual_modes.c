/* Seed article, run loop modes, as exact virtual-time checks: in a custom common mode a "default"
 * timer waits and a "common" one fires exactly 10 times in 0.5 s at 0.05 s; back in "default" the
 * waiting timer fires once, on its grid; a mode added as common later takes existing common timers. */
#include "timeline.h"

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_add_common_mode(loop, "tracking"));
    CHECK_OK(cadence_loop_add_mode(loop, "modal"));
    timeline in_default = {.loop = loop}, in_common = {.loop = loop};

    cadence_cancellable default_sub = subscribe_autoconnect(loop, 0.05, 0, "default", timeline_tick, &in_default);
    cadence_cancellable common_sub = subscribe_autoconnect(loop, 0.05, 0, "common", timeline_tick, &in_common);
    CHECK_EQ(armed_timers(loop), 2);           /* armed in all modes */

    CHECK_OK(cadence_loop_run(loop, "tracking", 0.5));
    CHECK_EQ(in_default.count, 0);
    CHECK_TIMELINE(in_common, "0@50", "1@100", "2@150", "3@200", "4@250",
                   "5@300", "6@350", "7@400", "8@450", "9@500");

    /* Back in "default", the waiting timer fires once for the nine grid points it missed. */
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_TIMELINE(in_default, "0@500");
    CHECK_EQ(in_default.skipped[0], 9);
    CHECK_EQ(in_common.count, 10);

    /* A mode that is not common runs neither timer... */
    CHECK_OK(cadence_loop_run(loop, "modal", 0.2));
    CHECK_EQ(in_default.count + in_common.count, 11);
    /* ...until it is added as a common mode: then the common timer fires in it, once for what it
     * missed and then on its grid. */
    CHECK_OK(cadence_loop_add_common_mode(loop, "modal"));
    CHECK_OK(cadence_loop_run(loop, "modal", 0.1));
    CHECK_EQ(in_default.count, 1);
    CHECK_EQ(in_common.count, 13);
    CHECK_STR(in_common.events[10], "10@700");
    CHECK_EQ(in_common.skipped[10], 3);
    CHECK_STR(in_common.events[11], "11@750");
    CHECK_STR(in_common.events[12], "12@800");

    CHECK_OK(cadence_cancellable_release(default_sub));
    CHECK_OK(cadence_cancellable_release(common_sub));
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_destroy(loop));
    return 0;
}
