/* cadence_loop_set_fire_batch: a loop's one-shots of its fire function come in batches of at
 * most 256, in fire-date order, with their userdata, fire dates and handles, interleaved in that
 * order with the calls of anything else (a repeating timer of the fire function); the release
 * function is never called for them. A record's timer stays due until the batch function says
 * its call started (`*started`): from the call for an earlier record it reads as pending, its
 * cancel stops it (stealing its userdata) and its reset moves it, and either sets the record's
 * source to 0, which the batch function skips, as without a batch; a record already started
 * reads as fired. A cancel from another thread waits for the batch, and so does a change of the
 * batch from another thread. A timer outside the batch due in the same pass after it waits for the
 * batch as it was: a record's call cancels it (0, never called), resets it, or reads it pending at
 * its date. Bad input: no fire function, a call from the batch, a stale loop. NULL goes back to
 * one call per fire. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"

enum { ONE_SHOTS = 600 };

static struct {
    long order[ONE_SHOTS + 16];  /* userdata as called: one-shots 1..600, the repeating one -1 */
    double dates[ONE_SHOTS + 16];
    int calls, batches, largest, released;
    cadence_cancellable handles[ONE_SHOTS + 1];
    cadence_loop loop;
    int in_batch;  /* part 3: record 1's call cancels, resets and reads the others */
    int skipped;   /* records whose source was 0 */
} seen;

/* A virtual fire date for a delay: whole nanoseconds, rounded up. */
static int near(double date, double delay) { return date >= delay - 1e-12 && date - delay < 2e-9; }

static void on_fire(void *userdata, double fire_date, uint64_t skipped, int final) {
    CHECK_EQ(skipped, 0);
    CHECK_EQ(final, 0);  /* only the repeating timer comes here */
    seen.order[seen.calls] = (long)(intptr_t)userdata;
    seen.dates[seen.calls++] = fire_date;
}

static void on_release(void *userdata) {
    (void)userdata;
    seen.released++;
}

static void on_batch(cadence_fire_record *records, size_t count, size_t *started);

/* Part 3, from record 1's call: timers 2 and 3 are due and not yet called, 1 has fired. */
static void in_first_call(void) {
    int out = -1;
    double date = -1;
    uint64_t armed = 0;
    CHECK_OK(cadence_is_cancelled(seen.handles[1], &out));
    CHECK_EQ(out, 1);
    CHECK_ERR(cadence_timer_fire_date(seen.handles[1], &date), CADENCE_EALREADY);
    CHECK_ERR(cadence_cancel(seen.handles[1]), CADENCE_EALREADY);
    CHECK_ERR(cadence_timer_reset(seen.handles[1], 1.0), CADENCE_EALREADY);
    CHECK_OK(cadence_is_cancelled(seen.handles[2], &out));
    CHECK_EQ(out, 0);
    CHECK_OK(cadence_timer_fire_date(seen.handles[2], &date));
    CHECK(near(date, 0.7));  /* due at the clock of the pass */
    CHECK_OK(cadence_loop_armed_timers(seen.loop, &armed));
    CHECK_EQ(armed, 3);  /* 2, 3 and the repeating timer */
    CHECK_OK(cadence_timer_reset(seen.handles[2], 1.0));  /* moved: its record is skipped */
    CHECK_OK(cadence_timer_fire_date(seen.handles[2], &date));
    CHECK(near(date, 1.7));
    CHECK_EQ(cadence_cancel_steal(seen.handles[3]), 3);  /* stopped: its userdata comes back */
    CHECK_ERR(cadence_cancel(seen.handles[3]), CADENCE_EALREADY);
    CHECK_OK(cadence_loop_armed_timers(seen.loop, &armed));
    CHECK_EQ(armed, 2);
    CHECK_ERR_MSG(cadence_loop_set_fire_batch(seen.loop, on_batch), CADENCE_EINVAL,
                  "cadence_loop_set_fire_batch: batch must not change while one is delivered, got a call from its function");
}

static void on_batch(cadence_fire_record *records, size_t count, size_t *started) {
    CHECK(count >= 1 && count <= 256);
    CHECK_EQ(*started, 0);
    seen.batches++;
    if ((int)count > seen.largest) seen.largest = (int)count;
    for (size_t i = 0; i < count; i++) {
        *started = i + 1;
        if (records[i].source.id == 0) {
            seen.skipped++;
            continue;
        }
        long key = (long)(intptr_t)records[i].userdata;
        CHECK(key >= 1 && key <= ONE_SHOTS);
        CHECK_EQ(records[i].source.id, seen.handles[key].id);
        seen.order[seen.calls] = key;
        seen.dates[seen.calls++] = records[i].fire_date;
        if (seen.in_batch && key == 1) in_first_call();
    }
}

/* Parts 1-3, on a virtual loop: order, dates, batches, errors. */
static void virtual_batches(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    seen.loop = loop;
    CHECK_ERR_MSG(cadence_loop_set_fire_batch(loop, on_batch), CADENCE_EINVAL,
                  "cadence_loop_set_fire_batch: loop must have a fire function, got none (cadence_loop_set_callbacks first)");
    CHECK_OK(cadence_loop_set_callbacks(loop, on_fire, on_release));
    CHECK_OK(cadence_loop_set_fire_batch(loop, on_batch));

    /* 600 one-shots, the last scheduled due first, all in the first 0.6 s; a repeating timer of
     * the fire function due at 0.3005 s, whose fire splits the batches. */
    for (long k = 1; k <= ONE_SHOTS; k++) {
        CHECK_OK(schedule_default(loop, (ONE_SHOTS + 1 - k) * 0.001, (void *)(intptr_t)k,
                                               &seen.handles[k]));
    }
    cadence_cancellable repeating;
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.3005, 1.0, 0, CADENCE_MISSED_TICKS_SKIP, "default", NULL,
                                             (void *)(intptr_t)-1, &repeating));
    CHECK_OK(cadence_loop_jump_clock(loop, 0.7));  /* everything due: one pass fires it all */
    CHECK_OK(cadence_loop_run_pass(loop, "default"));
    CHECK_EQ(seen.calls, ONE_SHOTS + 1);  /* an overdue repeating timer fires once (skip) */
    CHECK_EQ(seen.released, 0);
    CHECK(seen.largest == 256);
    CHECK(seen.batches >= 3);
    for (int i = 1; i < seen.calls; i++) CHECK(seen.dates[i - 1] <= seen.dates[i]);
    int k = ONE_SHOTS;
    for (int i = 0; i < seen.calls; i++) {
        if (seen.order[i] == -1) {
            CHECK(near(seen.dates[i], 0.3005));
            continue;
        }
        CHECK_EQ(seen.order[i], k);
        CHECK(near(seen.dates[i], (ONE_SHOTS + 1 - k) * 0.001));
        k--;
    }
    CHECK_EQ(k, 0);
    uint64_t armed = 0;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 1);  /* the repeating timer */
    for (int j = 1; j <= ONE_SHOTS; j++) CHECK_ERR(cadence_cancel(seen.handles[j]), CADENCE_EALREADY);

    /* Part 3: record 1's call cancels record 3's timer and resets record 2's, which are still
     * due (see in_first_call); both records are skipped, the reset one fires in its own pass. */
    seen.calls = 0;
    seen.in_batch = 1;
    for (long j = 1; j <= 3; j++) {
        CHECK_OK(cadence_cancellable_release(seen.handles[j]));
        CHECK_OK(schedule_default(loop, 0, (void *)(intptr_t)j, &seen.handles[j]));
    }
    CHECK_OK(cadence_loop_run_pass(loop, "default"));
    CHECK_EQ(seen.calls, 1);
    CHECK_EQ(seen.order[0], 1);
    CHECK_EQ(seen.skipped, 2);
    CHECK_EQ(seen.released, 0);  /* 3's userdata was stolen */
    seen.in_batch = 0;
    CHECK_OK(cadence_loop_jump_clock(loop, 1.0));
    CHECK_OK(cadence_loop_run_pass(loop, "default"));
    CHECK_EQ(seen.calls, 3);  /* 2 at its new date; the repeating timer's tick at 1.3005 */
    int found = 0;
    for (int i = 1; i < seen.calls; i++) {
        if (seen.order[i] == 2) {
            CHECK(near(seen.dates[i], 1.7));
            found = 1;
        }
    }
    CHECK(found);

    /* NULL: one call of the fire function per one-shot again (final == 1 fails on_fire). */
    CHECK_OK(cadence_loop_set_fire_batch(loop, NULL));
    CHECK_OK(cadence_cancel(repeating));
    CHECK_EQ(seen.released, 1);
    CHECK_OK(cadence_cancellable_release(repeating));
    for (int j = 1; j <= ONE_SHOTS; j++) CHECK_OK(cadence_cancellable_release(seen.handles[j]));
    CHECK_OK(cadence_loop_close(loop));
    CHECK_ERR(cadence_loop_set_fire_batch(loop, on_batch), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_set_fire_batch(loop, NULL), CADENCE_EBADF);
}

/* Part 4: a cancel from another thread of a timer in the batch being handed over waits for it. */
static atomic_int started, cancelling, returned;

static void sleep_ms(long ms) {
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void unused_fire(void *userdata, double fire_date, uint64_t skipped, int final) {
    (void)userdata, (void)fire_date, (void)skipped, (void)final;
    CHECK(0);
}

static void slow_batch(cadence_fire_record *records, size_t count, size_t *calls_started) {
    (void)records;
    CHECK_EQ(count, 2);
    *calls_started = 1;  /* the second record is not started: another thread still waits for the batch */
    atomic_store(&started, 1);
    while (!atomic_load(&cancelling)) sleep_ms(1);
    sleep_ms(50);  /* the cancel is on its way: it must wait for this */
    atomic_store(&returned, 1);
}

static void cancel_waits_for_batch(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, unused_fire, NULL));
    CHECK_OK(cadence_loop_set_fire_batch(loop, slow_batch));
    cadence_cancellable first, second;
    CHECK_OK(schedule_default(loop, 0, (void *)1, &first));
    CHECK_OK(schedule_default(loop, 0, (void *)2, &second));
    CHECK_OK(cadence_loop_start_thread(loop, "default"));
    while (!atomic_load(&started)) sleep_ms(1);
    atomic_store(&cancelling, 1);
    CHECK_ERR(cadence_cancel(second), CADENCE_EALREADY);
    CHECK_EQ(atomic_load(&returned), 1);
    CHECK_OK(cadence_loop_stop_thread(loop));
    CHECK_OK(cadence_cancellable_release(first));
    CHECK_OK(cadence_cancellable_release(second));
    CHECK_OK(cadence_loop_close(loop));
}

/* Part 5: a batch cleared, or set again, from another thread while one is handed over: the call
 * waits for the batch and succeeds (only the batch function's own call is refused), and the next
 * pass follows it. */
static atomic_int slow_calls, fires_alone;

static void count_fire(void *userdata, double fire_date, uint64_t skipped, int final) {
    (void)userdata, (void)fire_date, (void)skipped, (void)final;
    atomic_fetch_add(&fires_alone, 1);
}

static void slow_batch_of_one(cadence_fire_record *records, size_t count, size_t *calls_started) {
    (void)records;
    *calls_started = count;
    atomic_fetch_add(&slow_calls, 1);
    atomic_store(&started, 1);
    sleep_ms(50);  /* the other thread's call comes meanwhile */
    atomic_store(&returned, 1);
}

static void set_from_another_thread(cadence_fire_batch_fn batch) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, count_fire, NULL));
    CHECK_OK(cadence_loop_set_fire_batch(loop, slow_batch_of_one));
    atomic_store(&started, 0), atomic_store(&returned, 0);
    atomic_store(&slow_calls, 0), atomic_store(&fires_alone, 0);
    cadence_cancellable first, second;
    CHECK_OK(schedule_default(loop, 0, (void *)1, &first));
    CHECK_OK(cadence_loop_start_thread(loop, "default"));
    while (!atomic_load(&started)) sleep_ms(1);
    CHECK_OK(cadence_loop_set_fire_batch(loop, batch));
    CHECK_EQ(atomic_load(&returned), 1);  /* it waited for the batch */
    CHECK_OK(schedule_default(loop, 0, (void *)2, &second));
    double deadline = test_monotonic() + 10;
    while (atomic_load(&slow_calls) + atomic_load(&fires_alone) < 2 && test_monotonic() < deadline) sleep_ms(1);
    CHECK_OK(cadence_loop_stop_thread(loop));
    CHECK_EQ(atomic_load(&slow_calls), batch ? 2 : 1);  /* the second fire: per the new setting */
    CHECK_EQ(atomic_load(&fires_alone), batch ? 0 : 1);
    CHECK_OK(cadence_cancellable_release(first));
    CHECK_OK(cadence_cancellable_release(second));
    CHECK_OK(cadence_loop_close(loop));
}

/* A one-shot with a callback of its own (outside the batch), due with the batched ones: record
 * 0's call cancels it (`outside_action` 1) or resets it by 1 s (2). */
static struct {
    cadence_cancellable timer;
    int action, result, calls, releases;
    double fire_date;
} outside;

static void outside_tick(const cadence_tick *tick, void *userdata) {
    (void)userdata;
    outside.calls++;
    outside.fire_date = tick->fire_date;
}

static void outside_release(void *userdata) {
    if (userdata == &outside) outside.releases++;
}

static void outside_fire(void *userdata, double fire_date, uint64_t skipped, int final) {
    (void)userdata; (void)fire_date; (void)skipped; (void)final;
}

static void batch_before_outside(cadence_fire_record *records, size_t count, size_t *started) {
    (void)records;
    for (size_t i = 0; i < count; i++) {
        *started = i + 1;
        if (i > 0) continue;
        outside.result = outside.action == 1 ? cadence_cancel(outside.timer)
                                             : cadence_timer_reset(outside.timer, 1);
    }
}

static void a_record_cancels_or_resets_a_one_shot_due_after_the_batch(int action) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, outside_fire, outside_release));
    outside.action = action;
    outside.calls = outside.releases = 0;
    outside.result = 99;
    for (int i = 0; i < 3; i++) CHECK(cadence_loop_schedule_default(loop, 1, NULL) > 0);
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", outside_tick, &outside, &outside.timer));
    CHECK_OK(cadence_loop_set_fire_batch(loop, batch_before_outside));
    CHECK_OK(cadence_loop_run(loop, "default", 1.5));
    CHECK_EQ(outside.result, 0);
    if (action == 1) {
        CHECK_EQ(outside.releases, 1);  /* stopped by the cancel: released, never called */
        CHECK_OK(cadence_loop_run(loop, "default", 2));
        CHECK_EQ(outside.calls, 0);
    } else {
        CHECK_EQ(outside.calls, 0);  /* moved to a second after the reset */
        CHECK_OK(cadence_loop_run(loop, "default", 1));
        CHECK_EQ(outside.calls, 1);
        CHECK(near(outside.fire_date, 2));
        CHECK_EQ(outside.releases, 0);
    }
    CHECK_OK(cadence_cancellable_release(outside.timer));
    CHECK_OK(cadence_loop_close(loop));
}

/* A repeating timer due after the batch reads, from a record's call, as what it is then: pending at
 * the date it is about to fire (not yet moved to the next), and fires there. */
static struct {
    cadence_cancellable timer;
    double read_date, fired_date;
    int calls;
} every;

static void every_tick(const cadence_tick *tick, void *userdata) {
    (void)userdata;
    if (every.calls++ == 0) every.fired_date = tick->fire_date;
}

static void batch_reads_every(cadence_fire_record *records, size_t count, size_t *started) {
    (void)records;
    for (size_t i = 0; i < count; i++) {
        *started = i + 1;
        if (i == 0) CHECK_OK(cadence_timer_fire_date(every.timer, &every.read_date));
    }
}

static void a_record_reads_a_repeating_timer_due_after_the_batch_as_pending(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, outside_fire, NULL));
    CHECK(cadence_loop_schedule_default(loop, 1, NULL) > 0);
    CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 5, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             every_tick, NULL, &every.timer));
    CHECK_OK(cadence_loop_set_fire_batch(loop, batch_reads_every));
    CHECK_OK(cadence_loop_run(loop, "default", 2));
    CHECK(near(every.read_date, 1));
    CHECK_EQ(every.calls, 1);
    CHECK(near(every.fired_date, 1));
    CHECK_OK(cadence_cancel(every.timer));
    CHECK_OK(cadence_cancellable_release(every.timer));
    CHECK_OK(cadence_loop_close(loop));
}

int main(void) {
    a_record_reads_a_repeating_timer_due_after_the_batch_as_pending();
    a_record_cancels_or_resets_a_one_shot_due_after_the_batch(1);
    a_record_cancels_or_resets_a_one_shot_due_after_the_batch(2);
    virtual_batches();
    cancel_waits_for_batch();
    set_from_another_thread(NULL);
    set_from_another_thread(slow_batch_of_one);
    return 0;
}
