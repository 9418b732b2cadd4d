/* Connection and subscription semantics: one timer per publisher however often it is connected,
 * no restart after cancel, and cancels that reach one subscriber only, also from callbacks. */
#include "recorder.h"

/* Connecting twice gives one timer: the same fire dates, not twice the ticks. */
static void connect_twice(cadence_loop loop) {
    recorder a = {.loop = loop}, b = {.loop = loop};
    cadence_publisher timer;
    cadence_cancellable sub_a, sub_b, first, second;
    CHECK_OK(cadence_timer_publish(loop, 0.05, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, record_tick, &a, &sub_a));
    CHECK_OK(cadence_publisher_subscribe(timer, record_tick, &b, &sub_b));
    CHECK_OK(cadence_publisher_connect(timer, &first));
    CHECK_OK(cadence_publisher_connect(timer, &second));
    CHECK(first.id != second.id);
    CHECK_OK(cadence_loop_run(loop, "default", 0.31));
    CHECK_RANGE(a.count, timing_slack() > 0 ? 3 : 5, 7);  /* not twice the ticks */
    CHECK_EQ(b.count, a.count);
    for (int i = 0; i < a.count; i++) CHECK(a.dates[i] == b.dates[i]);
    /* One grid; a loop slowed down (valgrind, load) may skip a tick, never add one. */
    for (int i = 1; i < a.count; i++) CHECK(a.dates[i] - a.dates[i - 1] > 0.0499);
    check_on_grid(&a, 0.05);

    /* Either connection stops the one timer, for good. */
    CHECK_OK(cadence_cancel(second));
    int cancelled = 0;
    CHECK_OK(cadence_is_cancelled(first, &cancelled));
    CHECK_EQ(cancelled, 1);
    CHECK_ERR(cadence_cancel(first), CADENCE_EALREADY);
    int at_stop = a.count;
    CHECK_OK(cadence_loop_run(loop, "default", 0.15));
    CHECK_EQ(a.count, at_stop);

    /* Connecting a cancelled publisher gives a cancelled connection and starts nothing. */
    cadence_cancellable third;
    CHECK_OK(cadence_publisher_connect(timer, &third));
    CHECK_OK(cadence_is_cancelled(third, &cancelled));
    CHECK_EQ(cancelled, 1);
    CHECK_OK(cadence_loop_run(loop, "default", 0.15));
    CHECK_EQ(a.count, at_stop);
    CHECK_EQ(b.count, at_stop);

    cadence_cancellable handles[] = {sub_a, sub_b, first, second, third};
    for (int i = 0; i < 5; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
    CHECK_OK(cadence_publisher_release(timer));
}

/* Cancelling one subscription stops delivery to it alone. */
static void cancel_one_subscription(cadence_loop loop) {
    recorder kept = {.loop = loop}, dropped = {.loop = loop};
    cadence_publisher timer;
    cadence_cancellable sub_kept, sub_dropped, connection;
    CHECK_OK(cadence_timer_publish(loop, 0.05, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, record_tick, &kept, &sub_kept));
    CHECK_OK(cadence_publisher_subscribe(timer, record_tick, &dropped, &sub_dropped));
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    CHECK_OK(cadence_loop_run(loop, "default", 0.12));
    CHECK_OK(cadence_cancel(sub_dropped));
    int dropped_at_cancel = dropped.count, kept_at_cancel = kept.count;
    CHECK(dropped_at_cancel >= 1);
    CHECK_OK(cadence_loop_run(loop, "default", 0.12));
    CHECK_EQ(dropped.count, dropped_at_cancel);
    CHECK(kept.count >= kept_at_cancel + 1);

    CHECK_OK(cadence_cancel(connection));
    CHECK_OK(cadence_cancellable_release(connection));
    CHECK_OK(cadence_cancellable_release(sub_dropped));
    CHECK_OK(cadence_cancellable_release(sub_kept));
    CHECK_OK(cadence_publisher_release(timer));
}

typedef struct cancelling {
    int count;
    cadence_cancellable other;  /* the subscription to cancel; {0} to cancel the tick's own */
    int result;
} cancelling;

static void cancel_from_callback(const cadence_tick *tick, void *userdata) {
    cancelling *c = userdata;
    c->count++;
    c->result = cadence_cancel(c->other.id ? c->other : tick->source);
}

/* A callback may cancel its own subscription (tick->source) or another one; the cancel sticks. */
static void cancel_in_callbacks(cadence_loop loop) {
    recorder victim = {.loop = loop};
    cancelling self = {0}, killer = {0};
    cadence_publisher timer;
    cadence_cancellable sub_self, sub_killer, sub_victim, connection;
    CHECK_OK(cadence_timer_publish(loop, 0.05, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, cancel_from_callback, &self, &sub_self));
    CHECK_OK(cadence_publisher_subscribe(timer, cancel_from_callback, &killer, &sub_killer));
    CHECK_OK(cadence_publisher_subscribe(timer, record_tick, &victim, &sub_victim));
    killer.other = sub_victim;
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    CHECK_OK(cadence_loop_run(loop, "default", 0.2));

    CHECK_EQ(self.count, 1);                   /* it cancelled itself on its first tick */
    CHECK_OK(self.result);
    CHECK_ERR(cadence_cancel(sub_self), CADENCE_EALREADY);
    CHECK_EQ(victim.count, 0);                 /* cancelled before its turn in the first tick */
    CHECK(killer.count >= 3);                  /* and the killer kept going */
    CHECK_ERR(killer.result, CADENCE_EALREADY); /* cancelling the victim again */

    CHECK_OK(cadence_cancel(connection));
    cadence_cancellable handles[] = {sub_self, sub_killer, sub_victim, connection};
    for (int i = 0; i < 4; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
    CHECK_OK(cadence_publisher_release(timer));
}

/* A publisher released before it was ever connected can never tick: its subscriptions read as
 * cancelled. Released once connected, it goes on. */
static void release_before_connect(cadence_loop loop) {
    recorder never = {.loop = loop}, kept = {.loop = loop};
    cadence_publisher unconnected, connected;
    cadence_cancellable sub_never, sub_kept, connection;
    CHECK_OK(cadence_timer_publish(loop, 0.05, 0, "default", &unconnected));
    CHECK_OK(cadence_publisher_subscribe(unconnected, record_tick, &never, &sub_never));
    CHECK_OK(cadence_timer_publish(loop, 0.05, 0, "default", &connected));
    CHECK_OK(cadence_publisher_subscribe(connected, record_tick, &kept, &sub_kept));
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
    CHECK(kept.count >= 1);
    CHECK_OK(cadence_cancel(connection));
    cadence_cancellable handles[] = {sub_never, sub_kept, connection};
    for (int i = 0; i < 3; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    connect_twice(loop);
    cancel_one_subscription(loop);
    cancel_in_callbacks(loop);
    release_before_connect(loop);
    CHECK_OK(cadence_loop_destroy(loop));
    return 0;
}
