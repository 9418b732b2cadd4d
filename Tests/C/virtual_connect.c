/* Connect and autoconnect semantics as exact virtual-time checks: subscribing does not connect,
 * connecting twice gives one timer, cancelling a connection is for good, releasing one is not,
 * and an autoconnect publisher starts a fresh grid for each first subscriber. */
#include "timeline.h"

static void connect_twice(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline a = {.loop = loop}, b = {.loop = loop};
    cadence_publisher timer;
    cadence_cancellable sub_a, sub_b, first, second, third;
    CHECK_OK(cadence_timer_publish(loop, 0.5, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, timeline_tick, &a, &sub_a));
    CHECK_OK(cadence_publisher_subscribe(timer, timeline_tick, &b, &sub_b));
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_EQ(a.count, 0);                      /* subscribing does not connect */
    CHECK_EQ(armed_timers(loop), 0);

    CHECK_OK(cadence_publisher_connect(timer, &first));
    CHECK_OK(cadence_publisher_connect(timer, &second));
    CHECK(first.id != second.id);
    CHECK_EQ(armed_timers(loop), 1);           /* one timer */
    CHECK_OK(cadence_loop_run(loop, "default", 1.2));
    CHECK_TIMELINE(a, "0@1500", "1@2000");     /* the first tick one interval after connect */
    CHECK_TIMELINE(b, "0@1500", "1@2000");

    CHECK_OK(cadence_cancel(sub_b));           /* delivery to b alone stops */
    CHECK_OK(cadence_loop_run(loop, "default", 0.5));
    CHECK_TIMELINE(a, "0@1500", "1@2000", "2@2500");
    CHECK_EQ(b.count, 2);

    CHECK_OK(cadence_cancel(second));          /* either connection stops the timer, for good */
    CHECK_EQ(armed_timers(loop), 0);
    int cancelled = 0;
    CHECK_OK(cadence_is_cancelled(first, &cancelled));
    CHECK_EQ(cancelled, 1);
    CHECK_ERR(cadence_cancel(first), CADENCE_EALREADY);
    CHECK_OK(cadence_publisher_connect(timer, &third));
    CHECK_OK(cadence_is_cancelled(third, &cancelled));
    CHECK_EQ(cancelled, 1);                    /* connecting a cancelled publisher starts nothing */
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_run(loop, "default", 2));
    CHECK_EQ(a.count, 3);

    cadence_cancellable handles[] = {sub_a, sub_b, first, second, third};
    for (int i = 0; i < 5; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_destroy(loop));
}

/* Releasing a connection or the publisher leaves the timer running. */
static void release_connection(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline ticks = {.loop = loop};
    cadence_publisher timer;
    cadence_cancellable sub, first, again;
    CHECK_OK(cadence_timer_publish(loop, 0.5, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, timeline_tick, &ticks, &sub));
    CHECK_OK(cadence_publisher_connect(timer, &first));
    CHECK_OK(cadence_cancellable_release(first));
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_TIMELINE(ticks, "0@500", "1@1000");
    CHECK_OK(cadence_publisher_connect(timer, &again));  /* the same timer */
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_run(loop, "default", 0.5));
    CHECK_TIMELINE(ticks, "0@500", "1@1000", "2@1500");
    CHECK_EQ(armed_timers(loop), 1);
    CHECK_OK(cadence_cancel(again));
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_cancellable_release(again));
    CHECK_OK(cadence_cancellable_release(sub));
    CHECK_OK(cadence_loop_destroy(loop));
}

/* A late subscriber shares the running grid; the next first subscriber starts a fresh one. */
static void autoconnect(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline early = {.loop = loop}, late = {.loop = loop}, again = {.loop = loop};
    cadence_publisher timer, shared;
    cadence_cancellable sub_early, sub_late, sub_again;
    CHECK_OK(cadence_timer_publish(loop, 1, 0, "common", &timer));
    CHECK_OK(cadence_publisher_autoconnect(timer, &shared));
    CHECK_OK(cadence_publisher_subscribe(shared, timeline_tick, &early, &sub_early));
    CHECK_OK(cadence_loop_run(loop, "default", 1.5));
    CHECK_OK(cadence_publisher_subscribe(shared, timeline_tick, &late, &sub_late));
    CHECK_EQ(armed_timers(loop), 1);
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_TIMELINE(early, "0@1000", "1@2000");
    CHECK_TIMELINE(late, "0@2000");            /* the same tick, not a second timer */

    CHECK_OK(cadence_cancel(sub_early));
    CHECK_EQ(armed_timers(loop), 1);
    CHECK_OK(cadence_cancel(sub_late));        /* the last one leaves: the timer stops */
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_run(loop, "default", 0.7));
    CHECK_OK(cadence_publisher_subscribe(shared, timeline_tick, &again, &sub_again));
    CHECK_OK(cadence_loop_run(loop, "default", 2));
    CHECK_TIMELINE(again, "0@4200", "1@5200");  /* a fresh grid from 3.2 s */
    CHECK_EQ(early.count + late.count, 3);

    CHECK_OK(cadence_cancellable_release(sub_again));  /* releasing cancels */
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_cancellable_release(sub_early));
    CHECK_OK(cadence_cancellable_release(sub_late));
    CHECK_OK(cadence_publisher_release(shared));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_destroy(loop));
}

int main(void) {
    connect_twice();
    release_connection();
    autoconnect();
    return 0;
}
