/* A released handle never names a later timer, however often its slot is reused: a timer slot
 * holds at most 16,777,215 timers in turn and is then retired. cadence_loop_age_timer_slots takes
 * a slot to its last generation without 16 million schedules; the old handle then gives
 * CADENCE_EBADF to every call, and the timer that came after it is untouched. Also across loops:
 * a destroyed loop's handles never name the timers of the loop made after it. */
#include "recorder.h"

/* Makes a slot's last timers come and go: with retirement, they end it; without, they would bring
 * its generation round to the old handle's (2^24 + 1 has the bits of 1). */
#define LAST_GENERATION_REUSES (16777216u - 3u)

static void schedule(cadence_loop loop, double delay, recorder *r, cadence_cancellable *out) {
    CHECK_OK(cadence_loop_schedule(loop, delay, 0, "default", record_tick, r, out));
}

static void cancel_and_release(cadence_cancellable timer) {
    CHECK_OK(cadence_cancel(timer));
    CHECK_OK(cadence_cancellable_release(timer));
}

/* Every call with a stale scheduled timer's handle: CADENCE_EBADF. */
static void check_stale(cadence_cancellable old) {
    int flag;
    double value;
    CHECK_ERR(cadence_cancel(old), CADENCE_EBADF);
    CHECK_ERR(cadence_is_cancelled(old, &flag), CADENCE_EBADF);
    CHECK_ERR(cadence_timer_reset(old, 5), CADENCE_EBADF);
    CHECK_ERR(cadence_timer_fire_date(old, &value), CADENCE_EBADF);
    CHECK_ERR(cadence_timer_unref(old), CADENCE_EBADF);
    CHECK_ERR(cadence_timer_has_ref(old, &flag), CADENCE_EBADF);
    CHECK_ERR(cadence_cancellable_detach(old), CADENCE_EBADF);
    CHECK_ERR(cadence_cancellable_release(old), CADENCE_EBADF);
}

/* The live timer `new` is still armed, due at 2 s on the virtual clock, and fires there once. */
static void check_untouched(cadence_loop loop, cadence_cancellable new, recorder *fired) {
    int cancelled = -1;
    double fire_date = 0;
    uint64_t armed = 0;
    CHECK_OK(cadence_is_cancelled(new, &cancelled));
    CHECK_EQ(cancelled, 0);
    CHECK_OK(cadence_timer_fire_date(new, &fire_date));
    CHECK_RANGE(fire_date, 2 - 1e-9, 2 + 1e-9);
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 1);
    CHECK_OK(cadence_loop_run(loop, "default", 3));
    CHECK_EQ(fired->count, 1);
    CHECK_RANGE(fired->dates[0], 2 - 1e-9, 2 + 1e-9);
    CHECK_OK(cadence_cancellable_release(new));
}

/* On `loop`, whose slot 0 is at its last generation: two timers come and go (the slot's last,
 * then one in the next slot), then a live one; `old`, a stale handle of slot 0, acts on nothing. */
static void check_after_the_last(cadence_loop loop, cadence_cancellable old) {
    recorder never = {.loop = loop}, fired = {.loop = loop};
    cadence_cancellable churn, new;
    for (int i = 0; i < 2; i++) {
        schedule(loop, 1, &never, &churn);
        cancel_and_release(churn);
    }
    schedule(loop, 2, &fired, &new);
    CHECK(new.id != old.id);
    check_stale(old);
    check_untouched(loop, new, &fired);
    CHECK_EQ(never.count, 0);
}

/* A virtual loop whose slot 0 held one timer, `old` (cancelled and released: a stale handle),
 * and was then aged to its last generation. */
static cadence_loop aged_loop(cadence_cancellable *old) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    recorder never = {.loop = loop};
    schedule(loop, 1, &never, old);
    cancel_and_release(*old);
    CHECK_OK(cadence_loop_age_timer_slots(loop, LAST_GENERATION_REUSES));
    CHECK_EQ(never.count, 0);
    return loop;
}

static void one_loop(void) {
    cadence_cancellable old;
    cadence_loop loop = aged_loop(&old);
    check_after_the_last(loop, old);
    CHECK_OK(cadence_loop_close(loop));
}

static void across_loops(void) {
    cadence_cancellable old;
    cadence_loop second;
    CHECK_OK(cadence_loop_close(aged_loop(&old)));
    CHECK_OK(cadence_loop_create_virtual(&second));  /* takes the destroyed loop's place */
    check_after_the_last(second, old);  /* its slot 0 goes on from the destroyed loop's */
    CHECK_OK(cadence_loop_close(second));
}

/* Ageing refuses a loop with a timer armed or a handle unreleased, and a dead loop. */
static void ageing_errors(void) {
    cadence_loop loop;
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    recorder never = {.loop = loop};
    schedule(loop, 1, &never, &timer);
    CHECK_ERR(cadence_loop_age_timer_slots(loop, 1), CADENCE_EBUSY);
    CHECK_OK(cadence_cancel(timer));
    CHECK_ERR(cadence_loop_age_timer_slots(loop, 1), CADENCE_EBUSY);  /* the handle holds its slot */
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_OK(cadence_loop_age_timer_slots(loop, 1));
    CHECK_OK(cadence_loop_close(loop));
    CHECK_ERR(cadence_loop_age_timer_slots(loop, 1), CADENCE_EBADF);
    CHECK_EQ(never.count, 0);
}

int main(void) {
    one_loop();
    across_loops();
    ageing_errors();
    return 0;
}
