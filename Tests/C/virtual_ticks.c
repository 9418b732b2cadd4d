/* Seed article, ticks in virtual time: on a virtual loop a 1 s repeating timer run for 3.5 s fires
 * at exactly 1000, 2000 and 3000 virtual ms, at once; it is one armed timer, and none once its
 * subscription (autoconnect) or connection is cancelled. */
#include "timeline.h"

/* An autoconnect publisher with one subscriber, as the article's ticks(every:). */
static void autoconnect_ticks(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK(timeline_now(loop) == 0);            /* a virtual clock starts at 0 */
    timeline ticks = {.loop = loop};
    cadence_publisher timer, shared;
    cadence_cancellable subscription;
    CHECK_OK(cadence_timer_publish(loop, 1, 0, "common", &timer));
    CHECK_OK(cadence_publisher_autoconnect(timer, &shared));
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_publisher_subscribe(shared, timeline_tick, &ticks, &subscription));

    CHECK_OK(cadence_loop_run(loop, "default", 3.5));
    CHECK_TIMELINE(ticks, "0@1000", "1@2000", "2@3000");
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(ticks.ran_at[i], (i + 1) * 1000);  /* each tick ran at its fire date */
        CHECK_EQ(ticks.skipped[i], 0);
    }
    CHECK(timeline_now(loop) == 3.5);          /* virtual time advanced exactly 3.5 s */
    CHECK_EQ(armed_timers(loop), 1);           /* the repeating timer */
    CHECK_OK(cadence_cancel(subscription));
    CHECK_EQ(armed_timers(loop), 0);           /* cancelled with the subscription */
    CHECK_OK(cadence_loop_run(loop, "default", 2));
    CHECK_EQ(ticks.count, 3);

    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_publisher_release(shared));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_destroy(loop));
}

/* The same with connect: the grid starts at the connect date. */
static void connected_ticks(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline ticks = {.loop = loop};
    cadence_publisher timer;
    cadence_cancellable subscription, connection;
    CHECK_OK(cadence_timer_publish(loop, 1, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, timeline_tick, &ticks, &subscription));
    CHECK_OK(cadence_loop_run(loop, "default", 0.25));  /* not connected: nothing */
    CHECK_EQ(ticks.count, 0);
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    CHECK_OK(cadence_loop_run(loop, "default", 3.5));
    CHECK_TIMELINE(ticks, "0@1250", "1@2250", "2@3250");
    CHECK(timeline_now(loop) == 3.75);
    CHECK_EQ(armed_timers(loop), 1);
    CHECK_OK(cadence_cancel(connection));
    CHECK_EQ(armed_timers(loop), 0);

    CHECK_OK(cadence_cancellable_release(connection));
    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_destroy(loop));
}

int main(void) {
    autoconnect_ticks();
    connected_ticks();
    return 0;
}
