/* Tolerance as exact virtual-time checks: never early, at most `tolerance` late, used to coalesce
 * wake-ups (wake at the latest fire date before the earliest fire date + tolerance), a lone timer
 * still on time, and the grid kept (tolerance never accumulates). */
#include "timeline.h"

typedef struct named {
    timeline *t;
    const char *name;
} named;

/* Records "name@fire date"; timeline_add keeps when it ran. Never early. */
static void record_named(const cadence_tick *tick, void *userdata) {
    named *n = userdata;
    CHECK(timeline_now(n->t->loop) >= tick->fire_date);
    timeline_add(n->t, n->name, tick->fire_date, tick->skipped);
}

static uint64_t wakeups(cadence_loop loop) {
    uint64_t count = UINT64_MAX;
    CHECK_OK(cadence_loop_wakeups(loop, &count));
    return count;
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline t = {.loop = loop};
    named r = {&t, "R"}, b = {&t, "B"}, c = {&t, "C"}, lone = {&t, "L"};

    /* R: every 1 s, 0.5 s tolerance. B at 1.3 s and C at 1.6 s, no tolerance. */
    cadence_publisher timer;
    cadence_cancellable sub, connection, hb, hc, hl;
    CHECK_OK(cadence_timer_publish(loop, 1, 0.5, "common", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, record_named, &r, &sub));
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    CHECK_OK(cadence_loop_schedule(loop, 1.3, 0, "default", record_named, &b, &hb));
    CHECK_OK(cadence_loop_schedule(loop, 1.6, 0, "default", record_named, &c, &hc));

    CHECK_OK(cadence_loop_run(loop, "default", 3.2));
    /* R's tick due at 1.0 waits for B at 1.3 (within its tolerance): one wake-up for both. C at
     * 1.6 is beyond R's 1.5, so alone; then R alone, on time and on its grid. */
    CHECK_TIMELINE(t, "R@1000", "B@1300", "C@1600", "R@2000", "R@3000");
    const long long ran_at[] = {1300, 1300, 1600, 2000, 3000};
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(t.ran_at[i], ran_at[i]);
        CHECK_EQ(t.skipped[i], 0);
    }
    CHECK_EQ(wakeups(loop), 4);
    CHECK_OK(cadence_cancel(connection));

    /* A lone timer with tolerance fires at its fire date. */
    CHECK_OK(cadence_loop_schedule(loop, 1.8, 2, "default", record_named, &lone, &hl));
    CHECK_OK(cadence_loop_run(loop, "default", 5));
    CHECK_EQ(t.count, 6);
    CHECK_STR(t.events[5], "L@5000");
    CHECK_EQ(t.ran_at[5], 5000);
    CHECK_EQ(wakeups(loop), 5);
    CHECK_EQ(armed_timers(loop), 0);

    cadence_cancellable handles[] = {sub, connection, hb, hc, hl};
    for (int i = 0; i < 5; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_destroy(loop));
    return 0;
}
