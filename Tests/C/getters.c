/* The getters of what a registration was made with (publishers, countdowns, pollers) and of a
 * loop's own thread: each reads back what was given or last set, on a live handle whatever its
 * timer's state, and fails cleanly on NULL out, a stale or foreign handle and a destroyed loop. */
#include "check.h"

static void on_tick(const cadence_tick *tick, void *userdata) {
    (void)tick;
    (void)userdata;
}

static void on_count(const cadence_countdown_event *event, void *userdata) {
    (void)event;
    (void)userdata;
}

static void on_poll(const cadence_poll *poll, void *userdata) {
    (void)userdata;
    CHECK_OK(cadence_poller_finish(poll->source, poll->number));
}

static void check_publisher(cadence_publisher publisher, double interval, double tolerance, const char *mode,
                            int policy) {
    double seconds = -1;
    int value = -1;
    char name[256];
    CHECK_OK(cadence_publisher_interval(publisher, &seconds));
    CHECK(seconds == interval);
    CHECK_OK(cadence_publisher_tolerance(publisher, &seconds));
    CHECK(seconds == tolerance);
    CHECK_OK(cadence_publisher_missed_ticks(publisher, &value));
    CHECK_EQ(value, policy);
    CHECK_EQ(cadence_publisher_mode(publisher, name, sizeof name), (int)strlen(mode));
    CHECK_STR(name, mode);
}

static void publishers(cadence_loop loop) {
    cadence_publisher publisher, auto_publisher;
    CHECK_OK(cadence_loop_add_mode(loop, "tracking"));
    CHECK_OK(cadence_publisher_create(loop, 0.25, 0.0125, "tracking", &publisher));
    check_publisher(publisher, 0.25, 0.0125, "tracking", CADENCE_MISSED_TICKS_SKIP);
    CHECK_OK(cadence_publisher_set_missed_ticks(publisher, CADENCE_MISSED_TICKS_DELAY));
    check_publisher(publisher, 0.25, 0.0125, "tracking", CADENCE_MISSED_TICKS_DELAY);
    CHECK_ERR(cadence_publisher_set_missed_ticks(publisher, 7), CADENCE_EINVAL);
    check_publisher(publisher, 0.25, 0.0125, "tracking", CADENCE_MISSED_TICKS_DELAY);  /* unchanged */

    /* An autoconnect publisher has its maker's settings, then its own policy. */
    CHECK_OK(cadence_publisher_autoconnect(publisher, &auto_publisher));
    check_publisher(auto_publisher, 0.25, 0.0125, "tracking", CADENCE_MISSED_TICKS_DELAY);
    CHECK_OK(cadence_publisher_set_missed_ticks(auto_publisher, CADENCE_MISSED_TICKS_BURST));
    check_publisher(auto_publisher, 0.25, 0.0125, "tracking", CADENCE_MISSED_TICKS_BURST);
    check_publisher(publisher, 0.25, 0.0125, "tracking", CADENCE_MISSED_TICKS_DELAY);

    /* Readable while connected and once cancelled. */
    cadence_cancellable connection, subscription;
    CHECK_OK(cadence_publisher_subscribe(publisher, on_tick, NULL, &subscription));
    CHECK_OK(cadence_publisher_connect(publisher, &connection));
    check_publisher(publisher, 0.25, 0.0125, "tracking", CADENCE_MISSED_TICKS_DELAY);
    CHECK_OK(cadence_cancel(connection));
    check_publisher(publisher, 0.25, 0.0125, "tracking", CADENCE_MISSED_TICKS_DELAY);

    /* The mode as snprintf: cut to the buffer, length always the whole name's. */
    char small[4] = {'x', 'x', 'x', 'x'};
    CHECK_EQ(cadence_publisher_mode(publisher, small, sizeof small), 8);
    CHECK_STR(small, "tra");
    CHECK_EQ(cadence_publisher_mode(publisher, NULL, 0), 8);
    CHECK_EQ(cadence_publisher_mode(publisher, small, 1), 8);
    CHECK_STR(small, "");
    CHECK_ERR_MSG(cadence_publisher_mode(publisher, NULL, 4), CADENCE_EINVAL,
                  "cadence_publisher_mode: buffer must not be NULL, got NULL");

    /* NULL out, then a cancellable handle passed as a publisher. */
    CHECK_ERR_MSG(cadence_publisher_interval(publisher, NULL), CADENCE_EINVAL,
                  "cadence_publisher_interval: out must not be NULL, got NULL");
    CHECK_ERR(cadence_publisher_tolerance(publisher, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_publisher_missed_ticks(publisher, NULL), CADENCE_EINVAL);
    double seconds = 42;
    CHECK_ERR(cadence_publisher_interval((cadence_publisher){subscription.id}, &seconds), CADENCE_EBADF);
    CHECK(seconds == 42);  /* a failed call writes nothing */

    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_cancellable_release(connection));
    CHECK_OK(cadence_publisher_release(auto_publisher));
    CHECK_OK(cadence_publisher_release(publisher));
    /* Stale: released handles fail, and write nothing. */
    int value = 42;
    CHECK_ERR(cadence_publisher_interval(publisher, &seconds), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_tolerance(auto_publisher, &seconds), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_missed_ticks(publisher, &value), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_mode(publisher, small, sizeof small), CADENCE_EBADF);
    CHECK(seconds == 42 && value == 42);
    CHECK_ERR(cadence_publisher_interval((cadence_publisher){0}, &seconds), CADENCE_EBADF);
}

static void countdowns_and_pollers(cadence_loop loop) {
    cadence_cancellable countdown, poller, timer;
    double seconds = -1;
    CHECK_OK(cadence_countdown_start(loop, 3, 0.25, on_count, NULL, &countdown));
    CHECK_OK(cadence_poller_start(loop, 30, CADENCE_TOLERANCE_DEFAULT, on_poll, NULL, &poller));
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", on_tick, NULL, &timer));
    CHECK_OK(cadence_countdown_deadline(countdown, &seconds));
    CHECK(seconds == 3);
    CHECK_OK(cadence_countdown_tick(countdown, &seconds));
    CHECK(seconds == 0.25);
    CHECK_OK(cadence_poller_interval(poller, &seconds));
    CHECK(seconds == 30);
    CHECK_OK(cadence_poller_tolerance(poller, &seconds));
    CHECK(seconds == 3);

    /* Still readable once finished (the countdown) or paused (the poller). */
    CHECK_OK(cadence_poller_set_active(poller, 0));
    CHECK_OK(cadence_loop_run(loop, "default", 5));
    int cancelled = 0;
    CHECK_OK(cadence_is_cancelled(countdown, &cancelled));
    CHECK_EQ(cancelled, 1);
    CHECK_OK(cadence_countdown_deadline(countdown, &seconds));
    CHECK(seconds == 3);
    CHECK_OK(cadence_poller_interval(poller, &seconds));
    CHECK(seconds == 30);

    /* NULL out, and handles of other kinds: a poller is no countdown, a timer neither. */
    CHECK_ERR_MSG(cadence_countdown_deadline(countdown, NULL), CADENCE_EINVAL,
                  "cadence_countdown_deadline: out must not be NULL, got NULL");
    CHECK_ERR(cadence_countdown_tick(countdown, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_poller_interval(poller, NULL), CADENCE_EINVAL);
    seconds = 42;
    CHECK_ERR(cadence_countdown_deadline(poller, &seconds), CADENCE_EBADF);
    CHECK_ERR(cadence_countdown_tick(timer, &seconds), CADENCE_EBADF);
    CHECK_ERR(cadence_poller_interval(countdown, &seconds), CADENCE_EBADF);
    CHECK_ERR(cadence_poller_interval(timer, &seconds), CADENCE_EBADF);
    CHECK(seconds == 42);

    CHECK_OK(cadence_cancellable_release(countdown));
    CHECK_OK(cadence_cancellable_release(poller));
    CHECK_ERR(cadence_countdown_deadline(countdown, &seconds), CADENCE_EBADF);
    CHECK_ERR(cadence_poller_interval(poller, &seconds), CADENCE_EBADF);
    CHECK(seconds == 42);
    CHECK_OK(cadence_cancellable_release(timer));
}

static void own_thread(void) {
    cadence_loop loop;
    int value = -1;
    CHECK_OK(cadence_loop_create(&loop));
    CHECK_OK(cadence_loop_has_thread(loop, &value));
    CHECK_EQ(value, 0);
    CHECK_OK(cadence_loop_start_thread(loop, "default"));
    CHECK_OK(cadence_loop_has_thread(loop, &value));
    CHECK_EQ(value, 1);
    CHECK_OK(cadence_loop_stop_thread(loop));
    CHECK_OK(cadence_loop_has_thread(loop, &value));
    CHECK_EQ(value, 0);
    CHECK_ERR_MSG(cadence_loop_has_thread(loop, NULL), CADENCE_EINVAL,
                  "cadence_loop_has_thread: out must not be NULL, got NULL");
    CHECK_OK(cadence_loop_close(loop));
    value = 42;
    CHECK_ERR(cadence_loop_has_thread(loop, &value), CADENCE_EBADF);
    CHECK_EQ(value, 42);
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    publishers(loop);
    countdowns_and_pollers(loop);

    /* Handles of a destroyed loop fail like stale ones. */
    cadence_publisher publisher;
    cadence_cancellable countdown;
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &publisher));
    CHECK_OK(cadence_countdown_start(loop, 10, 1, on_count, NULL, &countdown));
    CHECK_OK(cadence_loop_close(loop));
    double seconds = 42;
    CHECK_ERR(cadence_publisher_interval(publisher, &seconds), CADENCE_EBADF);
    CHECK_ERR(cadence_countdown_tick(countdown, &seconds), CADENCE_EBADF);
    CHECK(seconds == 42);

    own_thread();
    puts("getters: ok");
    return 0;
}
