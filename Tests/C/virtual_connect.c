/* What connect and autoconnect do with C handles (their timelines, the first tick one interval
 * after connect, shared dates, a subscription cancelled alone, are scenarios of the corpus,
 * Tests/Scenarios/connect.jsonl and autoconnect.jsonl, and asserted only there): two
 * connections are two handles to one timer, a cancelled one gives CADENCE_EALREADY, connecting a cancelled publisher returns a
 * cancelled handle; releasing the publisher, or a connection handle while another names the
 * same connection, leaves the timer running, releasing the last one stops it, and a publisher
 * released before it was ever connected cancels its subscriptions. */
#include "timeline.h"

static void connect_twice(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline a = {.loop = loop}, b = {.loop = loop};
    cadence_publisher timer;
    cadence_cancellable sub_a, sub_b, first, second, third;
    CHECK_OK(cadence_publisher_create(loop, 0.5, 0, "default", &timer));
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
    CHECK(a.count > 0);
    CHECK_EQ(b.count, a.count);

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
    int heard = a.count;
    CHECK_OK(cadence_loop_run(loop, "default", 2));
    CHECK_EQ(a.count, heard);

    cadence_cancellable handles[] = {sub_a, sub_b, first, second, third};
    for (int i = 0; i < 5; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_close(loop));
}

/* Releasing the publisher, or one connection handle while another names the same connection,
 * leaves the timer running; releasing the last connection handle stops it, as a cancel. */
static void release_connection(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline ticks = {.loop = loop};
    cadence_publisher timer;
    cadence_cancellable sub, first, again;
    CHECK_OK(cadence_publisher_create(loop, 0.5, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, timeline_tick, &ticks, &sub));
    CHECK_OK(cadence_publisher_connect(timer, &first));
    CHECK_OK(cadence_publisher_connect(timer, &again));  /* the same connection */
    CHECK_OK(cadence_cancellable_release(first));
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK(ticks.count > 0);                              /* the other handle keeps it going */
    int heard = ticks.count;
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_run(loop, "default", 0.5));
    CHECK(ticks.count > heard);                          /* and so does the connection */
    CHECK_EQ(armed_timers(loop), 1);
    CHECK_OK(cadence_cancellable_release(again));        /* the last handle: the timer stops */
    CHECK_EQ(armed_timers(loop), 0);
    int cancelled = 0;
    CHECK_OK(cadence_is_cancelled(sub, &cancelled));
    CHECK_EQ(cancelled, 1);                              /* nothing can make it tick again */
    heard = ticks.count;
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_EQ(ticks.count, heard);
    CHECK_OK(cadence_cancellable_release(sub));
    CHECK_OK(cadence_loop_close(loop));
}

/* A publisher released before it was ever connected can never tick: its subscriptions read as
 * cancelled. Released once connected, it goes on. */
static void release_before_connect(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline never = {.loop = loop}, kept = {.loop = loop};
    cadence_publisher unconnected, connected;
    cadence_cancellable sub_never, sub_kept, connection;
    CHECK_OK(cadence_publisher_create(loop, 0.05, 0, "default", &unconnected));
    CHECK_OK(cadence_publisher_subscribe(unconnected, timeline_tick, &never, &sub_never));
    CHECK_OK(cadence_publisher_create(loop, 0.05, 0, "default", &connected));
    CHECK_OK(cadence_publisher_subscribe(connected, timeline_tick, &kept, &sub_kept));
    CHECK_OK(cadence_publisher_connect(connected, &connection));
    CHECK_OK(cadence_publisher_release(unconnected));
    CHECK_OK(cadence_publisher_release(connected));
    int cancelled = -1;
    CHECK_OK(cadence_is_cancelled(sub_never, &cancelled));
    CHECK_EQ(cancelled, 1);
    CHECK_OK(cadence_is_cancelled(sub_kept, &cancelled));
    CHECK_EQ(cancelled, 0);
    CHECK_OK(cadence_loop_run(loop, "default", 0.12));
    CHECK_EQ(never.count, 0);
    CHECK(kept.count > 0);
    CHECK_OK(cadence_cancel(connection));
    cadence_cancellable handles[] = {sub_never, sub_kept, connection};
    for (int i = 0; i < 3; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
    CHECK_OK(cadence_loop_close(loop));
}

int main(void) {
    connect_twice();
    release_connection();
    release_before_connect();
    return 0;
}
