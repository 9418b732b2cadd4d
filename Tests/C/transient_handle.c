/* cadence_loop_schedule_transient: a one-shot whose handle ends with it. Its fire (batched or
 * one call per fire), the cancel that stops it and cadence_loop_close release the handle; from
 * then on every call with it returns CADENCE_EBADF ("ended"), also after its slot holds another
 * timer; before then it is a one-shot like the others (read, reset, cancel, released early: left
 * armed). No userdata is released twice or lost: each ends once, by its fire, its stolen key, or
 * the release function. Bad input: tolerance, fire date, out, no fire function. Dates are
 * absolute on the loop's monotonic clock: exact at whole nanoseconds, in their order whatever the
 * order of arming, and a date that has passed fires in the next pass. */
#include "check.h"

static int fired[8], released[8];

static void on_fire(void *userdata, double fire_date, uint64_t skipped, int final) {
    (void)fire_date, (void)skipped;
    CHECK_EQ(final, 1);
    fired[(intptr_t)userdata]++;
}

static void on_release(void *userdata) { released[(intptr_t)userdata]++; }

static void on_batch(cadence_fire_record *records, size_t count, size_t *started) {
    for (size_t i = 0; i < count; i++) {
        *started = i + 1;
        if (records[i].source.id) fired[(intptr_t)records[i].userdata]++;
    }
}

static void run(int batched) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    cadence_cancellable h[8];
    CHECK_ERR(cadence_loop_schedule_transient(loop, 1.0, 0, (void *)1, &h[1]), CADENCE_EINVAL);  /* no fire fn */
    CHECK_OK(cadence_loop_set_callbacks(loop, on_fire, on_release));
    if (batched) CHECK_OK(cadence_loop_set_fire_batch(loop, on_batch));
    CHECK_ERR(cadence_loop_schedule_transient(loop, 1.0, -1.0, (void *)1, &h[1]), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_transient(loop, 1.0, 0.0 / 0.0, (void *)1, &h[1]), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_transient(loop, 1.0 / 0.0, 0, (void *)1, &h[1]), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_transient(loop, 0.0 / 0.0, 0, (void *)1, &h[1]), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_transient(loop, 1.0, 0, (void *)1, NULL), CADENCE_EINVAL);

    for (intptr_t k = 1; k <= 5; k++) CHECK_OK(cadence_loop_schedule_transient(loop, 1.0, 0.5, (void *)k, &h[k]));
    double value = 0;
    CHECK_OK(cadence_timer_tolerance(h[1], &value));
    CHECK(value == 0.5);
    CHECK_OK(cadence_timer_reset(h[2], 2.0));                 /* a one-shot like the others */
    CHECK_OK(cadence_cancellable_detach(h[3]));               /* changes nothing */
    CHECK_EQ(cadence_cancel_steal(h[4]), 4);                  /* stopped: the handle ends too */
    CHECK_ERR(cadence_cancel(h[4]), CADENCE_EBADF);
    CHECK_ERR(cadence_cancellable_release(h[4]), CADENCE_EBADF);
    CHECK_OK(cadence_cancellable_release(h[5]));              /* given up early: still fires */
    uint64_t armed = 0;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 4);

    CHECK_OK(cadence_loop_run(loop, "default", 1.6));         /* 1, 3 and 5 fire */
    CHECK_EQ(fired[1], 1);
    CHECK_EQ(fired[3], 1);
    CHECK_EQ(fired[5], 1);
    int out = -1;
    CHECK_ERR(cadence_is_cancelled(h[1], &out), CADENCE_EBADF);  /* fired: the handle ended */
    CHECK_ERR(cadence_cancel_steal(h[1]), CADENCE_EBADF);
    CHECK_ERR(cadence_timer_fire_date(h[3], &value), CADENCE_EBADF);
    CHECK_ERR(cadence_cancellable_release(h[3]), CADENCE_EBADF);
    CHECK_OK(cadence_is_cancelled(h[2], &out));
    CHECK_EQ(out, 0);

    /* A new timer takes a freed slot: the ended handles never name it. */
    cadence_cancellable again;
    CHECK_OK(cadence_loop_schedule_transient(loop, 5.0, 0, (void *)6, &again));
    for (int k = 1; k <= 5; k++) {
        if (k == 2) continue;
        CHECK_ERR(cadence_cancel(h[k]), CADENCE_EBADF);
    }
    CHECK_OK(cadence_loop_close(loop));                    /* 2 and 6 end with the loop */
    CHECK_EQ(released[2], 1);
    CHECK_EQ(released[6], 1);
    CHECK_ERR(cadence_cancel(h[2]), CADENCE_EBADF);
    for (int k = 1; k <= 6; k++) CHECK_EQ(fired[k] + released[k] + (k == 4), 1);  /* each ends once */
    for (int k = 0; k < 8; k++) fired[k] = released[k] = 0;
}

static int order[8], orders;
static double dates[8];
static void on_date(void *userdata, double fire_date, uint64_t skipped, int final) {
    (void)skipped, (void)final;
    dates[orders] = fire_date;
    order[orders++] = (int)(intptr_t)userdata;
}

static void absolute_dates(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, on_date, on_release));
    cadence_cancellable h;
    double value = 0;
    CHECK_OK(cadence_loop_schedule_transient(loop, 1.3, 0, (void *)1, &h));
    CHECK_OK(cadence_timer_fire_date(h, &value));
    CHECK(value == 1.3);                                     /* 1.3 exactly, not a nanosecond after */
    CHECK_OK(cadence_loop_schedule_transient(loop, 2.000000002, 0, (void *)2, &h));
    CHECK_OK(cadence_loop_schedule_transient(loop, 2.000000001, 0, (void *)3, &h));  /* armed after, due before */
    CHECK_OK(cadence_loop_run(loop, "default", 2.5));
    CHECK_EQ(orders, 3);
    CHECK_EQ(order[0], 1);
    CHECK_EQ(order[1], 3);
    CHECK_EQ(order[2], 2);
    CHECK(dates[0] == 1.3);
    CHECK_OK(cadence_loop_schedule_transient(loop, 1.0, 0, (void *)4, &h));          /* passed: due now */
    CHECK_OK(cadence_loop_schedule_transient(loop, -5.0, 0, (void *)5, &h));
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_EQ(orders, 5);
    CHECK_EQ(order[3], 5);                                   /* the two past dates, in date order: */
    CHECK_EQ(order[4], 4);                                   /* one before the clock's 0 is 0 */
    CHECK(dates[3] == 0.0);
    CHECK(dates[4] == 1.0);
    CHECK_OK(cadence_loop_close(loop));
}

int main(void) {
    absolute_dates();
    run(0);
    run(1);
    return 0;
}
