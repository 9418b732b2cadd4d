/* Seed article, autoconnect: the first subscriber starts a shared timer, a late subscriber gets
 * the same fire dates from when it joins, no subscribers means no timer, and the next first
 * subscriber starts it again. Same windows as the article. */
#include "recorder.h"

/* Whether every date of `late` is also one of `early`'s. */
static int is_subset(const recorder *late, const recorder *early) {
    for (int i = 0; i < late->count && i < RECORDER_MAX; i++) {
        int found = 0;
        for (int j = 0; j < early->count && j < RECORDER_MAX; j++) found |= late->dates[i] == early->dates[j];
        if (!found) return 0;
    }
    return 1;
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    recorder early = {.loop = loop}, late = {.loop = loop}, restarted = {.loop = loop};

    cadence_publisher connectable, shared;
    CHECK_OK(cadence_timer_publish(loop, 0.1, 0, "common", &connectable));
    CHECK_OK(cadence_publisher_autoconnect(connectable, &shared));

    cadence_cancellable early_sub, late_sub, restarted_sub;
    CHECK_OK(cadence_publisher_subscribe(shared, record_tick, &early, &early_sub));
    CHECK_OK(cadence_loop_run(loop, "default", 0.25));
    CHECK_OK(cadence_publisher_subscribe(shared, record_tick, &late, &late_sub));
    CHECK_OK(cadence_loop_run(loop, "default", 0.3));
    CHECK(early.count > late.count);
    CHECK(late.count > 0);
    CHECK(is_subset(&late, &early));                /* the same ticks, not a second timer */
    check_on_grid(&early, 0.1);

    CHECK_OK(cadence_cancel(early_sub));
    CHECK_OK(cadence_cancel(late_sub));
    int when_idle = early.count + late.count;
    CHECK_OK(cadence_loop_run(loop, "default", 0.3));
    CHECK_EQ(early.count + late.count, when_idle);  /* no subscribers, no timer */

    CHECK_OK(cadence_publisher_subscribe(shared, record_tick, &restarted, &restarted_sub));
    CHECK_OK(cadence_loop_run(loop, "default", 0.35));
    CHECK(restarted.count >= 2);                    /* a new subscriber started it again */
    CHECK(restarted.dates[0] > early.dates[early.count - 1]);
    CHECK_OK(cadence_cancel(restarted_sub));

    CHECK_OK(cadence_cancellable_release(early_sub));
    CHECK_OK(cadence_cancellable_release(late_sub));
    CHECK_OK(cadence_cancellable_release(restarted_sub));
    CHECK_OK(cadence_publisher_release(shared));
    CHECK_OK(cadence_publisher_release(connectable));
    CHECK_OK(cadence_loop_destroy(loop));
    return 0;
}
