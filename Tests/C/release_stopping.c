/* cadence_cancellable_release_stopping: the release of cadence_cancellable_release, returning 1
 * only when it stopped work that was still going (what a binding warns about when its garbage
 * collector drops an active handle), on a virtual loop, for every kind of handle. */
#include "check.h"

static int ticks;

static void on_tick(const cadence_tick *tick, void *userdata) {
    (void)tick;
    (void)userdata;
    ticks++;
}

static void on_countdown(const cadence_countdown_event *event, void *userdata) {
    (void)event;
    (void)userdata;
}

static void on_poll(const cadence_poll *poll, void *userdata) {
    (void)userdata;
    CHECK_OK(cadence_poller_finish(poll->source, poll->number));
}

static cadence_cancellable repeating(cadence_loop loop) {
    cadence_cancellable h;
    CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick, NULL,
                                             &h));
    return h;
}

static void scheduled_timers(cadence_loop loop) {
    cadence_cancellable once, fired;
    CHECK_OK(cadence_loop_schedule(loop, 5, 0, "default", on_tick, NULL, &once));
    CHECK_OK(cadence_loop_schedule(loop, 0, 0, "default", on_tick, NULL, &fired));
    cadence_cancellable going = repeating(loop), cancelled = repeating(loop), detached = repeating(loop);
    CHECK_OK(cadence_loop_run(loop, "default", 1.5));
    CHECK_EQ(cadence_cancellable_release_stopping(going), 1);
    CHECK_EQ(cadence_cancellable_release_stopping(once), 0);   /* fire-and-forget: still armed */
    CHECK_EQ(cadence_cancellable_release_stopping(fired), 0);
    CHECK_OK(cadence_cancel(cancelled));
    CHECK_EQ(cadence_cancellable_release_stopping(cancelled), 0);
    CHECK_OK(cadence_cancellable_detach(detached));
    CHECK_EQ(cadence_cancellable_release_stopping(detached), 0);
    CHECK_ERR(cadence_cancellable_release_stopping(going), CADENCE_EBADF);
    CHECK_EQ(cadence_cancellable_release_stopping((cadence_cancellable){0}), 0);
    uint64_t armed = 0;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 2);  /* the one-shot and the detached timer */
    CHECK_OK(cadence_cancel(detached));  /* a released, detached handle stays its timer's source */
}

static void publishers(cadence_loop loop) {
    cadence_publisher timer;
    cadence_cancellable first, last, going, cancelled;
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, on_tick, NULL, &going));
    CHECK_OK(cadence_publisher_subscribe(timer, on_tick, NULL, &cancelled));
    CHECK_OK(cadence_publisher_connect(timer, &first));
    CHECK_OK(cadence_publisher_connect(timer, &last));  /* a second handle to the same connection */
    CHECK_OK(cadence_cancel(cancelled));
    CHECK_EQ(cadence_cancellable_release_stopping(cancelled), 0);
    CHECK_EQ(cadence_cancellable_release_stopping(going), 1);
    CHECK_EQ(cadence_cancellable_release_stopping(first), 0);  /* not the last handle */
    CHECK_EQ(cadence_cancellable_release_stopping(last), 1);   /* stopped the timer */
    CHECK_OK(cadence_publisher_release(timer));

    cadence_cancellable detached;
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &timer));
    CHECK_OK(cadence_publisher_connect(timer, &detached));
    CHECK_OK(cadence_cancellable_detach(detached));
    CHECK_EQ(cadence_cancellable_release_stopping(detached), 0);
    CHECK_OK(cadence_publisher_connect(timer, &detached));  /* the running connection, cancelled */
    CHECK_OK(cadence_cancel(detached));
    CHECK_EQ(cadence_cancellable_release_stopping(detached), 0);
    CHECK_OK(cadence_publisher_release(timer));
}

static void countdowns_and_pollers(cadence_loop loop) {
    double now = 0;
    CHECK_OK(cadence_loop_now(loop, &now));
    cadence_cancellable going, finished, poller, detached;
    CHECK_OK(cadence_countdown_start(loop, now + 10, 1, on_countdown, NULL, &going));
    CHECK_OK(cadence_countdown_start(loop, now + 1, 1, on_countdown, NULL, &finished));
    CHECK_OK(cadence_poller_start(loop, 1, 0, on_poll, NULL, &poller));
    CHECK_OK(cadence_poller_start(loop, 1, 0, on_poll, NULL, &detached));
    CHECK_OK(cadence_loop_run(loop, "default", 2));
    CHECK_EQ(cadence_cancellable_release_stopping(going), 1);
    CHECK_EQ(cadence_cancellable_release_stopping(finished), 0);
    CHECK_EQ(cadence_cancellable_release_stopping(poller), 1);
    CHECK_OK(cadence_cancellable_detach(detached));
    CHECK_EQ(cadence_cancellable_release_stopping(detached), 0);
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    scheduled_timers(loop);
    publishers(loop);
    countdowns_and_pollers(loop);
    uint64_t armed = 9;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 2);  /* the one-shot (due at 5 s) and the detached poller */
    CHECK_OK(cadence_loop_close(loop));
    CHECK(ticks > 0);
    return 0;
}
