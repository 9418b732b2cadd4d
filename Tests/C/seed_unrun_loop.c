/* Seed article, "Timers need a running run loop": a connected timer on a loop that nobody runs
 * never fires; once the loop runs, the overdue timer fires once. */
#include "recorder.h"

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    recorder ticks = {.loop = loop};

    cadence_publisher timer;
    cadence_cancellable subscription, connection;
    CHECK_OK(cadence_timer_publish(loop, 0.05, 0, "common", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, record_tick, &ticks, &subscription));
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    sleep_seconds(0.3);
    CHECK_EQ(ticks.count, 0);                       /* nobody runs the loop */

    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_EQ(ticks.count, 1);
    CHECK(ticks.skipped[0] >= 4);

    CHECK_OK(cadence_cancel(connection));
    CHECK_OK(cadence_cancellable_release(connection));
    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_destroy(loop));
    return 0;
}
