/* cadence_loop_run_pass_collect: the one-shots of a loop's fire function that a pass fires last,
 * when each one's userdata has the mask's bits, are copied to the caller's records (fire-date
 * order, their userdata, fire dates and spent handles) instead of going to the batch function,
 * and their timers have fired; a batch with any other record, mask 0, a batch too large for the
 * records, or an earlier full batch goes to the batch function as in cadence_loop_run_pass, in
 * order before the collected ones. Only the call's own pass collects: a call that fails (from
 * another thread while the loop runs, or from the batch function) changes no other pass. Bad
 * input: NULL out-parameters, a stale loop, a bad mode; *count is written only on success. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"

enum { MARK = 1 << 20, MANY = 300 };

static struct {
    long order[MANY + 8];  /* userdata as the batch function saw it */
    int calls, batches;
    cadence_loop reenter;  /* part 4: the batch function calls the collect itself */
} seen;

static cadence_fire_record records[256];
static atomic_int running, run_began;  /* part 6: another thread's calls during a run */

static void on_fire(void *userdata, double fire_date, uint64_t skipped, int final) {
    (void)userdata, (void)fire_date, (void)skipped, (void)final;
    CHECK(0);  /* one-shots only: every fire is batched */
}

static void on_release(void *userdata) { (void)userdata; }

static void on_batch(cadence_fire_record *batch, size_t count, size_t *started) {
    seen.batches++;
    atomic_store(&run_began, 1);
    if (seen.reenter.id) {
        cadence_fire_record mine[4];
        size_t got = 99;
        CHECK_ERR(cadence_loop_run_pass_collect(seen.reenter, "default", MARK, mine, 4, &got), CADENCE_EBUSY);
        CHECK_EQ(got, 99);
    }
    for (size_t i = 0; i < count; i++) {
        *started = i + 1;
        if (seen.calls < MANY + 8) seen.order[seen.calls] = (long)(intptr_t)batch[i].userdata;
        seen.calls++;
    }
}

static cadence_loop make_loop(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, on_fire, on_release));
    CHECK_OK(cadence_loop_set_fire_batch(loop, on_batch));
    return loop;
}

/* A quiet loop's wake-up: three marked one-shots, scheduled out of order, come back collected. */
static void collected(void) {
    cadence_loop loop = make_loop();
    cadence_cancellable h[3];
    double delays[3] = {0.3, 0.1, 0.2};
    for (int i = 0; i < 3; i++) CHECK_OK(schedule_default(loop, delays[i], (void *)(intptr_t)(MARK | i), &h[i]));
    size_t count = 99;
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", MARK, records, 256, &count));
    CHECK_EQ(count, 0);  /* nothing due yet */
    CHECK_OK(cadence_loop_jump_clock(loop, 0.25));
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", MARK, records, 256, &count));
    CHECK_EQ(count, 2);
    CHECK_EQ(seen.calls, 0);  /* the batch function was not called */
    CHECK_EQ((long)(intptr_t)records[0].userdata, MARK | 1);
    CHECK_EQ((long)(intptr_t)records[1].userdata, MARK | 2);
    CHECK(records[0].fire_date < records[1].fire_date);
    CHECK_EQ(records[0].source.id, h[1].id);
    CHECK_EQ(records[1].source.id, h[2].id);
    /* Fired: their handles are spent, the third is still armed. */
    CHECK_ERR(cadence_cancel(h[1]), CADENCE_EALREADY);
    CHECK_ERR(cadence_cancel(h[2]), CADENCE_EALREADY);
    uint64_t armed = 0;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 1);
    /* Mask 0: the same pass hands the batch over. */
    CHECK_OK(cadence_loop_jump_clock(loop, 0.1));
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", 0, records, 256, &count));
    CHECK_EQ(count, 0);
    CHECK_EQ(seen.calls, 1);
    CHECK_EQ(seen.order[0], MARK | 0);
    CHECK_OK(cadence_loop_close(loop));
    seen.calls = seen.batches = 0;
}

/* A batch with one record without the mark goes to the batch function whole, in order. */
static void mixed(void) {
    cadence_loop loop = make_loop();
    cadence_cancellable h;
    CHECK_OK(schedule_default(loop, 0.1, (void *)(intptr_t)(MARK | 1), &h));
    CHECK_OK(schedule_default(loop, 0.2, (void *)(intptr_t)2, &h));
    CHECK_OK(schedule_default(loop, 0.3, (void *)(intptr_t)(MARK | 3), &h));
    CHECK_OK(cadence_loop_jump_clock(loop, 1));
    size_t count = 99;
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", MARK, records, 256, &count));
    CHECK_EQ(count, 0);
    CHECK_EQ(seen.batches, 1);
    CHECK_EQ(seen.calls, 3);
    CHECK_EQ(seen.order[0], MARK | 1);
    CHECK_EQ(seen.order[1], 2);
    CHECK_EQ(seen.order[2], MARK | 3);
    CHECK_OK(cadence_loop_close(loop));
    seen.calls = seen.batches = 0;
}

/* 300 marked one-shots in one pass: the first full batch (256) goes to the batch function, the
 * last 44 come back collected, after them in fire-date order. */
static void after_a_full_batch(void) {
    cadence_loop loop = make_loop();
    cadence_cancellable h;
    for (long k = 0; k < MANY; k++) CHECK_OK(schedule_default(loop, 0.001 * (k + 1), (void *)(intptr_t)(MARK | k), &h));
    CHECK_OK(cadence_loop_jump_clock(loop, 1));
    size_t count = 0;
    seen.reenter = loop;  /* its own collect fails and changes nothing of this pass */
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", MARK, records, 256, &count));
    seen.reenter.id = 0;
    CHECK_EQ(seen.batches, 1);
    CHECK_EQ(seen.calls, 256);
    CHECK_EQ(count, MANY - 256);
    for (long k = 0; k < 256; k++) CHECK_EQ(seen.order[k], MARK | k);
    for (long k = 0; k < (long)count; k++) CHECK_EQ((long)(intptr_t)records[k].userdata, MARK | (256 + k));
    uint64_t armed = 1;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 0);
    CHECK_OK(cadence_loop_close(loop));
    seen.calls = seen.batches = 0;
}

/* A batch larger than the records is handed over: 3 due, room for 2. */
static void too_many_for_the_records(void) {
    cadence_loop loop = make_loop();
    cadence_cancellable h;
    for (long k = 1; k <= 3; k++) CHECK_OK(schedule_default(loop, 0.1 * k, (void *)(intptr_t)(MARK | k), &h));
    CHECK_OK(cadence_loop_jump_clock(loop, 1));
    size_t count = 99;
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", MARK, records, 2, &count));
    CHECK_EQ(count, 0);
    CHECK_EQ(seen.calls, 3);
    CHECK_OK(cadence_loop_close(loop));
    seen.calls = seen.batches = 0;
}

/* Another thread asks for collected passes while this one runs the loop: each of its calls fails
 * with EBUSY and collects nothing, and every one-shot of the run goes to the batch function. It
 * starts asking once the run has handed over a batch (before, its own pass could hold the loop
 * when the run begins). */

static void *ask_while_it_runs(void *arg) {
    cadence_loop loop = *(cadence_loop *)arg;
    cadence_fire_record mine[256];
    size_t got = 7;
    while (atomic_load(&running) && !atomic_load(&run_began)) sched_yield();
    while (atomic_load(&running)) {
        int r = cadence_loop_run_pass_collect(loop, "default", MARK, mine, 256, &got);
        CHECK(r == CADENCE_EBUSY || r == 0);
        if (r == 0) CHECK_EQ(got, 0);  /* between runs: nothing due, nothing collected */
    }
    return NULL;
}

static void another_threads_call_changes_no_run(void) {
    enum { TIMERS = 20000 };
    cadence_loop loop = make_loop();
    cadence_cancellable h;
    for (long k = 1; k <= TIMERS; k++) CHECK_OK(schedule_default(loop, k * 1e-3, (void *)(intptr_t)(MARK | k), &h));
    atomic_store(&run_began, 0);
    atomic_store(&running, 1);
    pthread_t thread;
    CHECK_EQ(pthread_create(&thread, NULL, ask_while_it_runs, &loop), 0);
    CHECK_OK(cadence_loop_run_until_idle(loop, "default"));
    atomic_store(&running, 0);
    CHECK_EQ(pthread_join(thread, NULL), 0);
    CHECK_EQ(seen.calls, TIMERS);  /* none collected by a pass that did not ask */
    CHECK_OK(cadence_loop_close(loop));
    seen.calls = seen.batches = 0;
}

static void bad_input(void) {
    cadence_loop loop = make_loop();
    size_t count = 7;
    CHECK_ERR_MSG(cadence_loop_run_pass_collect(loop, "default", MARK, NULL, 4, &count), CADENCE_EINVAL,
                  "cadence_loop_run_pass_collect: records must not be NULL, got NULL");
    CHECK_ERR_MSG(cadence_loop_run_pass_collect(loop, "default", MARK, records, 256, NULL), CADENCE_EINVAL,
                  "cadence_loop_run_pass_collect: count must not be NULL, got NULL");
    CHECK_ERR(cadence_loop_run_pass_collect(loop, "default", MARK, records, (size_t)-1, &count), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_run_pass_collect(loop, "common", MARK, records, 256, &count), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_run_pass_collect(loop, "nowhere", MARK, records, 256, &count), CADENCE_ENOENT);
    CHECK_EQ(count, 7);  /* written only on success */
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", MARK, NULL, 0, &count));  /* collects nothing */
    CHECK_EQ(count, 0);
    CHECK_OK(cadence_loop_close(loop));
    count = 7;
    CHECK_ERR(cadence_loop_run_pass_collect(loop, "default", MARK, records, 256, &count), CADENCE_EBADF);
    CHECK_EQ(count, 7);
}

int main(void) {
    collected();
    mixed();
    after_a_full_batch();
    too_many_for_the_records();
    another_threads_call_changes_no_run();
    bad_input();
    return 0;
}
