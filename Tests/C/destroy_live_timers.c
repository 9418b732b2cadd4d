/* Destroying a loop while its timers run (a connected publisher, an autoconnect publisher with a
 * subscriber, a pending one-shot) cancels them and frees everything, handles included, with no
 * release call from the program: the valgrind run of this test finds what is left behind. */
#include "recorder.h"

int main(void) {
    recorder ticks = {0};
    cadence_loop loop;
    cadence_publisher timer, shared;
    cadence_cancellable sub, connection, shared_sub, once;
    CHECK_OK(cadence_loop_create(&loop));
    ticks.loop = loop;
    CHECK_OK(cadence_timer_publish(loop, 0.01, 0, "default", &timer));
    CHECK_OK(cadence_publisher_autoconnect(timer, &shared));
    CHECK_OK(cadence_publisher_subscribe(timer, record_tick, &ticks, &sub));
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    CHECK_OK(cadence_publisher_subscribe(shared, record_tick, &ticks, &shared_sub));
    CHECK_OK(cadence_loop_schedule(loop, 10, 0, "default", record_tick, &ticks, &once));
    CHECK_OK(cadence_loop_run(loop, "default", 0.05));
    CHECK(ticks.count >= 2);                   /* the timers ran */

    CHECK_OK(cadence_loop_destroy(loop));
    int cancelled;
    CHECK_ERR(cadence_is_cancelled(connection, &cancelled), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_release(timer), CADENCE_EBADF);
    return 0;
}
