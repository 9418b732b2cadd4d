/* Ties in virtual time: timers due at the same fire date fire in the order they were scheduled,
 * on every tick of a repeating timer, whatever order their re-arms came in. A 0.3 s and a 0.5 s
 * timer scheduled in that order at 0 meet at 1.5 s (the 0.5 s one was re-armed last, at 1 s):
 * the 0.3 s one fires first there. The same for publishers and autoconnect publishers; a timer
 * moved by cadence_timer_reset counts as scheduled at the reset. */
#include "timeline.h"

/* A callback's userdata: the timeline and the label to record. */
typedef struct labelled {
    timeline *t;
    const char *label;
} labelled;

static void record(const cadence_tick *tick, void *userdata) {
    const labelled *l = userdata;
    CHECK(timeline_now(l->t->loop) >= tick->fire_date);
    timeline_add(l->t, l->label, tick->fire_date, tick->skipped);
}

/* Keeps the events at `ms` only, in order. */
static timeline at(const timeline *t, long long ms) {
    timeline kept = {.loop = t->loop};
    char suffix[24];
    snprintf(suffix, sizeof suffix, "@%lld", ms);
    for (int i = 0; i < t->count && i < TIMELINE_MAX; i++) {
        size_t length = strlen(t->events[i]);
        if (length >= strlen(suffix) && strcmp(t->events[i] + length - strlen(suffix), suffix) == 0)
            memcpy(kept.events[kept.count++], t->events[i], sizeof t->events[0]);
    }
    return kept;
}

static void scheduled_timers(double first, double second, const char *first_label,
                             const char *second_label) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline t = {.loop = loop};
    labelled a = {&t, first_label}, b = {&t, second_label};
    cadence_cancellable ha, hb;
    CHECK_OK(cadence_loop_schedule_repeating(loop, first, first, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             record, &a, &ha));
    CHECK_OK(cadence_loop_schedule_repeating(loop, second, second, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             record, &b, &hb));
    CHECK_OK(cadence_loop_run(loop, "default", 1.5));
    timeline meet = at(&t, 1500);
    CHECK_EQ(meet.count, 2);
    CHECK(strncmp(meet.events[0], first_label, strlen(first_label)) == 0);
    CHECK(strncmp(meet.events[1], second_label, strlen(second_label)) == 0);
    CHECK_OK(cadence_cancellable_release(ha));
    CHECK_OK(cadence_cancellable_release(hb));
    CHECK_OK(cadence_loop_destroy(loop));
}

static void publishers(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline t = {.loop = loop};
    labelled labels[4] = {{&t, "0.3"}, {&t, "0.5"}, {&t, "auto 0.3"}, {&t, "auto 0.5"}};
    const double intervals[4] = {0.3, 0.5, 0.3, 0.5};
    cadence_publisher publishers[4], autos[2];
    cadence_cancellable subscriptions[4], connections[2];
    for (int i = 0; i < 4; i++) CHECK_OK(cadence_timer_publish(loop, intervals[i], 0, "default", &publishers[i]));
    for (int i = 0; i < 2; i++) {
        CHECK_OK(cadence_publisher_subscribe(publishers[i], record, &labels[i], &subscriptions[i]));
        CHECK_OK(cadence_publisher_connect(publishers[i], &connections[i]));
    }
    for (int i = 0; i < 2; i++) {
        CHECK_OK(cadence_publisher_autoconnect(publishers[2 + i], &autos[i]));
        CHECK_OK(cadence_publisher_subscribe(autos[i], record, &labels[2 + i], &subscriptions[2 + i]));
    }
    CHECK_OK(cadence_loop_run(loop, "default", 1.5));
    timeline meet = at(&t, 1500);
    CHECK_TIMELINE(meet, "0.3@1500", "0.5@1500", "auto 0.3@1500", "auto 0.5@1500");
    for (int i = 0; i < 2; i++) {
        CHECK_OK(cadence_cancel(connections[i]));
        CHECK_OK(cadence_cancellable_release(connections[i]));
        CHECK_OK(cadence_publisher_release(autos[i]));
    }
    for (int i = 0; i < 4; i++) {
        CHECK_OK(cadence_cancellable_release(subscriptions[i]));
        CHECK_OK(cadence_publisher_release(publishers[i]));
    }
    CHECK_OK(cadence_loop_destroy(loop));
}

/* a and b due at 1 s, r every 0.5 s, then a reset to 1 s from 0: a now counts as scheduled
 * after r, and fires last at 1 s (as libuv's uv_timer_again and Node's refresh() order it). */
static void reset_goes_last(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline t = {.loop = loop};
    labelled a = {&t, "a"}, b = {&t, "b"}, r = {&t, "r"};
    cadence_cancellable ha, hb, hr;
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", record, &a, &ha));
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", record, &b, &hb));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.5, 0.5, 0, CADENCE_MISSED_TICKS_SKIP, "default", record,
                                             &r, &hr));
    CHECK_OK(cadence_timer_reset(ha, 1));
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_TIMELINE(t, "r@500", "b@1000", "r@1000", "a@1000");
    CHECK_OK(cadence_cancellable_release(ha));
    CHECK_OK(cadence_cancellable_release(hb));
    CHECK_OK(cadence_cancellable_release(hr));
    CHECK_OK(cadence_loop_destroy(loop));
}

int main(void) {
    scheduled_timers(0.3, 0.5, "0.3", "0.5");
    scheduled_timers(0.5, 0.3, "0.5", "0.3");
    publishers();
    reset_goes_last();
    return 0;
}
