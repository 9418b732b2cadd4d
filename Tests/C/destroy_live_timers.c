/* Destroying a loop while its timers run (a connected publisher, an autoconnect publisher with a
 * subscriber, a pending one-shot, a countdown, a poller with a poll in flight) cancels them and
 * frees everything, handles included, with no release call from the program: the valgrind run of
 * this test finds what is left behind. A virtual loop the same. */
#include "recorder.h"

static void count_countdown(const cadence_countdown_event *event, void *userdata) { (void)event; ((recorder *)userdata)->count++; }
static void count_poll(const cadence_poll *poll, void *userdata) { (void)poll; ((recorder *)userdata)->count++; }  /* never finished */

static void real_loop(void) {
    recorder ticks = {0}, countdown_calls = {0}, polls = {0};
    cadence_loop loop;
    cadence_publisher timer, shared;
    cadence_cancellable sub, connection, shared_sub, once, countdown, poller;
    CHECK_OK(cadence_loop_create(&loop));
    ticks.loop = loop;
    CHECK_OK(cadence_publisher_create(loop, 0.01, 0, "default", &timer));
    CHECK_OK(cadence_publisher_autoconnect(timer, &shared));
    CHECK_OK(cadence_publisher_subscribe(timer, record_tick, &ticks, &sub));
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    CHECK_OK(cadence_publisher_subscribe(shared, record_tick, &ticks, &shared_sub));
    CHECK_OK(cadence_loop_schedule(loop, 10, 0, "default", record_tick, &ticks, &once));
    CHECK_OK(cadence_countdown_start(loop, loop_now(loop) + 10, 0.01, count_countdown, &countdown_calls, &countdown));
    CHECK_OK(cadence_poller_start(loop, 0.01, 0, count_poll, &polls, &poller));
    CHECK_OK(cadence_loop_run(loop, "default", 0.05));
    CHECK(ticks.count >= 2);                   /* the timers ran */
    CHECK_EQ(countdown_calls.count, 1);        /* 10, and no change yet */
    CHECK_EQ(polls.count, 1);                  /* the first poll is still running */

    CHECK_OK(cadence_loop_close(loop));
    int cancelled;
    CHECK_ERR(cadence_is_cancelled(connection, &cancelled), CADENCE_EBADF);
    CHECK_ERR(cadence_is_cancelled(countdown, &cancelled), CADENCE_EBADF);
    CHECK_ERR(cadence_poller_finish(poller, 1), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_release(timer), CADENCE_EBADF);
}

static void virtual_loop(void) {
    recorder countdown_calls = {0}, polls = {0};
    cadence_loop loop;
    cadence_cancellable countdown, poller, paused;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_countdown_start(loop, 10, 0.25, count_countdown, &countdown_calls, &countdown));
    CHECK_OK(cadence_poller_start(loop, 1, CADENCE_TOLERANCE_DEFAULT, count_poll, &polls, &poller));
    CHECK_OK(cadence_poller_start(loop, 1, 0, count_poll, &polls, &paused));
    CHECK_OK(cadence_poller_set_active(paused, 0));
    CHECK_OK(cadence_loop_run(loop, "default", 2.5));
    CHECK_EQ(countdown_calls.count, 3);        /* 10, 9, 8 */
    CHECK_EQ(polls.count, 1);
    CHECK_OK(cadence_loop_close(loop));
    CHECK_ERR(cadence_cancel(countdown), CADENCE_EBADF);
    CHECK_ERR(cadence_cancellable_release(poller), CADENCE_EBADF);
    CHECK_ERR(cadence_poller_set_active(paused, 1), CADENCE_EBADF);
}

int main(void) {
    real_loop();
    virtual_loop();
    return 0;
}
