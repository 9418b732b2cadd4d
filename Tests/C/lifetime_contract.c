/* The lifetime contract (docs/c-api.md, "Lifetimes"), one case per cell of its table, on a
 * virtual loop with exact fire dates; the Swift (LifetimeContractTests) and Python suites run the
 * same cases under the same names. "Give up" is cadence_cancellable_release /
 * cadence_publisher_release; "detach" is cadence_cancellable_detach. Timelines are "n@ms" (the
 * n-th fire, counting from 0, at its fire date in virtual milliseconds).
 *
 * Usage: c_lifetime_contract [case ...] [-case ...]: the named cases, or every case but those
 * named with a leading '-'. */
#include "timeline.h"

static cadence_loop new_loop(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    return loop;
}

/* Runs the loop in "default" until its clock reads `seconds`. */
static void run_to(cadence_loop loop, double seconds) {
    CHECK_OK(cadence_loop_run(loop, "default", seconds - timeline_now(loop)));
}

static int is_cancelled(cadence_cancellable handle) {
    int cancelled = -1;
    CHECK_OK(cadence_is_cancelled(handle, &cancelled));
    return cancelled;
}

/* ---- One-shot scheduled timer ---- */

static void one_shot_cancel(void) {
    cadence_loop loop = new_loop();
    timeline fires = {.loop = loop};
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", timeline_tick, &fires, &timer));
    CHECK_OK(cadence_cancel(timer));
    CHECK_ERR(cadence_cancel(timer), CADENCE_EALREADY);
    run_to(loop, 2);
    CHECK_EQ(fires.count, 0);
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_OK(cadence_loop_close(loop));
}

static void one_shot_give_up(void) {
    cadence_loop loop = new_loop();
    timeline fires = {.loop = loop};
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", timeline_tick, &fires, &timer));
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_EQ(armed_timers(loop), 1);                       /* fire-and-forget */
    run_to(loop, 2);
    CHECK_TIMELINE(fires, "0@1000");
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_close(loop));
}

static void one_shot_detach(void) {
    cadence_loop loop = new_loop();
    timeline fires = {.loop = loop};
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", timeline_tick, &fires, &timer));
    CHECK_OK(cadence_cancellable_detach(timer));
    CHECK_OK(cadence_cancellable_release(timer));
    run_to(loop, 2);
    CHECK_TIMELINE(fires, "0@1000");
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_close(loop));
}

/* ---- Repeating scheduled timer ---- */

static cadence_cancellable every_second(cadence_loop loop, timeline *fires) {
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             timeline_tick, fires, &timer));
    return timer;
}

static void repeating_cancel(void) {
    cadence_loop loop = new_loop();
    timeline fires = {.loop = loop};
    cadence_cancellable timer = every_second(loop, &fires);
    run_to(loop, 2.5);
    CHECK_TIMELINE(fires, "0@1000", "1@2000");
    CHECK_OK(cadence_cancel(timer));
    run_to(loop, 5);
    CHECK_TIMELINE(fires, "0@1000", "1@2000");
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_OK(cadence_loop_close(loop));
}

static void repeating_give_up(void) {
    cadence_loop loop = new_loop();
    timeline fires = {.loop = loop};
    cadence_cancellable timer = every_second(loop, &fires);
    run_to(loop, 2.5);
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_EQ(armed_timers(loop), 0);
    run_to(loop, 5);
    CHECK_TIMELINE(fires, "0@1000", "1@2000");
    CHECK_OK(cadence_loop_close(loop));
}

static void repeating_detach(void) {
    cadence_loop loop = new_loop();
    timeline fires = {.loop = loop};
    cadence_cancellable timer = every_second(loop, &fires);
    CHECK_OK(cadence_cancellable_detach(timer));
    CHECK_OK(cadence_cancellable_detach(timer));           /* a second detach is a no-op */
    run_to(loop, 2.5);
    CHECK_OK(cadence_cancellable_release(timer));
    run_to(loop, 5);
    CHECK_TIMELINE(fires, "0@1000", "1@2000", "2@3000", "3@4000", "4@5000");
    CHECK_EQ(armed_timers(loop), 1);
    CHECK_ERR(cadence_cancellable_detach(timer), CADENCE_EBADF);  /* released: a dead handle */
    CHECK_OK(cadence_loop_close(loop));
}

/* ---- Publisher and connection ---- */

static void publisher_give_up(void) {
    cadence_loop loop = new_loop();
    timeline fires = {.loop = loop};
    cadence_publisher publisher;
    cadence_cancellable subscription, connection;
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &publisher));
    CHECK_OK(cadence_publisher_subscribe(publisher, timeline_tick, &fires, &subscription));
    CHECK_OK(cadence_publisher_connect(publisher, &connection));
    CHECK_OK(cadence_publisher_release(publisher));
    run_to(loop, 2.5);
    CHECK_TIMELINE(fires, "0@1000", "1@2000");
    CHECK_EQ(is_cancelled(subscription), 0);
    CHECK_OK(cadence_cancellable_release(connection));
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_EQ(is_cancelled(subscription), 1);               /* nothing can make it tick again */
    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_loop_close(loop));
}

/* A connectable publisher every second with one subscriber, connected. */
typedef struct connected {
    cadence_loop loop;
    timeline fires;
    cadence_publisher publisher;
    cadence_cancellable subscription, connection;
} connected;

static void connect_every_second(connected *c) {
    c->loop = new_loop();
    c->fires = (timeline){.loop = c->loop};
    CHECK_OK(cadence_publisher_create(c->loop, 1, 0, "default", &c->publisher));
    CHECK_OK(cadence_publisher_subscribe(c->publisher, timeline_tick, &c->fires, &c->subscription));
    CHECK_OK(cadence_publisher_connect(c->publisher, &c->connection));
}

static void release_connected(connected *c) {
    CHECK_OK(cadence_cancellable_release(c->subscription));
    CHECK_OK(cadence_publisher_release(c->publisher));
    CHECK_OK(cadence_loop_close(c->loop));
}

static void connection_cancel(void) {
    connected c;
    connect_every_second(&c);
    run_to(c.loop, 2.5);
    CHECK_TIMELINE(c.fires, "0@1000", "1@2000");
    CHECK_OK(cadence_cancel(c.connection));
    /* Nothing can make it tick again, though the publisher and the connection are held. */
    CHECK_EQ(is_cancelled(c.subscription), 1);
    CHECK_ERR(cadence_cancel(c.subscription), CADENCE_EALREADY);
    run_to(c.loop, 5);
    CHECK_TIMELINE(c.fires, "0@1000", "1@2000");
    CHECK_EQ(armed_timers(c.loop), 0);
    CHECK_OK(cadence_cancellable_release(c.connection));
    release_connected(&c);
}

static void connection_give_up(void) {
    connected c;
    connect_every_second(&c);
    cadence_cancellable second;
    CHECK_OK(cadence_publisher_connect(c.publisher, &second));  /* a handle to the same connection */
    CHECK(second.id != c.connection.id);
    CHECK_EQ(armed_timers(c.loop), 1);
    run_to(c.loop, 2.5);
    CHECK_OK(cadence_cancellable_release(c.connection));
    run_to(c.loop, 3.5);
    CHECK_TIMELINE(c.fires, "0@1000", "1@2000", "2@3000");
    CHECK_EQ(armed_timers(c.loop), 1);
    CHECK_OK(cadence_cancellable_release(second));         /* the last handle */
    CHECK_EQ(armed_timers(c.loop), 0);
    run_to(c.loop, 5);
    CHECK_TIMELINE(c.fires, "0@1000", "1@2000", "2@3000");
    release_connected(&c);
}

static void connection_detach(void) {
    connected c;
    connect_every_second(&c);
    CHECK_OK(cadence_cancellable_detach(c.connection));
    run_to(c.loop, 2.5);
    CHECK_OK(cadence_cancellable_release(c.connection));
    run_to(c.loop, 5);
    CHECK_TIMELINE(c.fires, "0@1000", "1@2000", "2@3000", "3@4000", "4@5000");
    CHECK_EQ(armed_timers(c.loop), 1);
    release_connected(&c);
}

/* ---- Subscription ---- */

/* An autoconnect publisher every second with one subscriber; `end` ends the subscription at
 * 2.5 s (0 cancel, 1 release, 2 detach and release); the run goes on to 5 s. */
static void subscription_case(int end, int expected_fires, uint64_t expected_armed) {
    cadence_loop loop = new_loop();
    timeline fires = {.loop = loop};
    cadence_publisher publisher, shared;
    cadence_cancellable subscription;
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &publisher));
    CHECK_OK(cadence_publisher_autoconnect(publisher, &shared));
    CHECK_OK(cadence_publisher_subscribe(shared, timeline_tick, &fires, &subscription));
    run_to(loop, 2.5);
    CHECK_TIMELINE(fires, "0@1000", "1@2000");
    if (end == 0) CHECK_OK(cadence_cancel(subscription));
    if (end == 2) CHECK_OK(cadence_cancellable_detach(subscription));
    CHECK_OK(cadence_cancellable_release(subscription));
    run_to(loop, 5);
    CHECK_EQ(fires.count, expected_fires);
    CHECK_EQ(armed_timers(loop), expected_armed);
    if (expected_fires == 5) CHECK_TIMELINE(fires, "0@1000", "1@2000", "2@3000", "3@4000", "4@5000");
    CHECK_OK(cadence_publisher_release(shared));
    CHECK_OK(cadence_publisher_release(publisher));
    CHECK_OK(cadence_loop_close(loop));
}

static void subscription_cancel(void) { subscription_case(0, 2, 0); }
static void subscription_give_up(void) { subscription_case(1, 2, 0); }
static void subscription_detach(void) { subscription_case(2, 5, 1); }

/* ---- Countdown ---- */

/* A countdown to 5 s ticking every second; `end` as for subscription_case at 2.5 s; run to 10 s. */
static timeline countdown_case(int end) {
    cadence_loop loop = new_loop();
    timeline values = {.loop = loop};
    cadence_cancellable countdown;
    CHECK_OK(cadence_countdown_start(loop, 5, 1, timeline_countdown, &values, &countdown));
    run_to(loop, 2.5);
    CHECK_TIMELINE(values, "5@0", "4@1000", "3@2000");
    CHECK_EQ(armed_timers(loop), 2);                       /* the tick and the deadline */
    if (end == 0) CHECK_OK(cadence_cancel(countdown));
    if (end == 2) CHECK_OK(cadence_cancellable_detach(countdown));
    CHECK_OK(cadence_cancellable_release(countdown));
    run_to(loop, 10);
    CHECK_EQ(armed_timers(loop), 0);
    int cancelled;  /* freed: by the release, or (detached) once it finished */
    CHECK_ERR(cadence_is_cancelled(countdown, &cancelled), CADENCE_EBADF);
    CHECK_OK(cadence_loop_close(loop));
    return values;
}

static void countdown_cancel(void) {
    timeline values = countdown_case(0);
    CHECK_TIMELINE(values, "5@0", "4@1000", "3@2000");
}

static void countdown_give_up(void) {
    timeline values = countdown_case(1);
    CHECK_TIMELINE(values, "5@0", "4@1000", "3@2000");
}

static void countdown_detach(void) {
    timeline values = countdown_case(2);
    CHECK_TIMELINE(values, "5@0", "4@1000", "3@2000", "2@3000", "1@4000", "0@5000", "|@5000");
}

/* ---- Poller ---- */

/* A cadence_poll_fn that finishes each poll inside its callback; userdata is a timeline of
 * "number@date". */
static void poll_and_finish(const cadence_poll *poll, void *userdata) {
    char label[24];
    snprintf(label, sizeof label, "%llu", (unsigned long long)poll->number);
    timeline_add(userdata, label, poll->date, 0);
    CHECK_OK(cadence_poller_finish(poll->source, poll->number));
}

/* A poller every second, tolerance 0; `end` as for subscription_case at 2.5 s; run to 5 s. */
static timeline poller_case(int end, uint64_t expected_armed) {
    cadence_loop loop = new_loop();
    timeline polls = {.loop = loop};
    cadence_cancellable poller;
    CHECK_OK(cadence_poller_start(loop, 1, 0, poll_and_finish, &polls, &poller));
    run_to(loop, 2.5);
    CHECK_TIMELINE(polls, "1@1000", "2@2000");
    if (end == 0) CHECK_OK(cadence_cancel(poller));
    if (end == 2) CHECK_OK(cadence_cancellable_detach(poller));
    CHECK_OK(cadence_cancellable_release(poller));
    run_to(loop, 5);
    CHECK_EQ(armed_timers(loop), expected_armed);
    CHECK_OK(cadence_loop_close(loop));
    return polls;
}

static void poller_cancel(void) {
    timeline polls = poller_case(0, 0);
    CHECK_TIMELINE(polls, "1@1000", "2@2000");
}

static void poller_give_up(void) {
    timeline polls = poller_case(1, 0);
    CHECK_TIMELINE(polls, "1@1000", "2@2000");
}

static void poller_detach(void) {
    timeline polls = poller_case(2, 1);
    CHECK_TIMELINE(polls, "1@1000", "2@2000", "3@3000", "4@4000", "5@5000");
}

/* A detached poller, released: its callbacks' source stays valid (the polls are finished through
 * it) until a callback cancels it through that source, which frees it. */
static void cancel_third_poll(const cadence_poll *poll, void *userdata) {
    poll_and_finish(poll, userdata);
    if (poll->number == 3) CHECK_OK(cadence_cancel(poll->source));
}

static void released_source_cancels(void) {
    cadence_loop loop = new_loop();
    timeline polls = {.loop = loop};
    cadence_cancellable poller;
    CHECK_OK(cadence_poller_start(loop, 1, 0, cancel_third_poll, &polls, &poller));
    CHECK_OK(cadence_cancellable_detach(poller));
    CHECK_OK(cadence_cancellable_release(poller));
    CHECK_ERR(cadence_cancellable_release(poller), CADENCE_EBADF);  /* released once only */
    run_to(loop, 5);
    CHECK_TIMELINE(polls, "1@1000", "2@2000", "3@3000");
    CHECK_EQ(armed_timers(loop), 0);
    int cancelled;
    CHECK_ERR(cadence_is_cancelled(poller, &cancelled), CADENCE_EBADF);  /* freed by that cancel */
    CHECK_OK(cadence_loop_close(loop));
}

/* ---- Loop ---- */

static void count_countdown(const cadence_countdown_event *event, void *userdata) {
    (void)event;
    ((timeline *)userdata)->count++;
}

static void loop_close(void) {
    cadence_loop loop = new_loop();
    timeline fires = {.loop = loop};
    cadence_publisher publisher, shared;
    cadence_cancellable handles[7];
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", timeline_tick, &fires, &handles[0]));
    handles[1] = every_second(loop, &fires);
    CHECK_OK(cadence_cancellable_detach(handles[1]));
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &publisher));
    CHECK_OK(cadence_publisher_subscribe(publisher, timeline_tick, &fires, &handles[2]));
    CHECK_OK(cadence_publisher_connect(publisher, &handles[3]));
    CHECK_OK(cadence_publisher_autoconnect(publisher, &shared));
    CHECK_OK(cadence_publisher_subscribe(shared, timeline_tick, &fires, &handles[4]));
    CHECK_OK(cadence_countdown_start(loop, 5, 1, count_countdown, &fires, &handles[5]));
    CHECK_OK(cadence_poller_start(loop, 1, 0, poll_and_finish, &fires, &handles[6]));
    run_to(loop, 0.5);
    CHECK_EQ(armed_timers(loop), 7);                       /* the countdown's first value came at 0 */
    CHECK_OK(cadence_loop_close(loop));
    uint64_t armed;
    CHECK_ERR(cadence_loop_armed_timers(loop, &armed), CADENCE_EBADF);
    for (int i = 0; i < 7; i++) {
        int cancelled;
        CHECK_ERR(cadence_cancel(handles[i]), CADENCE_EBADF);
        CHECK_ERR(cadence_is_cancelled(handles[i], &cancelled), CADENCE_EBADF);
        CHECK_ERR(cadence_cancellable_detach(handles[i]), CADENCE_EBADF);
        CHECK_ERR(cadence_cancellable_release(handles[i]), CADENCE_EBADF);
    }
    CHECK_ERR(cadence_publisher_release(publisher), CADENCE_EBADF);
    CHECK_ERR(cadence_publisher_release(shared), CADENCE_EBADF);
}

/* Destroying a loop twice: the second call names a stale handle, CADENCE_EBADF with the message
 * every stale handle gets, and does nothing else; a loop made since (which may reuse the slot)
 * is untouched. Swift's and Python's close() on the same object do nothing the second time. */
static void loop_close_twice(void) {
    cadence_loop loop = new_loop();
    timeline fires = {.loop = loop};
    CHECK_OK(cadence_cancellable_detach(every_second(loop, &fires)));
    CHECK_OK(cadence_loop_close(loop));
    char stale[256];
    snprintf(stale, sizeof stale, "cadence_loop_close: loop must be a live loop handle, got 0x%llx "
             "(released, destroyed with its loop, of another kind, or never made)", (unsigned long long)loop.id);
    CHECK_ERR_MSG(cadence_loop_close(loop), CADENCE_EBADF, stale);
    cadence_loop next = new_loop();
    timeline next_fires = {.loop = next};
    CHECK_OK(cadence_cancellable_detach(every_second(next, &next_fires)));
    CHECK_ERR_MSG(cadence_loop_close(loop), CADENCE_EBADF, stale);  /* never the newer loop */
    run_to(next, 2.5);
    CHECK_TIMELINE(next_fires, "0@1000", "1@2000");
    CHECK_EQ(fires.count, 0);
    CHECK_OK(cadence_loop_close(next));
}

static void count_tick(const cadence_tick *tick, void *userdata) {
    (void)tick;
    (*(int *)userdata)++;
}

static void autoconnect_1000_given_up(void) {
    cadence_loop loop = new_loop();
    int fires = 0;
    static cadence_cancellable subscriptions[1000];
    for (int i = 0; i < 1000; i++) {
        cadence_publisher publisher, shared;
        CHECK_OK(cadence_publisher_create(loop, 0.1, 0, "default", &publisher));
        CHECK_OK(cadence_publisher_autoconnect(publisher, &shared));
        CHECK_OK(cadence_publisher_subscribe(shared, count_tick, &fires, &subscriptions[i]));
        CHECK_OK(cadence_publisher_release(shared));
        CHECK_OK(cadence_publisher_release(publisher));
    }
    CHECK_EQ(armed_timers(loop), 1000);                    /* the subscriptions run the timers */
    for (int i = 0; i < 1000; i++) CHECK_OK(cadence_cancellable_release(subscriptions[i]));
    run_to(loop, 0.5);
    CHECK_EQ(fires, 0);
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_close(loop));
}

/* ---- Runner ---- */

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"one_shot_cancel", one_shot_cancel},
    {"one_shot_give_up", one_shot_give_up},
    {"one_shot_detach", one_shot_detach},
    {"repeating_cancel", repeating_cancel},
    {"repeating_give_up", repeating_give_up},
    {"repeating_detach", repeating_detach},
    {"publisher_give_up", publisher_give_up},
    {"connection_cancel", connection_cancel},
    {"connection_give_up", connection_give_up},
    {"connection_detach", connection_detach},
    {"subscription_cancel", subscription_cancel},
    {"subscription_give_up", subscription_give_up},
    {"subscription_detach", subscription_detach},
    {"countdown_cancel", countdown_cancel},
    {"countdown_give_up", countdown_give_up},
    {"countdown_detach", countdown_detach},
    {"poller_cancel", poller_cancel},
    {"poller_give_up", poller_give_up},
    {"poller_detach", poller_detach},
    {"loop_close", loop_close},
    {"loop_close_twice", loop_close_twice},
    {"autoconnect_1000_given_up", autoconnect_1000_given_up},
    {"released_source_cancels", released_source_cancels},
};

#define CASE_COUNT (int)(sizeof cases / sizeof cases[0])

/* Whether case `name` runs: named by an argument, or not excluded by a '-' one. */
static int selected(const char *name, int argc, char **argv) {
    int named = 0, any_named = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            if (strcmp(argv[i] + 1, name) == 0) return 0;
        } else {
            any_named = 1;
            named |= strcmp(argv[i], name) == 0;
        }
    }
    return named || !any_named;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *name = argv[i][0] == '-' ? argv[i] + 1 : argv[i];
        int known = 0;
        for (int c = 0; c < CASE_COUNT; c++) known |= strcmp(cases[c].name, name) == 0;
        if (!known) CHECK_FAIL_("unknown case '%s'", name);
    }
    int ran = 0;
    for (int c = 0; c < CASE_COUNT; c++) {
        if (!selected(cases[c].name, argc, argv)) continue;
        cases[c].run();
        ran++;
    }
    printf("lifetime contract (C): %d cases passed\n", ran);
    return 0;
}
