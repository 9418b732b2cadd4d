/* cadence_loop_run_pass_collect: the one-shots of a loop's fire function that a pass fires last,
 * when each one's userdata has the mask's bits, come back as records (fire-date order, their
 * userdata, fire dates and spent handles) instead of going to the batch function, and their
 * timers have fired; a batch with any other record, mask 0, or an earlier full batch goes to the
 * batch function as in cadence_loop_run_pass, in order before the collected ones. Bad input:
 * NULL out-parameters, a stale loop, a bad mode. */
#include "check.h"

enum { MARK = 1 << 20, MANY = 300 };

static struct {
    long order[MANY + 8];  /* userdata as the batch function saw it */
    int calls, batches;
} seen;

static void on_fire(void *userdata, double fire_date, uint64_t skipped, int final) {
    (void)userdata, (void)fire_date, (void)skipped, (void)final;
    CHECK(0);  /* one-shots only: every fire is batched */
}

static void on_release(void *userdata) { (void)userdata; }

static void on_batch(cadence_fire_record *records, size_t count, size_t *started) {
    seen.batches++;
    for (size_t i = 0; i < count; i++) {
        *started = i + 1;
        seen.order[seen.calls++] = (long)(intptr_t)records[i].userdata;
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
    const cadence_fire_record *records = NULL;
    size_t count = 99;
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", MARK, &records, &count));
    CHECK_EQ(count, 0);  /* nothing due yet */
    CHECK(records == NULL);
    CHECK_OK(cadence_loop_jump_clock(loop, 0.25));
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", MARK, &records, &count));
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
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", 0, &records, &count));
    CHECK_EQ(count, 0);
    CHECK(records == NULL);
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
    const cadence_fire_record *records = NULL;
    size_t count = 99;
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", MARK, &records, &count));
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
    const cadence_fire_record *records = NULL;
    size_t count = 0;
    CHECK_OK(cadence_loop_run_pass_collect(loop, "default", MARK, &records, &count));
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

static void bad_input(void) {
    cadence_loop loop = make_loop();
    const cadence_fire_record *records = NULL;
    size_t count = 0;
    CHECK_ERR_MSG(cadence_loop_run_pass_collect(loop, "default", MARK, NULL, &count), CADENCE_EINVAL,
                  "cadence_loop_run_pass_collect: records must not be NULL, got NULL");
    CHECK_ERR_MSG(cadence_loop_run_pass_collect(loop, "default", MARK, &records, NULL), CADENCE_EINVAL,
                  "cadence_loop_run_pass_collect: count must not be NULL, got NULL");
    CHECK_ERR(cadence_loop_run_pass_collect(loop, "common", MARK, &records, &count), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_run_pass_collect(loop, "nowhere", MARK, &records, &count), CADENCE_ENOENT);
    CHECK_EQ(count, 0);
    CHECK_OK(cadence_loop_close(loop));
    count = 7;
    CHECK_ERR(cadence_loop_run_pass_collect(loop, "default", MARK, &records, &count), CADENCE_EBADF);
    CHECK_EQ(count, 0);
    CHECK(records == NULL);
}

int main(void) {
    collected();
    mixed();
    after_a_full_batch();
    bad_input();
    return 0;
}
