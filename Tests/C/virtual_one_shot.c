/* One-shot timers as exact virtual-time checks: each fires once at its fire date, in fire-date
 * order, ties in scheduling order; one armed during a pass waits for a later pass (at the same
 * virtual time); a cancelled one never fires, a released one does; modes hold one back. */
#include "timeline.h"

typedef struct named {
    timeline *t;
    const char *name;
    cadence_cancellable chained;   /* scheduled by "a" */
} named;

static void record_named(const cadence_tick *tick, void *userdata) {
    named *n = userdata;
    CHECK_EQ(tick->skipped, 0);
    timeline_add(n->t, n->name, tick->fire_date, 0);
}

static named chain;

static void record_and_chain(const cadence_tick *tick, void *userdata) {
    named *n = userdata;
    record_named(tick, n);
    CHECK_OK(cadence_loop_schedule(n->t->loop, 0, 0, "default", record_named, &chain, &n->chained));
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_add_mode(loop, "modal"));
    timeline t = {.loop = loop};
    named z = {&t, "z", {0}}, a = {&t, "a", {0}}, a2 = {&t, "a'", {0}}, b1 = {&t, "b1", {0}},
          b2 = {&t, "b2", {0}}, c = {&t, "c", {0}}, x = {&t, "x", {0}}, r = {&t, "r", {0}}, m = {&t, "m", {0}};
    chain = (named){&t, "chain", {0}};
    cadence_cancellable hc, ha, ha2, hb1, hb2, hz, hx, hr, hm;
    CHECK_OK(cadence_loop_schedule(loop, 0.3, 0, "default", record_named, &c, &hc));
    CHECK_OK(cadence_loop_schedule(loop, 0.1, 0, "default", record_and_chain, &a, &ha));
    CHECK_OK(cadence_loop_schedule(loop, 0.1, 0, "common", record_named, &a2, &ha2));
    CHECK_OK(cadence_loop_schedule(loop, 0.2, 0, "default", record_named, &b1, &hb1));
    CHECK_OK(cadence_loop_schedule(loop, 0.2, 0, "default", record_named, &b2, &hb2));
    CHECK_OK(cadence_loop_schedule(loop, 0, 0, "default", record_named, &z, &hz));
    CHECK_OK(cadence_loop_schedule(loop, 0.15, 0, "default", record_named, &x, &hx));
    CHECK_OK(cadence_loop_schedule(loop, 0.25, 0, "default", record_named, &r, &hr));
    CHECK_OK(cadence_loop_schedule(loop, 0.05, 0, "modal", record_named, &m, &hm));
    CHECK_EQ(armed_timers(loop), 9);
    CHECK_OK(cadence_cancel(hx));
    CHECK_OK(cadence_cancellable_release(hr));  /* releasing does not cancel */
    CHECK_EQ(armed_timers(loop), 8);

    CHECK_OK(cadence_loop_run(loop, "default", 0.5));
    CHECK_TIMELINE(t, "z@0", "a@100", "a'@100", "chain@100", "b1@200", "b2@200", "r@250", "c@300");
    const long long ran_at[] = {0, 100, 100, 100, 200, 200, 250, 300};
    for (int i = 0; i < 8; i++) CHECK_EQ(t.ran_at[i], ran_at[i]);  /* each at its fire date */
    CHECK_EQ(armed_timers(loop), 1);           /* "m", waiting for its mode */

    int cancelled = 0;
    CHECK_OK(cadence_is_cancelled(hc, &cancelled));
    CHECK_EQ(cancelled, 1);                    /* a fired one-shot counts as cancelled */
    CHECK_ERR(cadence_cancel(hc), CADENCE_EALREADY);
    CHECK_ERR(cadence_cancel(hx), CADENCE_EALREADY);
    CHECK_OK(cadence_is_cancelled(hm, &cancelled));
    CHECK_EQ(cancelled, 0);

    /* In its mode the overdue one-shot fires at once, reporting its own fire date. */
    CHECK_OK(cadence_loop_run(loop, "modal", 0));
    CHECK_EQ(t.count, 9);
    CHECK_STR(t.events[8], "m@50");
    CHECK_EQ(t.ran_at[8], 500);
    CHECK_EQ(armed_timers(loop), 0);

    cadence_cancellable handles[] = {hc, ha, ha2, hb1, hb2, hz, hx, hm, a.chained};
    for (int i = 0; i < 9; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
