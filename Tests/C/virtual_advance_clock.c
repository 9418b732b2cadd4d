/* Seed article, a blocked thread in virtual time: cadence_loop_jump_clock moves the clock
 * without firing; the overdue 0.1 s timer then fires once, on its grid, with the skipped ticks
 * counted, and the grid resumes. Only virtual loops accept it. */
#include "timeline.h"

static void blocked_thread(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    timeline ticks = {.loop = loop};
    cadence_publisher timer;
    cadence_cancellable subscription, connection;
    CHECK_OK(cadence_publisher_create(loop, 0.1, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, timeline_tick, &ticks, &subscription));
    CHECK_OK(cadence_publisher_connect(timer, &connection));

    CHECK_OK(cadence_loop_run(loop, "default", 0.25));
    CHECK_TIMELINE(ticks, "0@100", "1@200");
    CHECK_OK(cadence_loop_jump_clock(loop, 0.55));  /* blocked for 550 ms */
    CHECK_EQ(ticks.count, 2);                  /* nothing fires while blocked */
    CHECK_EQ(to_ms(timeline_now(loop)), 800);
    CHECK_OK(cadence_loop_jump_clock(loop, 0));     /* a zero step is fine */

    CHECK_OK(cadence_loop_run(loop, "default", 0.35));
    /* One late fire for 0.3 to 0.8, reported at the latest grid point, then the grid again. */
    CHECK_TIMELINE(ticks, "0@100", "1@200", "2@800", "3@900", "4@1000", "5@1100");
    const uint64_t skipped[] = {0, 0, 5, 0, 0, 0};
    const long long ran_at[] = {100, 200, 800, 900, 1000, 1100};  /* the late one at once */
    for (int i = 0; i < 6; i++) {
        CHECK_EQ(ticks.skipped[i], skipped[i]);
        CHECK_EQ(ticks.ran_at[i], ran_at[i]);
    }
    CHECK_EQ(to_ms(timeline_now(loop)), 1150);

    /* Bad durations change nothing. */
    CHECK_ERR(cadence_loop_jump_clock(loop, NAN), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_jump_clock(loop, -0.1), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_jump_clock(loop, -INFINITY), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_jump_clock(loop, INFINITY), CADENCE_EINVAL);
    /* So do steps to the clock's end (2^64 - 1 ns, about 584 years), by advance or by run. */
    CHECK_ERR(cadence_loop_jump_clock(loop, 1e300), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_jump_clock(loop, 2e10), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_run(loop, "default", 2e10), CADENCE_EINVAL);
    CHECK_EQ(to_ms(timeline_now(loop)), 1150);
    CHECK_EQ(ticks.count, 6);

    CHECK_OK(cadence_cancel(connection));
    CHECK_OK(cadence_cancellable_release(connection));
    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_close(loop));
}

/* A real loop's clock cannot be moved. */
static void real_loop(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    CHECK_ERR(cadence_loop_jump_clock(loop, 0.5), CADENCE_ENOTSUP);
    CHECK_ERR(cadence_loop_jump_clock(loop, 0), CADENCE_ENOTSUP);
    CHECK_OK(cadence_loop_close(loop));
}

int main(void) {
    blocked_thread();
    real_loop();
    return 0;
}
