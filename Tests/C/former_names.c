/* The former names (cadence.h, "Former names": deprecated in 0.4, removed in 0.5) still
 * do what their new names do, and an error names the function the program called. Their
 * deprecation warning is checked by the test c.former_names_warn (CMakeLists.txt), which compiles
 * this file without the pragma below. */
#include "check.h"

#ifndef CADENCE_EXPECT_DEPRECATION_WARNINGS
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

static int ticks;
static void on_tick(const cadence_tick *tick, void *userdata) {
    (void)tick;
    (void)userdata;
    ticks++;
}

int main(void) {
    cadence_loop loop;
    CHECK_ERR(cadence_loop_create_virtual(&loop), 0);
    cadence_publisher publisher;
    CHECK_ERR(cadence_timer_publish(loop, 0.1, 0, "default", &publisher), 0);  /* cadence_publisher_create */
    cadence_cancellable subscription, connection;
    CHECK_ERR(cadence_publisher_subscribe(publisher, on_tick, NULL, &subscription), 0);
    CHECK_ERR(cadence_publisher_connect(publisher, &connection), 0);
    CHECK_ERR(cadence_loop_advance_clock(loop, 0.55), 0);  /* cadence_loop_jump_clock: fires nothing */
    CHECK_EQ(ticks, 0);
    double now = 0;
    CHECK_ERR(cadence_loop_now(loop, &now), 0);
    CHECK_EQ((long long)(now * 1000 + 0.5), 550);
    CHECK_ERR(cadence_loop_run(loop, "default", 0), 0);
    CHECK_EQ(ticks, 1);  /* the overdue timer fires once */

    CHECK_ERR_MSG(cadence_timer_publish(loop, 0, 0, "default", &publisher), CADENCE_EINVAL,
                  "cadence_timer_publish: interval must be > 0 and finite, got 0.0");
    CHECK_ERR(cadence_loop_advance_clock(loop, -1), CADENCE_EINVAL);
    CHECK(strncmp(cadence_last_error_message(), "cadence_loop_advance_clock: ", 28) == 0);

    CHECK_ERR(cadence_publisher_release(publisher), 0);
    CHECK_ERR(cadence_cancellable_release(subscription), 0);
    CHECK_ERR(cadence_cancellable_release(connection), 0);
    CHECK_ERR(cadence_loop_destroy(loop), 0);  /* cadence_loop_close */
    CHECK_ERR(cadence_loop_destroy(loop), CADENCE_EBADF);
    CHECK(strncmp(cadence_last_error_message(), "cadence_loop_destroy: ", 22) == 0);
    return 0;
}
