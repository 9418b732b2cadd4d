/* Seed article, "A timer publisher must be connected": subscribing does not start the timer,
 * connecting does, and cancelling the connection stops it. Same windows as the article. */
#include "recorder.h"

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    recorder ticks = {.loop = loop};

    cadence_publisher timer;
    cadence_cancellable subscription, connection;
    CHECK_OK(cadence_timer_publish(loop, 0.05, 0, "common", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, record_tick, &ticks, &subscription));
    CHECK_OK(cadence_loop_run(loop, "default", 0.3));
    CHECK_EQ(ticks.count, 0);                       /* subscribed, but never connected */

    double connected_at = loop_now(loop);
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    CHECK_OK(cadence_loop_run(loop, "default", 0.31));
    CHECK_RANGE(ticks.count, timing_slack() > 0 ? 3 : 5, 7);  /* about one tick every 50 ms */
    CHECK_RANGE(ticks.dates[0] - connected_at, 0.05, 0.06 + timing_slack());  /* one interval after */
    check_on_grid(&ticks, 0.05);

    CHECK_OK(cadence_cancel(connection));
    int at_stop = ticks.count;
    CHECK_OK(cadence_loop_run(loop, "default", 0.2));
    CHECK_EQ(ticks.count, at_stop);                 /* cancelling the connection stopped it */

    CHECK_OK(cadence_cancellable_release(connection));
    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_destroy(loop));
    return 0;
}
