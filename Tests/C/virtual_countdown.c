/* Seed article, the countdown: a 3 s countdown with 0.25 s ticks on a virtual loop gives
 * 3@0, 2@1000, 1@2000, 0@3000, |@3000 whatever jumps the clock makes; cadence_countdown_start
 * never calls back before it returns: the first value (for a past deadline, the end) comes on the
 * loop's next pass, at the same virtual time; cancelling removes its timers; bad numbers call nothing; the
 * timers are in the "common" mode. */
#include "timeline.h"

/* A cadence_countdown_fn; userdata is a timeline. Records "remaining@date" or "|@date". */
static void record_countdown(const cadence_countdown_event *event, void *userdata) {
    timeline *t = userdata;
    char label[24];
    if (event->finished) snprintf(label, sizeof label, "|");
    else snprintf(label, sizeof label, "%lld", (long long)event->remaining);
    CHECK(event->date == timeline_now(t->loop));
    timeline_add(t, label, event->date, 0);
}

static void seed_countdown(cadence_loop loop) {
    timeline events = {.loop = loop};
    cadence_cancellable countdown;
    CHECK_OK(cadence_countdown_start(loop, timeline_now(loop) + 3, 0.25, record_countdown, &events, &countdown));
    CHECK_EQ(events.count, 0);                 /* nothing from inside the start */
    CHECK(armed_timers(loop) >= 1);
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_TIMELINE(events, "3@0");             /* the first value on the next pass */
    CHECK_OK(cadence_loop_run(loop, "default", 1.2));
    CHECK_OK(cadence_loop_run(loop, "default", 1.5));  /* a long jump stands in for a blocked thread */
    CHECK_OK(cadence_loop_run(loop, "default", 2));
    CHECK_TIMELINE(events, "3@0", "2@1000", "1@2000", "0@3000", "|@3000");
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_cancellable_release(countdown));
}

/* A past deadline calls back with 0 and finished on the next pass, at the same time, and then
 * nothing is armed. */
static void past_deadline(cadence_loop loop) {
    timeline events = {.loop = loop};
    cadence_cancellable countdown;
    double now = timeline_now(loop);
    CHECK_OK(cadence_countdown_start(loop, now - 1, 0.25, record_countdown, &events, &countdown));
    CHECK_EQ(events.count, 0);  /* nothing from inside the start */
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_EQ(events.count, 2);
    CHECK_STR(events.events[0], "0@4700");
    CHECK_STR(events.events[1], "|@4700");
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_EQ(events.count, 2);
    CHECK_OK(cadence_cancellable_release(countdown));
}

/* Cancelling midway removes both timers; no more calls come. */
static void cancel_midway(cadence_loop loop) {
    timeline events = {.loop = loop};
    cadence_cancellable countdown;
    CHECK_OK(cadence_countdown_start(loop, timeline_now(loop) + 3, 0.25, record_countdown, &events, &countdown));
    CHECK_OK(cadence_loop_run(loop, "default", 1.1));
    CHECK_TIMELINE(events, "3@5700", "2@6700");
    CHECK_OK(cadence_cancel(countdown));
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_run(loop, "default", 3));
    CHECK_EQ(events.count, 2);
    CHECK_ERR(cadence_cancel(countdown), CADENCE_EALREADY);
    CHECK_OK(cadence_cancellable_release(countdown));
}

/* Bad ticks and deadlines: CADENCE_EINVAL, nothing written, never a call. */
static void bad_numbers(cadence_loop loop) {
    timeline never = {.loop = loop};
    cadence_cancellable out = {0x5e5e};
    double now = timeline_now(loop);
    const double bad_ticks[] = {0, -0.0, -0.25, NAN, INFINITY, -INFINITY};
    const double bad_deadlines[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < (int)(sizeof bad_ticks / sizeof *bad_ticks); i++) {
        CHECK_ERR(cadence_countdown_start(loop, now + 3, bad_ticks[i], record_countdown, &never, &out), CADENCE_EINVAL);
        CHECK_ERR(cadence_countdown_start(loop, now - 3, bad_ticks[i], record_countdown, &never, &out), CADENCE_EINVAL);
    }
    for (int i = 0; i < (int)(sizeof bad_deadlines / sizeof *bad_deadlines); i++)
        CHECK_ERR(cadence_countdown_start(loop, bad_deadlines[i], 0.25, record_countdown, &never, &out), CADENCE_EINVAL);
    CHECK_EQ(out.id, 0x5e5e);
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_run(loop, "default", 5));
    CHECK_EQ(never.count, 0);
}

/* The timers are in "common": a mode that is not common holds them back, and the first tick
 * after the gap gives the right value at once. */
static void in_modes(cadence_loop loop) {
    timeline events = {.loop = loop};
    cadence_cancellable countdown;
    CHECK_OK(cadence_loop_add_mode(loop, "modal"));
    CHECK_OK(cadence_countdown_start(loop, timeline_now(loop) + 3, 0.25, record_countdown, &events, &countdown));
    CHECK_OK(cadence_loop_run(loop, "modal", 2));
    CHECK_EQ(events.count, 0);  /* even the first value waits for a common mode */
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_TIMELINE(events, "1@16800");
    CHECK_OK(cadence_loop_run(loop, "default", 2));
    CHECK_TIMELINE(events, "1@16800", "0@17800", "|@17800");
    CHECK_OK(cadence_cancellable_release(countdown));
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    seed_countdown(loop);                      /* ends at 4.7 s */
    past_deadline(loop);                       /* ends at 5.7 s */
    cancel_midway(loop);
    bad_numbers(loop);                         /* ends at 14.8 s */
    in_modes(loop);
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
