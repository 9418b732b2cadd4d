/* Missed-tick policies in virtual time: a 1 s timer whose first callback blocks the loop's thread
 * for 3.5 s (cadence_loop_advance_clock inside the callback), run for 10 s. SKIP fires once for
 * the gap, at the latest grid point, and keeps the grid; BURST fires every missed grid point, one
 * per pass, then keeps the grid; DELAY fires once with the missed fire date and restarts the grid
 * one interval after the late fire. Then each policy after lateness below, at and above one
 * interval, on a 50 ms scheduled timer. Bad policies are refused and change nothing. Also: a
 * zero-delay one-shot that reschedules itself from its callback does not starve the loop. */
#include "timeline.h"

/* Records each tick as "fire date@ran at/skipped" (virtual seconds, as %g); the first one blocks
 * the thread for 3.5 s. */
typedef struct blocked {
    cadence_loop loop;
    int count;
    char events[TIMELINE_MAX][40];
} blocked;

static void block_once(const cadence_tick *tick, void *userdata) {
    blocked *b = userdata;
    double now = timeline_now(b->loop);
    CHECK(now >= tick->fire_date);             /* never early */
    CHECK(b->count < TIMELINE_MAX);
    /* Dates in whole milliseconds, then as seconds, so that "4.5" reads as the policy says. */
    snprintf(b->events[b->count], sizeof b->events[0], "%g@%g/%llu", to_ms(tick->fire_date) / 1000.0,
             to_ms(now) / 1000.0, (unsigned long long)tick->skipped);
    b->count++;
    if (b->count == 1) CHECK_OK(cadence_loop_advance_clock(b->loop, 3.5));
}

#define CHECK_EVENTS(b, ...) \
    check_events_(__LINE__, &(b), (const char *const[]){__VA_ARGS__, NULL})

static void check_events_(int line, const blocked *b, const char *const *expected) {
    int n = 0;
    while (expected[n] != NULL) n++;
    int same = b->count == n;
    for (int i = 0; same && i < n; i++) same = strcmp(b->events[i], expected[i]) == 0;
    if (same) return;
    fprintf(stderr, "%s:%d: events are [", __FILE__, line);
    for (int i = 0; i < b->count; i++) fprintf(stderr, "%s\"%s\"", i ? ", " : "", b->events[i]);
    fprintf(stderr, "], expected [");
    for (int i = 0; i < n; i++) fprintf(stderr, "%s\"%s\"", i ? ", " : "", expected[i]);
    fprintf(stderr, "]\n");
    exit(1);
}

/* A 1 s timer with `policy` (kept through refused bad values), run 10 s from connect at 0. */
static blocked run_policy(int policy) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    blocked b = {.loop = loop};
    cadence_publisher timer;
    cadence_cancellable subscription, connection;
    CHECK_OK(cadence_timer_publish(loop, 1, 0, "default", &timer));
    CHECK_OK(cadence_publisher_set_missed_ticks(timer, policy));
    /* A refused value leaves the policy just set. */
    CHECK_ERR(cadence_publisher_set_missed_ticks(timer, -1), CADENCE_EINVAL);
    CHECK_ERR(cadence_publisher_set_missed_ticks(timer, 3), CADENCE_EINVAL);
    CHECK_OK(cadence_publisher_subscribe(timer, block_once, &b, &subscription));
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    CHECK_OK(cadence_loop_run(loop, "default", 10));
    /* The run ends 10 s after it started: the blocked 3.5 s count as part of it. */
    CHECK_EQ(to_ms(timeline_now(loop)), 10000);
    CHECK_EQ(armed_timers(loop), 1);
    CHECK_OK(cadence_cancel(connection));
    CHECK_OK(cadence_cancellable_release(connection));
    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_destroy(loop));
    return b;
}

static void policies(void) {
    /* SKIP: one late fire for 2 to 4, reported at 4 with 2 and 3 skipped; then the grid: eight
     * fires in [0, 10]. */
    blocked skip = run_policy(CADENCE_MISSED_TICKS_SKIP);
    CHECK_EVENTS(skip, "1@1/0", "4@4.5/2", "5@5/0", "6@6/0", "7@7/0", "8@8/0", "9@9/0", "10@10/0");
    /* BURST: 2, 3 and 4 back to back at 4.5 (one per pass), each with its own date; then the grid. */
    blocked burst = run_policy(CADENCE_MISSED_TICKS_BURST);
    CHECK_EVENTS(burst, "1@1/0", "2@4.5/0", "3@4.5/0", "4@4.5/0", "5@5/0", "6@6/0", "7@7/0",
                 "8@8/0", "9@9/0", "10@10/0");
    /* DELAY: 2 fires late at 4.5, and the grid restarts one interval later, at 5.5. */
    blocked delay = run_policy(CADENCE_MISSED_TICKS_DELAY);
    CHECK_EVENTS(delay, "1@1/0", "2@4.5/0", "5.5@5.5/0", "6.5@6.5/0", "7.5@7.5/0", "8.5@8.5/0",
                 "9.5@9.5/0");
}

/* ---- Lateness below, at and above one interval ---- */

static void record_ms(const cadence_tick *tick, void *userdata) {
    blocked *b = userdata;
    double now = timeline_now(b->loop);
    CHECK(now >= tick->fire_date);
    CHECK(b->count < TIMELINE_MAX);
    snprintf(b->events[b->count], sizeof b->events[0], "%lld@%lld/%llu", to_ms(tick->fire_date), to_ms(now),
             (unsigned long long)tick->skipped);
    b->count++;
}

/* A 50 ms scheduled timer with `policy` and `tolerance`, its loop blocked until `blocked_ms`,
 * then run to 250 ms: each fire as "fire date@clock/skipped", in ms. */
static blocked late_by(int policy, int blocked_ms, double tolerance) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    blocked b = {.loop = loop};
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.05, 0.05, tolerance, policy, "default", record_ms, &b, &timer));
    CHECK_OK(cadence_loop_advance_clock(loop, blocked_ms / 1000.0));
    CHECK_OK(cadence_loop_run(loop, "default", (250 - blocked_ms) / 1000.0));
    CHECK_OK(cadence_cancel(timer));
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_OK(cadence_loop_destroy(loop));
    return b;
}

static void lateness(void) {
    enum { SKIP = CADENCE_MISSED_TICKS_SKIP, BURST = CADENCE_MISSED_TICKS_BURST, DELAY = CADENCE_MISSED_TICKS_DELAY };
    blocked b;
    b = late_by(SKIP, 70, 0);
    CHECK_EVENTS(b, "50@70/0", "100@100/0", "150@150/0", "200@200/0", "250@250/0");
    b = late_by(SKIP, 100, 0);
    CHECK_EVENTS(b, "100@100/1", "150@150/0", "200@200/0", "250@250/0");
    b = late_by(SKIP, 130, 0);
    CHECK_EVENTS(b, "100@130/1", "150@150/0", "200@200/0", "250@250/0");
    b = late_by(BURST, 70, 0);
    CHECK_EVENTS(b, "50@70/0", "100@100/0", "150@150/0", "200@200/0", "250@250/0");
    b = late_by(BURST, 100, 0);
    CHECK_EVENTS(b, "50@100/0", "100@100/0", "150@150/0", "200@200/0", "250@250/0");
    b = late_by(BURST, 130, 0);
    CHECK_EVENTS(b, "50@130/0", "100@130/0", "150@150/0", "200@200/0", "250@250/0");
    /* DELAY restarts the grid one interval after the late fire, however late... */
    b = late_by(DELAY, 70, 0);
    CHECK_EVENTS(b, "50@70/0", "120@120/0", "170@170/0", "220@220/0");
    b = late_by(DELAY, 100, 0);
    CHECK_EVENTS(b, "50@100/0", "150@150/0", "200@200/0", "250@250/0");
    b = late_by(DELAY, 130, 0);
    CHECK_EVENTS(b, "50@130/0", "180@180/0", "230@230/0");
    /* ...but a fire within its tolerance window, or within 5 ms, keeps the grid. */
    b = late_by(DELAY, 70, 0.03);
    CHECK_EVENTS(b, "50@70/0", "100@100/0", "150@150/0", "200@200/0", "250@250/0");
    /* A tolerance wider than the interval does not keep a grid whose next point has passed. */
    b = late_by(DELAY, 130, 0.2);
    CHECK_EVENTS(b, "50@130/0", "180@180/0", "230@230/0");
    b = late_by(DELAY, 53, 0);
    CHECK_EVENTS(b, "50@53/0", "100@100/0", "150@150/0", "200@200/0", "250@250/0");
}

/* A policy is refused on anything but a live publisher's handle. */
static void bad_policies(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    cadence_publisher timer, shared;
    CHECK_OK(cadence_timer_publish(loop, 1, 0, "default", &timer));
    const int bad[] = {-1, 3, 4, 100, -2147483647 - 1, 2147483647};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++)
        CHECK_ERR(cadence_publisher_set_missed_ticks(timer, bad[i]), CADENCE_EINVAL);
    CHECK_OK(cadence_publisher_set_missed_ticks(timer, CADENCE_MISSED_TICKS_DELAY));
    CHECK_OK(cadence_publisher_autoconnect(timer, &shared));
    CHECK_OK(cadence_publisher_set_missed_ticks(shared, CADENCE_MISSED_TICKS_SKIP));
    CHECK_ERR(cadence_publisher_set_missed_ticks(shared, 3), CADENCE_EINVAL);
    CHECK_OK(cadence_publisher_release(shared));
    CHECK_ERR(cadence_publisher_set_missed_ticks(shared, CADENCE_MISSED_TICKS_BURST), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_set_missed_ticks((cadence_publisher){0}, 0), CADENCE_EBADF);
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_destroy(loop));
    CHECK_ERR(cadence_publisher_set_missed_ticks(timer, CADENCE_MISSED_TICKS_SKIP), CADENCE_EBADF);
}

/* ---- A zero-delay one-shot that reschedules itself ---- */

#define MAX_RESCHEDULES 8

typedef struct restarter {
    cadence_loop loop;
    int runs;
    cadence_cancellable handles[MAX_RESCHEDULES + 1];  /* [0]: the first one, then each reschedule */
} restarter;

static void restart(const cadence_tick *tick, void *userdata) {
    (void)tick;
    restarter *r = userdata;
    r->runs++;
    CHECK(r->runs <= MAX_RESCHEDULES);
    CHECK_OK(cadence_loop_schedule(r->loop, 0, 0, "default", restart, r, &r->handles[r->runs]));
}

static void count_call(const cadence_tick *tick, void *userdata) {
    (void)tick;
    ++*(int *)userdata;
}

/* One cadence_loop_run(loop, "default", 0) returns, with each one-shot run exactly once: the
 * rescheduled one was armed during the pass and waits for the next (libuv issue 4245). */
static void self_rescheduling_one_shot(cadence_loop loop) {
    restarter r = {.loop = loop};
    int other = 0;
    cadence_cancellable other_handle;
    CHECK_OK(cadence_loop_schedule(loop, 0, 0, "default", restart, &r, &r.handles[0]));
    CHECK_OK(cadence_loop_schedule(loop, 0, 0, "default", count_call, &other, &other_handle));
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_EQ(r.runs, 1);
    CHECK_EQ(other, 1);
    CHECK_EQ(armed_timers(loop), 1);           /* the rescheduled one */
    /* Each further zero-length run is one more pass: one more call. */
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_EQ(r.runs, 3);
    CHECK_EQ(other, 1);
    CHECK_OK(cadence_cancel(r.handles[r.runs]));
    CHECK_EQ(armed_timers(loop), 0);
    for (int i = 0; i <= r.runs; i++) CHECK_OK(cadence_cancellable_release(r.handles[i]));
    CHECK_OK(cadence_cancellable_release(other_handle));
}

int main(void) {
    policies();
    lateness();
    bad_policies();

    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    self_rescheduling_one_shot(loop);
    CHECK_EQ(to_ms(timeline_now(loop)), 0);    /* zero-length runs leave a virtual clock alone */
    CHECK_OK(cadence_loop_destroy(loop));

    CHECK_OK(cadence_loop_create(&loop));      /* the same on a real loop */
    self_rescheduling_one_shot(loop);
    CHECK_OK(cadence_loop_destroy(loop));
    return 0;
}
