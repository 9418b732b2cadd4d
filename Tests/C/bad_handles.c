/* Bad handles to every function of cadence.h that takes one: zero, made up, stale after release,
 * released twice, of the wrong kind, forged from a live one, or belonging to a destroyed loop.
 * Each gives CADENCE_EBADF (releasing a zero handle is a no-op), never calls a callback, and
 * disturbs nothing else. */
#include "recorder.h"

static recorder never;  /* the callback passed with bad handles; must stay at 0 */
/* Countdown and poll callbacks that count into a recorder. */
static void count_countdown(const cadence_countdown_event *event, void *userdata) { (void)event; ((recorder *)userdata)->count++; }
static void count_poll(const cadence_poll *poll, void *userdata) { (void)poll; ((recorder *)userdata)->count++; }

static void check_bad_loop(cadence_loop loop) {
    double now;
    uint64_t wakeups, armed;
    cadence_publisher publisher;
    cadence_cancellable cancellable;
    CHECK_ERR(cadence_loop_close(loop), loop.id ? CADENCE_EBADF : 0);
    CHECK_ERR(cadence_loop_run(loop, "default", 0), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_stop(loop), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_add_mode(loop, "custom"), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_add_common_mode(loop, "custom"), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_now(loop, &now), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_wakeups(loop, &wakeups), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_create(loop, 0.1, 0, "default", &publisher), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_schedule(loop, 0, 0, "default", record_tick, &never, &cancellable), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_armed_timers(loop, &armed), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_start_thread(loop, "default"), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_stop_thread(loop), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_jump_clock(loop, 1), CADENCE_EBADF);
    CHECK_ERR(cadence_loop_age_timer_slots(loop, 1), CADENCE_EBADF);
    CHECK_ERR(cadence_countdown_start(loop, 3, 0.25, count_countdown, &never, &cancellable), CADENCE_EBADF);
    CHECK_ERR(cadence_countdown_start(loop, -3, 0.25, count_countdown, &never, &cancellable), CADENCE_EBADF);
    CHECK_ERR(cadence_poller_start(loop, 30, CADENCE_TOLERANCE_DEFAULT, count_poll, &never, &cancellable), CADENCE_EBADF);
}

/* The poller functions with anything but a live poller. */
static void check_not_poller(cadence_cancellable cancellable) {
    double tolerance;
    CHECK_ERR(cadence_poller_finish(cancellable, 1), CADENCE_EBADF);
    CHECK_ERR(cadence_poller_set_active(cancellable, 0), CADENCE_EBADF);
    CHECK_ERR(cadence_poller_set_active(cancellable, 1), CADENCE_EBADF);
    CHECK_ERR(cadence_poller_tolerance(cancellable, &tolerance), CADENCE_EBADF);
    int active;
    CHECK_ERR(cadence_poller_active(cancellable, &active), CADENCE_EBADF);
}

static void check_bad_publisher(cadence_publisher publisher) {
    cadence_publisher autoconnect;
    cadence_cancellable cancellable;
    CHECK_ERR(cadence_publisher_autoconnect(publisher, &autoconnect), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_subscribe(publisher, record_tick, &never, &cancellable), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_connect(publisher, &cancellable), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_release(publisher), publisher.id ? CADENCE_EBADF : 0);
}

static void check_bad_cancellable(cadence_cancellable cancellable) {
    int cancelled;
    check_not_poller(cancellable);
    CHECK_ERR(cadence_cancel(cancellable), CADENCE_EBADF);
    CHECK_ERR(cadence_is_cancelled(cancellable, &cancelled), CADENCE_EBADF);
    CHECK_ERR(cadence_cancellable_release(cancellable), cancellable.id ? CADENCE_EBADF : 0);
}

/* Zero and made-up ids: slot 0, generation 0 (never issued), a slot never used, all bits. */
static void made_up_handles(void) {
    static const uint64_t ids[] = {0, 1, 0x1ull << 32, (0x1ull << 32) | 100000, 0xdeadbeefcafef00dull, UINT64_MAX};
    for (int i = 0; i < (int)(sizeof ids / sizeof *ids); i++) {
        check_bad_loop((cadence_loop){ids[i]});
        check_bad_publisher((cadence_publisher){ids[i]});
        check_bad_cancellable((cadence_cancellable){ids[i]});
    }
}

/* Live handles used as the wrong kind, then stale handles after release, also once the slot is
 * reused by a new object. */
static void wrong_kind_and_stale(cadence_loop loop) {
    cadence_publisher publisher;
    cadence_cancellable once, subscription, countdown, poller;
    CHECK_OK(cadence_publisher_create(loop, 0.1, 0, "default", &publisher));
    CHECK_OK(cadence_publisher_subscribe(publisher, record_tick, &never, &subscription));
    CHECK_OK(cadence_loop_schedule(loop, 10, 0, "default", record_tick, &never, &once));
    recorder first_value = {0};
    CHECK_OK(cadence_countdown_start(loop, loop_now(loop) + 100, 10, count_countdown, &first_value, &countdown));
    CHECK_EQ(first_value.count, 0);            /* the first value comes on the next pass, not now */
    CHECK_OK(cadence_poller_start(loop, 100, CADENCE_TOLERANCE_DEFAULT, count_poll, &never, &poller));
    cadence_cancellable cancellables[] = {once, subscription, countdown, poller};
    for (int i = 0; i < 4; i++) {
        check_bad_loop((cadence_loop){cancellables[i].id});
        check_bad_publisher((cadence_publisher){cancellables[i].id});
    }
    check_bad_loop((cadence_loop){publisher.id});
    check_bad_publisher((cadence_publisher){loop.id});
    check_bad_cancellable((cadence_cancellable){loop.id});
    check_bad_cancellable((cadence_cancellable){publisher.id});
    check_not_poller(once);                    /* live cancellables of other kinds */
    check_not_poller(subscription);
    check_not_poller(countdown);

    CHECK_OK(cadence_publisher_release(publisher));
    CHECK_OK(cadence_cancel(once));
    CHECK_OK(cadence_cancellable_release(once));
    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_cancellable_release(countdown));
    CHECK_OK(cadence_cancellable_release(poller));
    check_bad_publisher(publisher);            /* also releases it a second time */
    for (int i = 0; i < 4; i++) check_bad_cancellable(cancellables[i]);
    CHECK_EQ(first_value.count, 0);            /* released before any pass */

    cadence_publisher reused;
    cadence_cancellable reused_poller;
    CHECK_OK(cadence_publisher_create(loop, 0.1, 0, "default", &reused));
    CHECK_OK(cadence_poller_start(loop, 100, 0, count_poll, &never, &reused_poller));
    check_bad_publisher(publisher);
    check_bad_cancellable(poller);
    CHECK_OK(cadence_publisher_release(reused));
    CHECK_OK(cadence_cancellable_release(reused_poller));
}

/* Ids that no call ever issued but that look like a live timer's handle: its id with any of bits
 * 60 to 63 set (a scheduled timer's handle is below 2^60, tagged by bit 59; earlier versions
 * tagged bit 63). None names the timer: each is CADENCE_EBADF for every call, and the timer stays
 * armed. */
static void forged_timer_handles(cadence_loop loop) {
    cadence_cancellable once;
    CHECK_OK(cadence_loop_schedule(loop, 10, 0, "default", record_tick, &never, &once));
    CHECK(once.id >> 59 == 1);                 /* the form of a timer's handle */
    for (int bit = 60; bit < 64; bit++) {
        cadence_cancellable forged = {once.id | 1ull << bit};
        double seconds;
        int flag;
        CHECK_ERR(cadence_timer_fire_date(forged, &seconds), CADENCE_EBADF);
        CHECK_ERR(cadence_timer_interval(forged, &seconds), CADENCE_EBADF);
        CHECK_ERR(cadence_timer_has_ref(forged, &flag), CADENCE_EBADF);
        CHECK_ERR(cadence_timer_unref(forged), CADENCE_EBADF);
        CHECK_ERR(cadence_timer_reset(forged, 1), CADENCE_EBADF);
        CHECK_ERR(cadence_cancellable_detach(forged), CADENCE_EBADF);
        check_bad_cancellable(forged);         /* cancel, is_cancelled, release */
    }
    /* The form earlier versions issued: bit 63 instead of bit 59. */
    check_bad_cancellable((cadence_cancellable){(once.id & ~(1ull << 59)) | 1ull << 63});
    double fire_date;
    CHECK_OK(cadence_timer_fire_date(once, &fire_date));
    CHECK(fire_date > 0);
    CHECK_OK(cadence_cancel(once));            /* still armed: none of the above stopped it */
    CHECK_OK(cadence_cancellable_release(once));
}

/* Every handle of a destroyed loop is stale: its publishers, subscriptions, connections and
 * one-shots (destroy_live_timers.c destroys a loop whose timers are still running). */
static void destroyed_loop(void) {
    recorder ticks = {0};
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
    CHECK_OK(cadence_loop_schedule(loop, 0.01, 0, "default", record_tick, &ticks, &once));
    CHECK_OK(cadence_countdown_start(loop, loop_now(loop) + 100, 10, count_countdown, &ticks, &countdown));
    CHECK_OK(cadence_poller_start(loop, 100, CADENCE_TOLERANCE_DEFAULT, count_poll, &ticks, &poller));
    CHECK_OK(cadence_loop_run(loop, "default", 0.05));
    CHECK(ticks.count >= 2);                   /* the timers ran */
    CHECK_OK(cadence_cancel(connection));
    CHECK_OK(cadence_loop_close(loop));

    check_bad_loop(loop);                      /* also destroys it a second time */
    check_bad_publisher(timer);
    check_bad_publisher(shared);
    check_bad_cancellable(sub);
    check_bad_cancellable(connection);
    check_bad_cancellable(shared_sub);
    check_bad_cancellable(once);
    check_bad_cancellable(countdown);
    check_bad_cancellable(poller);

    CHECK_OK(cadence_loop_create_virtual(&loop));  /* and a virtual loop */
    CHECK_OK(cadence_loop_close(loop));
    check_bad_loop(loop);
}

/* The messages name the function, the argument and the handle. */
static void messages(void) {
    double now;
    CHECK_ERR_MSG(cadence_loop_now((cadence_loop){0x100000007ull}, &now), CADENCE_EBADF,
                  "cadence_loop_now: loop must be a live loop handle, got 0x100000007 "
                  "(released, destroyed with its loop, of another kind, or never made)");
    cadence_loop loop;
    cadence_publisher publisher;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &publisher));
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", record_tick, &never, &timer));
    CHECK_OK(cadence_publisher_release(publisher));
    CHECK_OK(cadence_cancellable_release(timer));
    /* A release of a stale handle (a finalizer's, at any moment) leaves the message of the failure
     * before it, which the failing code may be about to read. */
    const char *expected = "cadence_publisher_create: interval must be > 0 and finite, got 0.0";
    CHECK_ERR_MSG(cadence_publisher_create(loop, 0, 0, "default", &publisher), CADENCE_EINVAL, expected);
    CHECK_ERR(cadence_publisher_release(publisher), CADENCE_EBADF);
    CHECK_ERR(cadence_cancellable_release(timer), CADENCE_EBADF);
    CHECK_STR(cadence_last_error_message(), expected);
    CHECK_OK(cadence_loop_close(loop));
    char destroyed[256];
    snprintf(destroyed, sizeof destroyed, "cadence_loop_run: loop must be a live loop handle, got 0x%llx "
             "(released, destroyed with its loop, of another kind, or never made)", (unsigned long long)loop.id);
    CHECK_ERR_MSG(cadence_loop_run(loop, "default", 1), CADENCE_EBADF, destroyed);  /* a destroyed loop */
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    never.loop = loop;
    made_up_handles();
    wrong_kind_and_stale(loop);
    forged_timer_handles(loop);
    destroyed_loop();
    messages();

    CHECK_OK(cadence_loop_run(loop, "default", 0.02));
    CHECK_EQ(never.count, 0);
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
