/* cadence_loop_schedule_transient_batch and cadence_cancel_steal_batch: each record does what the
 * single call does (also where a batch of cancels is taken a run of one loop's timers at a time), a bad record does not stop the others and is reported (out {0} for a start,
 * its code for a cancel), records keep their order (equal dates fire in record order), and bad
 * input (NULL arrays, count 0, NaN and infinite dates, bad tolerances, stale handles, a destroyed
 * loop, a loop without a fire function) is refused without a crash or a lost userdata. */
#include "check.h"

#include <string.h>

static int fired[16], released[16], orders;
static intptr_t order[16];
static double dates[16];

static void on_fire(void *userdata, double fire_date, uint64_t skipped, int final) {
    (void)skipped;
    CHECK_EQ(final, 1);
    fired[(intptr_t)userdata]++;
    dates[orders] = fire_date;
    order[orders++] = (intptr_t)userdata;
}

static void on_release(void *userdata) { released[(intptr_t)userdata]++; }

static void starts(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    double at[6] = {1.0, 0.0 / 0.0, 0.5, 1.0, 1.0 / 0.0, 0.75};
    double late[6] = {0, 0, 0, 0, 0, -1.0};
    void *keys[6] = {(void *)1, (void *)2, (void *)3, (void *)4, (void *)5, (void *)6};
    cadence_cancellable out[6];
    memset(out, 0xff, sizeof out);

    /* No fire function yet: every record fails, reported as the first's error. */
    CHECK_ERR(cadence_loop_schedule_transient_batch(loop, 1, at, late, keys, out), CADENCE_EINVAL);
    CHECK_EQ(out[0].id, 0);
    CHECK_OK(cadence_loop_set_callbacks(loop, on_fire, on_release));

    /* count 0 does nothing, NULL arrays and all; a NULL array with records is refused whole. */
    CHECK_OK(cadence_loop_schedule_transient_batch(loop, 0, NULL, NULL, NULL, NULL));
    memset(out, 0xff, sizeof out);
    CHECK_ERR_MSG(cadence_loop_schedule_transient_batch(loop, 6, NULL, late, keys, out), CADENCE_EINVAL,
                  "cadence_loop_schedule_transient_batch: fire_dates must not be NULL, got NULL");
    CHECK_ERR(cadence_loop_schedule_transient_batch(loop, 6, at, NULL, keys, out), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_transient_batch(loop, 6, at, late, NULL, out), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule_transient_batch(loop, 6, at, late, keys, NULL), CADENCE_EINVAL);
    /* A count of 2^63 or more (a negative int passed by mistake) is refused, not taken as none. */
    CHECK_ERR_MSG(cadence_loop_schedule_transient_batch(loop, SIZE_MAX, at, late, keys, out), CADENCE_EINVAL,
                  "cadence_loop_schedule_transient_batch: count must be at most 9223372036854775807, "
                  "got 18446744073709551615");
    CHECK_ERR(cadence_loop_schedule_transient_batch(loop, (size_t)1 << 63, NULL, NULL, NULL, NULL), CADENCE_EINVAL);
    CHECK_EQ(out[0].id, UINT64_MAX);  /* untouched */
    uint64_t armed = 1;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 0);

    /* Records 1 (NaN date), 4 (infinite date) and 5 (negative tolerance) fail; the others arm. */
    int code = cadence_loop_schedule_transient_batch(loop, 6, at, late, keys, out);
    CHECK_EQ(code, CADENCE_EINVAL);
    const char *prefix = "cadence_loop_schedule_transient_batch: record 1: fire_date must be finite";
    CHECK(strncmp(cadence_last_error_message(), prefix, strlen(prefix)) == 0);
    CHECK_EQ(out[1].id, 0);
    CHECK_EQ(out[4].id, 0);
    CHECK_EQ(out[5].id, 0);
    CHECK(out[0].id != 0 && out[2].id != 0 && out[3].id != 0);
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 3);
    double value = 0;
    CHECK_OK(cadence_timer_fire_date(out[2], &value));
    CHECK_OK(cadence_loop_run(loop, "default", 2.0));
    CHECK_EQ(orders, 3);                 /* date order, equal dates in record order, exact dates */
    CHECK_EQ(order[0], 3);
    CHECK_EQ(order[1], 1);
    CHECK_EQ(order[2], 4);
    CHECK(dates[0] == 0.5 && dates[1] == 1.0 && dates[2] == 1.0);
    CHECK_ERR(cadence_cancel(out[0]), CADENCE_EBADF);  /* ended with its fire, as a single one */

    /* A destroyed loop: every record fails with EBADF, nothing is called. */
    CHECK_OK(cadence_loop_close(loop));
    double again[2] = {3.0, 4.0}, none[2] = {0, 0};
    void *more[2] = {(void *)7, (void *)8};
    CHECK_ERR(cadence_loop_schedule_transient_batch(loop, 2, again, none, more, out), CADENCE_EBADF);
    CHECK_EQ(out[0].id, 0);
    CHECK_EQ(out[1].id, 0);
    for (int k = 0; k < 16; k++) {
        CHECK_EQ(fired[k] + released[k], k == 1 || k == 3 || k == 4);  /* no userdata lost or doubled */
        fired[k] = released[k] = 0;
    }
    orders = 0;
}

static void cancels(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, on_fire, on_release));
    double at[4] = {1.0, 2.0, 3.0, 0.5}, late[4] = {0, 0, 0, 0};
    void *keys[4] = {(void *)1, (void *)2, (void *)3, (void *)4};
    cadence_cancellable h[4];
    CHECK_OK(cadence_loop_schedule_transient_batch(loop, 4, at, late, keys, h));
    CHECK_OK(cadence_loop_run(loop, "default", 0.6));  /* 4 fires: its handle ends */
    CHECK_EQ(fired[4], 1);

    cadence_publisher publisher;
    cadence_cancellable connection;
    CHECK_OK(cadence_publisher_create(loop, 1.0, 0, "default", &publisher));
    CHECK_OK(cadence_publisher_connect(publisher, &connection));

    /* Live timers (stolen back), the same handle twice, a fired one, a zero handle, a
     * connection (stopped, never stolen), and one stopped by a single cancel before. */
    CHECK_OK(cadence_cancel(h[2]));
    CHECK_EQ(released[3], 1);
    cadence_cancellable batch[8] = {h[0], h[1], h[0], h[3], {0}, connection, connection, h[2]};
    intptr_t out[8];
    memset(out, 0x7f, sizeof out);
    CHECK_ERR(cadence_cancel_steal_batch(NULL, 8, out), CADENCE_EINVAL);
    CHECK_ERR(cadence_cancel_steal_batch(batch, 8, NULL), CADENCE_EINVAL);
    CHECK_OK(cadence_cancel_steal_batch(NULL, 0, NULL));
    CHECK_ERR(cadence_cancel_steal_batch(batch, SIZE_MAX, out), CADENCE_EINVAL);
    CHECK_EQ(out[0], 0x7f7f7f7f7f7f7f7f);  /* untouched */
    CHECK_OK(cadence_cancel_steal_batch(batch, 8, out));
    CHECK_EQ(out[0], 1);
    CHECK_EQ(out[1], 2);
    CHECK_EQ(out[2], CADENCE_EBADF);     /* a stopped transient handle has ended */
    CHECK_EQ(out[3], CADENCE_EBADF);     /* fired */
    CHECK_EQ(out[4], CADENCE_EBADF);
    CHECK_EQ(out[5], 0);
    CHECK_EQ(out[6], CADENCE_EALREADY);
    CHECK_EQ(out[7], CADENCE_EBADF);
    CHECK_EQ(released[1] + released[2], 0);  /* stolen: the caller's, no release */
    uint64_t armed = 1;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 0);
    CHECK_OK(cadence_loop_run(loop, "default", 5.0));
    CHECK_EQ(orders, 1);                 /* nothing cancelled fired */
    CHECK_OK(cadence_cancellable_release(connection));
    CHECK_OK(cadence_publisher_release(publisher));
    CHECK_OK(cadence_loop_close(loop));
    /* After the destroy: every handle is stale, reported per record. */
    CHECK_OK(cadence_cancel_steal_batch(batch, 2, out));
    CHECK_EQ(out[0], CADENCE_EBADF);
    CHECK_EQ(out[1], CADENCE_EBADF);
}

static void on_tick(const cadence_tick *tick, void *userdata) {
    (void)tick;
    fired[(intptr_t)userdata]++;
}

/* A batch is cancelled a run of one loop's timers at a time (at most 64): runs split by another
 * loop's handles, by a handle of another kind and by their length give every record the outcome
 * the single call gives it, in place. */
static void runs(void) {
    enum { N = 150, M = 10 };
    memset(fired, 0, sizeof fired);
    memset(released, 0, sizeof released);
    orders = 0;
    cadence_loop a, b;
    CHECK_OK(cadence_loop_create_virtual(&a));
    CHECK_OK(cadence_loop_create_virtual(&b));
    CHECK_OK(cadence_loop_set_callbacks(a, on_fire, on_release));
    CHECK_OK(cadence_loop_set_callbacks(b, on_fire, on_release));
    double at[N], late[N] = {0};
    void *keys[N];
    for (int i = 0; i < N; i++) {
        at[i] = 1.0 + i;
        keys[i] = (void *)(intptr_t)(1000 + i);
    }
    cadence_cancellable ha[N], hb[M], repeating;
    CHECK_OK(cadence_loop_schedule_transient_batch(a, N, at, late, keys, ha));
    CHECK_OK(cadence_loop_schedule_transient_batch(b, M, at, late, keys, hb));
    CHECK_OK(cadence_loop_schedule_repeating(a, 1.0, 1.0, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             on_tick, (void *)5, &repeating));
    /* a[0..69], b[0..4], a[70..149], the repeating timer, a[0] again, b[5..9], a zero handle */
    cadence_cancellable batch[N + M + 3];
    intptr_t expected[N + M + 3], out[N + M + 3];
    int n = 0;
    for (int i = 0; i < 70; i++) expected[n] = 1000 + i, batch[n++] = ha[i];
    for (int i = 0; i < 5; i++) expected[n] = 1000 + i, batch[n++] = hb[i];
    for (int i = 70; i < N; i++) expected[n] = 1000 + i, batch[n++] = ha[i];
    expected[n] = 5, batch[n++] = repeating;             /* stopped, its userdata handed back */
    expected[n] = CADENCE_EBADF, batch[n++] = ha[0];     /* stopped above: ended */
    for (int i = 5; i < M; i++) expected[n] = 1000 + i, batch[n++] = hb[i];
    expected[n] = CADENCE_EBADF, batch[n++] = (cadence_cancellable){0};
    CHECK_OK(cadence_cancel_steal_batch(batch, (size_t)n, out));
    for (int i = 0; i < n; i++) CHECK_EQ(out[i], expected[i]);
    uint64_t armed = 1;
    CHECK_OK(cadence_loop_armed_timers(a, &armed));
    CHECK_EQ(armed, 0);
    CHECK_OK(cadence_loop_armed_timers(b, &armed));
    CHECK_EQ(armed, 0);
    CHECK_OK(cadence_loop_run(a, "default", 500.0));
    CHECK_OK(cadence_loop_run(b, "default", 500.0));
    CHECK_EQ(orders + fired[5], 0);                       /* nothing cancelled fired */
    CHECK_OK(cadence_cancellable_release(repeating));
    CHECK_OK(cadence_loop_close(a));
    CHECK_OK(cadence_loop_close(b));
    for (int k = 0; k < 16; k++) CHECK_EQ(released[k], 0);  /* stolen: the caller's */
}

static cadence_cancellable stolen_by_release;
static intptr_t release_stole;
static void on_release_stealing(void *userdata) {
    if ((intptr_t)userdata == -5) release_stole = cadence_cancel_steal(stolen_by_release);
}

/* A record whose cancel calls a release function (a userdata that cannot be handed back) is
 * finished before the next record is cancelled, as one call after another would: here that
 * function steals the next record's timer, wherever the pair falls among the runs of 64. */
static void release_between(void) {
    static const int places[] = {0, 61, 62, 63, 64, 65, 127};
    for (size_t p = 0; p < sizeof places / sizeof places[0]; p++) {
        enum { N = 140 };
        cadence_loop loop;
        CHECK_OK(cadence_loop_create_virtual(&loop));
        CHECK_OK(cadence_loop_set_callbacks(loop, on_fire, on_release_stealing));
        cadence_cancellable batch[N];
        intptr_t out[N], expected[N];
        int at = places[p];
        for (int i = 0; i < N; i++) {
            intptr_t key = i == at ? -5 : i == at + 1 ? 2 : 1000 + i;
            batch[i].id = (uint64_t)cadence_loop_schedule_default(loop, 100.0, (void *)key);
            expected[i] = i == at ? 0 : i == at + 1 ? CADENCE_EALREADY : key;
        }
        stolen_by_release = batch[at + 1];
        release_stole = 12345;
        CHECK_OK(cadence_cancel_steal_batch(batch, N, out));
        CHECK_EQ(release_stole, 2);  /* the release function came first */
        for (int i = 0; i < N; i++) CHECK_EQ(out[i], expected[i]);
        CHECK_OK(cadence_loop_close(loop));
    }
}

int main(void) {
    starts();
    cancels();
    runs();
    release_between();
    return 0;
}
