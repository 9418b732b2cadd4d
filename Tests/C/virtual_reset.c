/* cadence_timer_reset and the scheduled-timer getters (cadence_timer_fire_date, _interval,
 * _tolerance) in virtual time: a debounce reset 1,000 times fires once, 0.2 s after the last
 * reset; a repeating timer starts a new grid at its reset; the getters tell the schedule until
 * the timer ends (a fire for a one-shot, a cancel), then give CADENCE_EALREADY; bad calls are
 * refused and change nothing. */
#include "timeline.h"

static double fire_date(cadence_cancellable timer) {
    double out = -1;
    CHECK_OK(cadence_timer_fire_date(timer, &out));
    return out;
}

static void debounce(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline t = {.loop = loop};
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule(loop, 0.2, 0, "default", timeline_tick, &t, &timer));
    for (int i = 0; i < 1000; i++) {
        CHECK_OK(cadence_loop_run(loop, "default", 0.001));
        CHECK_OK(cadence_timer_reset(timer, 0.2));
    }
    CHECK_EQ(to_ms(timeline_now(loop)), 1000);
    CHECK_EQ(to_ms(fire_date(timer)), 1200);
    CHECK_OK(cadence_loop_run(loop, "default", 0.199));
    CHECK_EQ(t.count, 0);
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_TIMELINE(t, "0@1200");
    CHECK_EQ(t.ran_at[0], 1200);
    CHECK_ERR(cadence_timer_reset(timer, 0.2), CADENCE_EALREADY);  /* it has fired */
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_OK(cadence_loop_close(loop));
}

static void repeating_new_grid(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline t = {.loop = loop};
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "default", timeline_tick,
                                             &t, &timer));
    CHECK_OK(cadence_loop_run(loop, "default", 1.5));
    CHECK_OK(cadence_timer_reset(timer, 0.25));
    CHECK_EQ(to_ms(fire_date(timer)), 1750);
    CHECK_OK(cadence_loop_run(loop, "default", 2.5));
    CHECK_TIMELINE(t, "0@1000", "1@1750", "2@2750", "3@3750");
    CHECK_OK(cadence_cancel(timer));
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_OK(cadence_loop_close(loop));
}

/* The getters of a one-shot, in its own callback (it has ended) and after it fired. */
typedef struct inside {
    cadence_cancellable timer;
    int called;
    int fire_date_err, reset_err;
} inside;

static void look_inside(const cadence_tick *tick, void *userdata) {
    inside *in = userdata;
    double out;
    in->called++;
    in->fire_date_err = cadence_timer_fire_date(tick->source, &out);
    in->reset_err = cadence_timer_reset(tick->source, 1);
}

static void introspection(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    inside in = {0};
    double value;
    CHECK_OK(cadence_loop_schedule(loop, 1.5, 0.25, "default", look_inside, &in, &in.timer));
    CHECK_EQ(to_ms(fire_date(in.timer)), 1500);
    CHECK_OK(cadence_timer_interval(in.timer, &value));
    CHECK(value == 0);
    CHECK_OK(cadence_timer_tolerance(in.timer, &value));
    CHECK(value == 0.25);
    CHECK_OK(cadence_loop_run(loop, "default", 0.5));
    CHECK_OK(cadence_timer_reset(in.timer, 2));
    CHECK_EQ(to_ms(fire_date(in.timer)), 2500);
    CHECK_OK(cadence_timer_tolerance(in.timer, &value));
    CHECK(value == 0.25);                      /* a reset keeps the tolerance */
    CHECK_OK(cadence_loop_run(loop, "default", 3));
    CHECK_EQ(in.called, 1);
    CHECK_EQ(in.fire_date_err, CADENCE_EALREADY);
    CHECK_EQ(in.reset_err, CADENCE_EALREADY);
    value = -7;
    CHECK_ERR(cadence_timer_fire_date(in.timer, &value), CADENCE_EALREADY);
    CHECK_ERR(cadence_timer_interval(in.timer, &value), CADENCE_EALREADY);
    CHECK_ERR(cadence_timer_tolerance(in.timer, &value), CADENCE_EALREADY);
    CHECK(value == -7);                        /* out is written only on success */
    int cancelled = 0;
    CHECK_OK(cadence_is_cancelled(in.timer, &cancelled));
    CHECK_EQ(cancelled, 1);                    /* no longer valid */
    CHECK_OK(cadence_cancellable_release(in.timer));

    /* A repeating timer: the next grid point, also after a late fire; nothing after cancel. */
    timeline t = {.loop = loop};
    cadence_cancellable timer;
    double start = timeline_now(loop);
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.5, 0.25, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             timeline_tick, &t, &timer));
    CHECK_EQ(to_ms(fire_date(timer) - start), 500);
    CHECK_OK(cadence_timer_interval(timer, &value));
    CHECK(value == 0.25);
    CHECK_OK(cadence_timer_tolerance(timer, &value));
    CHECK(value == 0);
    CHECK_OK(cadence_loop_run(loop, "default", 0.75));
    CHECK_EQ(to_ms(fire_date(timer) - start), 1000);
    CHECK_OK(cadence_loop_jump_clock(loop, 0.6));
    CHECK_EQ(to_ms(fire_date(timer) - start), 1000);   /* late: still on its grid */
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_EQ(to_ms(fire_date(timer) - start), 1500);
    CHECK_OK(cadence_cancel(timer));
    CHECK_ERR(cadence_timer_fire_date(timer, &value), CADENCE_EALREADY);
    CHECK_ERR(cadence_timer_reset(timer, 1), CADENCE_EALREADY);
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_OK(cadence_loop_close(loop));
}

static void noop(const cadence_tick *tick, void *userdata) {
    (void)tick;
    (void)userdata;
}

static void bad_calls(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    cadence_cancellable timer, subscription;
    cadence_publisher publisher;
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", noop, NULL, &timer));
    const double bad[] = {-1, -1e-9, NAN, INFINITY, -INFINITY};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++)
        CHECK_ERR(cadence_timer_reset(timer, bad[i]), CADENCE_EINVAL);
    CHECK_EQ(to_ms(fire_date(timer)), 1000);   /* left as it was */
    CHECK_ERR(cadence_timer_fire_date(timer, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_timer_interval(timer, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_timer_tolerance(timer, NULL), CADENCE_EINVAL);
    /* Other cancellables are not scheduled timers. */
    double value;
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &publisher));
    CHECK_OK(cadence_publisher_subscribe(publisher, noop, NULL, &subscription));
    CHECK_ERR(cadence_timer_reset(subscription, 1), CADENCE_ENOTSUP);
    CHECK_ERR(cadence_timer_fire_date(subscription, &value), CADENCE_ENOTSUP);
    CHECK_ERR(cadence_timer_interval(subscription, &value), CADENCE_ENOTSUP);
    CHECK_ERR(cadence_timer_tolerance(subscription, &value), CADENCE_ENOTSUP);
    CHECK_ERR(cadence_timer_reset((cadence_cancellable){0}, 1), CADENCE_EBADF);
    CHECK_ERR(cadence_timer_fire_date((cadence_cancellable){publisher.id}, &value), CADENCE_EBADF);
    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_publisher_release(publisher));
    /* Released, or its loop destroyed: a stale handle. */
    cadence_cancellable kept;
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", noop, NULL, &kept));
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_ERR(cadence_timer_reset(timer, 1), CADENCE_EBADF);
    CHECK_ERR(cadence_timer_fire_date(timer, &value), CADENCE_EBADF);
    CHECK_OK(cadence_loop_close(loop));
    CHECK_ERR(cadence_timer_reset(kept, 1), CADENCE_EBADF);
    CHECK_ERR(cadence_timer_interval(kept, &value), CADENCE_EBADF);
}

int main(void) {
    debounce();
    repeating_new_grid();
    introspection();
    bad_calls();
    return 0;
}
