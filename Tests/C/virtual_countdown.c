/* What a countdown is in C (its timelines are scenarios of the corpus,
 * Tests/Scenarios/countdown.jsonl): each call's event carries the countdown's handle and the
 * loop's clock as its date, the finished call comes once, last, with 0; cadence_countdown_start
 * never calls back before it returns; a cancel answers CADENCE_EALREADY once the countdown is
 * over, whether it finished or was cancelled; bad numbers call nothing and write nothing. */
#include "timeline.h"

typedef struct countdown_calls {
    cadence_loop loop;
    cadence_cancellable source;  /* the handle every event must carry */
    int values, finishes;
    int64_t last_remaining;      /* the remaining of the call before the finish */
} countdown_calls;

/* A cadence_countdown_fn; userdata is a countdown_calls. */
static void count_calls(const cadence_countdown_event *event, void *userdata) {
    countdown_calls *c = userdata;
    CHECK_EQ(event->source.id, c->source.id);
    CHECK(event->date == timeline_now(c->loop));
    CHECK_EQ(c->finishes, 0);                /* nothing after the finish */
    if (event->finished) {
        CHECK_EQ(event->remaining, 0);
        c->finishes++;
    } else {
        c->last_remaining = event->remaining;
        c->values++;
    }
}

/* Runs to its end: every call checked by count_calls, then the handle reads as cancelled. */
static void finished_countdown(cadence_loop loop) {
    countdown_calls calls = {.loop = loop, .last_remaining = -1};
    CHECK_OK(cadence_countdown_start(loop, timeline_now(loop) + 3, 0.25, count_calls, &calls, &calls.source));
    CHECK_EQ(calls.values + calls.finishes, 0);  /* nothing from inside the start */
    CHECK_OK(cadence_loop_run(loop, "default", 5));
    CHECK_EQ(calls.finishes, 1);
    CHECK_EQ(calls.last_remaining, 0);
    CHECK(calls.values >= 2);
    int cancelled = 0;
    CHECK_OK(cadence_is_cancelled(calls.source, &cancelled));
    CHECK_EQ(cancelled, 1);                  /* a finished countdown is over, as a fired one-shot */
    CHECK_ERR(cadence_cancel(calls.source), CADENCE_EALREADY);
    CHECK_OK(cadence_cancellable_release(calls.source));
}

/* The first cancel stops it, the second finds it over. */
static void cancelled_countdown(cadence_loop loop) {
    countdown_calls calls = {.loop = loop};
    CHECK_OK(cadence_countdown_start(loop, timeline_now(loop) + 3, 0.25, count_calls, &calls, &calls.source));
    CHECK_OK(cadence_loop_run(loop, "default", 1.1));
    CHECK_OK(cadence_cancel(calls.source));
    CHECK_ERR(cadence_cancel(calls.source), CADENCE_EALREADY);
    int cancelled = 0;
    CHECK_OK(cadence_is_cancelled(calls.source, &cancelled));
    CHECK_EQ(cancelled, 1);
    int heard = calls.values;
    CHECK_OK(cadence_loop_run(loop, "default", 3));
    CHECK_EQ(calls.values, heard);
    CHECK_EQ(calls.finishes, 0);             /* a cancelled countdown never finishes */
    CHECK_OK(cadence_cancellable_release(calls.source));
}

/* Bad ticks and deadlines: CADENCE_EINVAL, nothing written, never a call. */
static void bad_numbers(cadence_loop loop) {
    countdown_calls never = {.loop = loop};
    cadence_cancellable out = {0x5e5e};
    double now = timeline_now(loop);
    const double bad_ticks[] = {0, -0.0, -0.25, NAN, INFINITY, -INFINITY};
    const double bad_deadlines[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < (int)(sizeof bad_ticks / sizeof *bad_ticks); i++) {
        CHECK_ERR(cadence_countdown_start(loop, now + 3, bad_ticks[i], count_calls, &never, &out), CADENCE_EINVAL);
        CHECK_ERR(cadence_countdown_start(loop, now - 3, bad_ticks[i], count_calls, &never, &out), CADENCE_EINVAL);
    }
    for (int i = 0; i < (int)(sizeof bad_deadlines / sizeof *bad_deadlines); i++)
        CHECK_ERR(cadence_countdown_start(loop, bad_deadlines[i], 0.25, count_calls, &never, &out), CADENCE_EINVAL);
    CHECK_EQ(out.id, 0x5e5e);
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_run(loop, "default", 5));
    CHECK_EQ(never.values + never.finishes, 0);
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    finished_countdown(loop);
    cancelled_countdown(loop);
    bad_numbers(loop);
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
