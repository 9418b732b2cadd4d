/* cadence_cancel and cadence_cancellable_release on countdown and poller handles, on a virtual
 * loop: either one removes the timers and no callback comes after; cancelling twice gives
 * CADENCE_EALREADY; a callback may cancel its own countdown or poller (event->source, poll->source). */
#include "timeline.h"

typedef struct calls {
    timeline t;
    int cancel_on;            /* cancel event->source / poll->source on this call (1-based), or 0 */
    int cancel_result;
    cadence_cancellable seen; /* the source of the last call */
} calls;

static void on_countdown(const cadence_countdown_event *event, void *userdata) {
    calls *c = userdata;
    char label[24];
    snprintf(label, sizeof label, "%lld", (long long)event->remaining);
    timeline_add(&c->t, event->finished ? "|" : label, event->date, 0);
    c->seen = event->source;
    if (c->t.count == c->cancel_on) c->cancel_result = cadence_cancel(event->source);
}

static void on_poll(const cadence_poll *poll, void *userdata) {
    calls *c = userdata;
    timeline_add(&c->t, "p", poll->date, 0);
    c->seen = poll->source;
    if (c->t.count == c->cancel_on) c->cancel_result = cadence_cancel(poll->source);
    else CHECK_OK(cadence_poller_finish(poll->source, poll->number));
}

static int is_cancelled(cadence_cancellable cancellable) {
    int cancelled = -1;
    CHECK_OK(cadence_is_cancelled(cancellable, &cancelled));
    return cancelled;
}

static void countdowns(cadence_loop loop) {
    calls cancelled = {.t = {.loop = loop}}, released = {.t = {.loop = loop}};
    calls own_tick = {.t = {.loop = loop}, .cancel_on = 2, .cancel_result = 1};
    cadence_cancellable a, b, c;
    double deadline = timeline_now(loop) + 10;
    CHECK_OK(cadence_countdown_start(loop, deadline, 1, on_countdown, &cancelled, &a));
    uint64_t each = armed_timers(loop);        /* the timers of one countdown */
    CHECK(each >= 1);
    CHECK_OK(cadence_countdown_start(loop, deadline, 1, on_countdown, &released, &b));
    CHECK_OK(cadence_countdown_start(loop, deadline, 1, on_countdown, &own_tick, &c));
    CHECK_EQ(armed_timers(loop), 3 * each);
    CHECK_EQ(is_cancelled(a), 0);

    CHECK_OK(cadence_cancel(a));
    CHECK_EQ(is_cancelled(a), 1);
    CHECK_ERR(cadence_cancel(a), CADENCE_EALREADY);
    CHECK_OK(cadence_cancellable_release(b));  /* releasing cancels */
    CHECK_EQ(armed_timers(loop), each);        /* c's */
    CHECK_OK(cadence_loop_run(loop, "default", 20));
    CHECK_EQ(cancelled.t.count, 0);  /* cancelled before the pass that brings the first value */
    CHECK_EQ(released.t.count, 0);
    CHECK_TIMELINE(own_tick.t, "10@0", "9@1000");  /* cancelled itself on its first tick */
    CHECK_OK(own_tick.cancel_result);
    CHECK_EQ(own_tick.seen.id, c.id);
    CHECK_EQ(armed_timers(loop), 0);

    CHECK_OK(cadence_cancellable_release(a));
    CHECK_OK(cadence_cancellable_release(c));
    CHECK_ERR(cadence_cancellable_release(b), CADENCE_EBADF);
    CHECK_ERR(cadence_cancel(b), CADENCE_EBADF);
}

static void pollers(cadence_loop loop) {
    calls cancelled = {.t = {.loop = loop}}, released = {.t = {.loop = loop}};
    calls own = {.t = {.loop = loop}, .cancel_on = 2, .cancel_result = 1};
    cadence_cancellable a, b, c;
    CHECK_OK(cadence_poller_start(loop, 30, 0, on_poll, &cancelled, &a));
    CHECK_OK(cadence_poller_start(loop, 30, 0, on_poll, &released, &b));
    CHECK_OK(cadence_poller_start(loop, 10, 0, on_poll, &own, &c));
    CHECK_EQ(armed_timers(loop), 3);
    CHECK_OK(cadence_loop_run(loop, "default", 30));  /* 20 s to 50 s */
    CHECK_TIMELINE(cancelled.t, "p@50000");
    CHECK_TIMELINE(released.t, "p@50000");
    CHECK_TIMELINE(own.t, "p@30000", "p@40000");     /* cancelled itself in its second poll */
    CHECK_OK(own.cancel_result);
    CHECK_EQ(own.seen.id, c.id);
    CHECK_EQ(is_cancelled(c), 1);
    /* That poll is still running: finishing it is allowed once. */
    CHECK_OK(cadence_poller_finish(c, 2));
    CHECK_ERR(cadence_poller_finish(c, 2), CADENCE_EALREADY);

    CHECK_OK(cadence_cancel(a));
    CHECK_ERR(cadence_cancel(a), CADENCE_EALREADY);
    CHECK_EQ(is_cancelled(a), 1);
    CHECK_ERR(cadence_poller_set_active(a, 1), CADENCE_EALREADY);
    CHECK_ERR(cadence_poller_set_active(a, 0), CADENCE_EALREADY);
    int active = -1;
    CHECK_OK(cadence_poller_active(a, &active));         /* a cancelled poller never polls */
    CHECK_EQ(active, 0);
    double tolerance = -5;
    CHECK_OK(cadence_poller_tolerance(a, &tolerance));  /* still readable */
    CHECK(tolerance == 0);
    CHECK_OK(cadence_cancellable_release(b));
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_run(loop, "default", 100));
    CHECK_EQ(cancelled.t.count, 1);
    CHECK_EQ(released.t.count, 1);
    CHECK_EQ(own.t.count, 2);

    CHECK_OK(cadence_cancellable_release(a));
    CHECK_OK(cadence_cancellable_release(c));
    CHECK_ERR(cadence_poller_set_active(b, 1), CADENCE_EBADF);
}

/* The first value comes on the loop's next pass, never from inside cadence_countdown_start; its
 * source is the countdown, so cancelling it there sticks, for a future and for a past deadline. */
static void cancelled_from_first_call(cadence_loop loop) {
    double now = timeline_now(loop);
    const double deadlines[] = {now + 10, now - 10};
    for (int i = 0; i < 2; i++) {
        calls first = {.t = {.loop = loop}, .cancel_on = 1, .cancel_result = 1};
        cadence_cancellable countdown;
        CHECK_OK(cadence_countdown_start(loop, deadlines[i], 1, on_countdown, &first, &countdown));
        CHECK_EQ(first.t.count, 0);
        CHECK_OK(cadence_loop_run(loop, "default", 0));
        CHECK_EQ(first.t.count, 1);
        CHECK_EQ(first.seen.id, countdown.id);  /* the source is the handle start returns */
        CHECK_OK(first.cancel_result);
        CHECK_EQ(is_cancelled(countdown), 1);
        CHECK_EQ(armed_timers(loop), 0);
        CHECK_OK(cadence_loop_run(loop, "default", 20));
        CHECK_EQ(first.t.count, 1);             /* no 0, no finish */
        CHECK_OK(cadence_cancellable_release(countdown));
    }
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    countdowns(loop);
    pollers(loop);
    cancelled_from_first_call(loop);
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
