/* A registration's userdata ends exactly once (cadence_loop_set_callbacks): by a final call (a
 * one-shot's fire, tick->final == 1; a countdown's finished event) or by the loop's release
 * function, for every other ending (cancel, giving up a repeating timer, cadence_loop_close, a
 * publisher that can never tick again), never both and never twice, after the registration's
 * last callback, with no lock held (a release function calling back into Cadence works). Also
 * cadence_loop_schedule_default (the loop's fire function), cadence_cancel_steal and
 * cadence_cancellable_detach, on a virtual loop, with their errors. */
#include <math.h>

#include "check.h"

/* What happened to one registration. */
typedef struct reg {
    int calls;       /* callbacks */
    int finals;      /* callbacks with final set (or a countdown's finished event) */
    int releases;    /* release(userdata) */
    int late;        /* callbacks or releases after the registration's end */
    double fire_date;
    uint64_t skipped;
    cadence_cancellable self;  /* for callbacks that cancel their own registration */
    int cancel_self;           /* cancel `self` from the callback, and check no release came yet */
} reg;

static void ended(reg *r) {
    if (r->finals + r->releases > 0) r->late++;
}

static int null_releases;  /* release(NULL): a registration made with no userdata */

static void on_release(void *userdata) {
    reg *r = userdata;
    if (!r) {
        null_releases++;
        return;
    }
    ended(r);
    r->releases++;
}

static void on_fire(void *userdata, double fire_date, uint64_t skipped, int final) {
    reg *r = userdata;
    ended(r);
    r->calls++;
    r->fire_date = fire_date;
    r->skipped = skipped;
    if (final) r->finals++;
}

static void on_tick(const cadence_tick *tick, void *userdata) {
    reg *r = userdata;
    ended(r);
    r->calls++;
    r->fire_date = tick->fire_date;
    if (tick->final) r->finals++;
    if (r->cancel_self) {
        /* 2: cadence_cancel_steal, which steals nothing from inside the callback */
        CHECK_EQ(r->cancel_self == 2 ? cadence_cancel_steal(r->self) : cadence_cancel(r->self), 0);
        CHECK_EQ(r->releases, 0);  /* not while this callback runs */
    }
}

static void on_countdown(const cadence_countdown_event *event, void *userdata) {
    reg *r = userdata;
    ended(r);
    r->calls++;
    if (event->finished) r->finals++;
}

static void on_poll(const cadence_poll *poll, void *userdata) {
    reg *r = userdata;
    ended(r);
    r->calls++;
    CHECK_OK(cadence_poller_finish(poll->source, poll->number));
}

static cadence_loop virtual_loop(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, on_fire, on_release));
    return loop;
}

/* Exactly one end, nothing after it. */
static void check_one_end(const reg *r) {
    CHECK_EQ(r->finals + r->releases, 1);
    CHECK_EQ(r->late, 0);
}

static void schedule_default_fires(void) {
    cadence_loop loop = virtual_loop();
    reg a = {0}, b = {0};
    cadence_cancellable ha, hb;
    CHECK_OK(schedule_default(loop, 0.25, &a, &ha));
    CHECK_OK(schedule_default(loop, 0, &b, &hb));
    double fire_date = 0;
    CHECK_OK(cadence_timer_fire_date(ha, &fire_date));
    CHECK_EQ(llround(fire_date * 1000), 250);
    CHECK_OK(cadence_cancellable_release(hb));  /* fire-and-forget */
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_EQ(a.calls, 1);
    CHECK_EQ(a.finals, 1);
    CHECK_EQ(llround(a.fire_date * 1000), 250);
    CHECK_EQ(a.skipped, 0);
    CHECK_EQ(b.calls, 1);
    CHECK_EQ(llround(b.fire_date * 1000), 0);
    check_one_end(&a);
    check_one_end(&b);
    CHECK_ERR(cadence_cancel(ha), CADENCE_EALREADY);  /* it ended when it fired */
    CHECK_OK(cadence_cancellable_release(ha));
    CHECK_OK(cadence_loop_close(loop));
    check_one_end(&a);
}

/* tick->final: 1 on a one-shot's fire, 0 for repeating timers and subscriptions. */
static void final_flag(void) {
    cadence_loop loop = virtual_loop();
    reg once = {0}, every = {0}, sub = {0};
    cadence_cancellable ho, he;
    CHECK_OK(cadence_loop_schedule(loop, 0.1, 0, "default", on_tick, &once, &ho));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.1, 0.1, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &every, &he));
    cadence_cancellable hs = subscribe_autoconnect(loop, 0.1, 0, "default", on_tick, &sub);
    CHECK_OK(cadence_loop_run(loop, "default", 0.35));
    CHECK_EQ(once.calls, 1);
    CHECK_EQ(once.finals, 1);
    CHECK_EQ(every.calls, 3);
    CHECK_EQ(every.finals, 0);
    CHECK_EQ(sub.calls, 3);
    CHECK_EQ(sub.finals, 0);
    CHECK_EQ(every.releases + sub.releases, 0);
    CHECK_OK(cadence_cancel(he));
    CHECK_EQ(every.releases, 1);   /* inside cadence_cancel */
    CHECK_OK(cadence_cancel(hs));
    CHECK_EQ(sub.releases, 1);
    CHECK_ERR(cadence_cancel(he), CADENCE_EALREADY);
    CHECK_OK(cadence_cancellable_release(he));
    CHECK_OK(cadence_cancellable_release(hs));
    CHECK_OK(cadence_cancellable_release(ho));
    CHECK_OK(cadence_loop_close(loop));
    check_one_end(&once);
    check_one_end(&every);
    check_one_end(&sub);
}

/* Cancel, and giving up a handle: a repeating timer stops and is released; a one-shot goes on and
 * ends by its fire; a detached repeating timer goes on until destroy. */
static void cancel_and_give_up(void) {
    cadence_loop loop = virtual_loop();
    reg cancelled = {0}, given_up = {0}, forgotten = {0}, detached = {0}, sub = {0}, countdown = {0}, poller = {0};
    cadence_cancellable hc, hg, hf, hd, hn, hp;
    CHECK_OK(schedule_default(loop, 1, &cancelled, &hc));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0, 0.1, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &given_up, &hg));
    CHECK_OK(cadence_loop_schedule(loop, 0.5, 0, "default", on_tick, &forgotten, &hf));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0, 0.1, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &detached, &hd));
    cadence_cancellable hs = subscribe_autoconnect(loop, 0.1, 0, "default", on_tick, &sub);
    CHECK_OK(cadence_countdown_start(loop, 10, 1, on_countdown, &countdown, &hn));
    CHECK_OK(cadence_poller_start(loop, 0.1, 0, on_poll, &poller, &hp));
    CHECK_OK(cadence_loop_run(loop, "default", 0.25));
    CHECK_EQ(given_up.calls, 3);

    CHECK_OK(cadence_cancel(hc));
    CHECK_EQ(cancelled.releases, 1);
    CHECK_ERR(cadence_cancel(hc), CADENCE_EALREADY);
    CHECK_EQ(cancelled.releases, 1);
    CHECK_OK(cadence_cancellable_release(hg));
    CHECK_EQ(given_up.releases, 1);    /* giving up a repeating timer cancels it */
    CHECK_OK(cadence_cancellable_release(hf));
    CHECK_EQ(forgotten.releases, 0);   /* a one-shot is fire-and-forget */
    CHECK_OK(cadence_cancellable_detach(hd));
    CHECK_OK(cadence_cancellable_detach(hd));  /* twice: a no-op */
    CHECK_OK(cadence_cancellable_release(hd));
    CHECK_ERR(cadence_cancellable_release(hd), CADENCE_EBADF);  /* a second release */
    CHECK_OK(cadence_cancellable_release(hs));
    CHECK_EQ(sub.releases, 1);
    CHECK_OK(cadence_cancellable_release(hn));
    CHECK_EQ(countdown.releases, 1);
    CHECK_OK(cadence_cancellable_release(hp));
    CHECK_EQ(poller.releases, 1);

    int calls = given_up.calls + sub.calls + countdown.calls + poller.calls;
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_EQ(given_up.calls + sub.calls + countdown.calls + poller.calls, calls);  /* nothing after */
    CHECK_EQ(forgotten.calls, 1);
    CHECK_EQ(forgotten.finals, 1);
    CHECK_EQ(detached.calls, 13);      /* 0 to 1.2 s every 0.1 s: still firing */
    CHECK_EQ(detached.releases, 0);
    uint64_t armed = 0;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 1);
    CHECK_OK(cadence_loop_close(loop));
    CHECK_EQ(detached.releases, 1);    /* ended by the destroy */
    reg *all[] = {&cancelled, &given_up, &forgotten, &detached, &sub, &countdown, &poller};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) check_one_end(all[i]);
    CHECK_EQ(cancelled.calls, 0);
}

/* cancel_lets_go (the Swift and Python cases of that name): cadence_cancel lets go of the
 * userdata of every kind inside the call, while the handle is still held: a one-shot, a repeating
 * timer, a subscription, a countdown and a poller alike. */
static void cancel_lets_go(void) {
    cadence_loop loop = virtual_loop();
    reg regs[5] = {{0}};
    cadence_cancellable h[5];
    CHECK_OK(cadence_loop_schedule(loop, 5, 0, "default", on_tick, &regs[0], &h[0]));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &regs[1], &h[1]));
    h[2] = subscribe_autoconnect(loop, 1, 0, "default", on_tick, &regs[2]);
    CHECK_OK(cadence_countdown_start(loop, 10, 1, on_countdown, &regs[3], &h[3]));
    CHECK_OK(cadence_poller_start(loop, 1, 0, on_poll, &regs[4], &h[4]));
    CHECK_OK(cadence_loop_run(loop, "default", 2.5));
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(regs[i].releases, 0);
        CHECK_OK(cadence_cancel(h[i]));
        CHECK_EQ(regs[i].releases, 1);  /* at the cancel, not at the release of the handle */
    }
    for (int i = 0; i < 5; i++) CHECK_OK(cadence_cancellable_release(h[i]));
    CHECK_OK(cadence_loop_close(loop));
    for (int i = 0; i < 5; i++) check_one_end(&regs[i]);
}

/* Destroying a loop releases every pending registration of every kind, once; a finished
 * countdown was ended by its final call. Detached and released handles included. */
static void destroy_releases(void) {
    cadence_loop loop = virtual_loop();
    reg once = {0}, dflt = {0}, every = {0}, sub = {0}, auto_sub = {0}, countdown = {0}, finished = {0},
        poller = {0}, detached_sub = {0};
    cadence_cancellable h[9];
    cadence_publisher timer;
    CHECK_OK(cadence_loop_schedule(loop, 5, 0, "default", on_tick, &once, &h[0]));
    CHECK_OK(schedule_default(loop, 5, &dflt, &h[1]));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "common", on_tick, &every,
                                             &h[2]));
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, on_tick, &sub, &h[3]));
    CHECK_OK(cadence_publisher_connect(timer, &h[4]));
    h[5] = subscribe_autoconnect(loop, 1, 0, "default", on_tick, &auto_sub);
    CHECK_OK(cadence_countdown_start(loop, 10, 1, on_countdown, &countdown, &h[6]));
    CHECK_OK(cadence_countdown_start(loop, 0, 1, on_countdown, &finished, &h[7]));
    CHECK_OK(cadence_poller_start(loop, 1, 0, on_poll, &poller, &h[8]));
    cadence_cancellable hd;
    CHECK_OK(cadence_publisher_subscribe(timer, on_tick, &detached_sub, &hd));
    CHECK_OK(cadence_cancellable_detach(hd));
    CHECK_OK(cadence_cancellable_release(hd));
    CHECK_EQ(detached_sub.releases, 0);
    CHECK_OK(cadence_loop_run(loop, "default", 1.5));
    CHECK_EQ(finished.finals, 1);
    CHECK_EQ(sub.calls, 1);
    CHECK_EQ(detached_sub.calls, 1);
    CHECK_OK(cadence_loop_close(loop));
    reg *pending[] = {&once, &dflt, &every, &sub, &auto_sub, &countdown, &poller, &detached_sub};
    for (size_t i = 0; i < sizeof pending / sizeof pending[0]; i++) {
        CHECK_EQ(pending[i]->releases, 1);
        check_one_end(pending[i]);
    }
    CHECK_EQ(finished.releases, 0);
    check_one_end(&finished);
    for (int i = 0; i < 9; i++) CHECK_ERR(cadence_cancellable_release(h[i]), CADENCE_EBADF);  /* freed */
}

/* A publisher that can never tick again ends its subscription: released once, at the latest when
 * its handle is released. */
static void ended_by_publisher(void) {
    cadence_loop loop = virtual_loop();
    reg sub = {0};
    cadence_publisher timer;
    cadence_cancellable hs, connection;
    CHECK_OK(cadence_publisher_create(loop, 0.1, 0, "default", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, on_tick, &sub, &hs));
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    CHECK_OK(cadence_loop_run(loop, "default", 0.25));
    CHECK_EQ(sub.calls, 2);
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_cancel(connection));
    CHECK_OK(cadence_cancellable_release(connection));
    int cancelled = 0;
    CHECK_OK(cadence_is_cancelled(hs, &cancelled));
    CHECK_EQ(cancelled, 1);
    CHECK(sub.releases <= 1);
    CHECK_OK(cadence_cancellable_release(hs));
    CHECK_EQ(sub.releases, 1);
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_EQ(sub.calls, 2);
    CHECK_OK(cadence_loop_close(loop));
    check_one_end(&sub);
}

/* A callback that cancels its own registration gets its release once it has returned. */
static void cancel_from_own_callback(void) {
    cadence_loop loop = virtual_loop();
    reg every = {.cancel_self = 1}, sub = {.cancel_self = 1};
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.1, 0.1, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &every, &every.self));
    sub.self = subscribe_autoconnect(loop, 0.1, 0, "default", on_tick, &sub);
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_EQ(every.calls, 1);
    CHECK_EQ(every.releases, 1);
    CHECK_EQ(sub.calls, 1);
    CHECK_EQ(sub.releases, 1);
    CHECK_OK(cadence_cancellable_release(every.self));
    CHECK_OK(cadence_cancellable_release(sub.self));
    CHECK_OK(cadence_loop_close(loop));
    check_one_end(&every);
    check_one_end(&sub);
}

/* cadence_cancel_steal hands the userdata of every kind back instead of calling the release
 * function (one cancel protocol: scheduled timers, subscriptions, countdowns, pollers); it steals
 * nothing from a registration's own callback (the release follows that callback) or a NULL
 * userdata, whose ends follow cadence_cancel, nor from a connection, which has none. */
static void cancel_steal(void) {
    cadence_loop loop = virtual_loop();
    reg once = {0}, every = {0}, sub = {0}, count = {0}, poll = {0}, own = {.cancel_self = 2},
        own_sub = {.cancel_self = 2};
    cadence_cancellable a = {0}, b, c, n, p;
    CHECK_OK(schedule_default(loop, 0.5, &once, &a));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.5, 0.5, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &every, &b));
    CHECK_OK(cadence_loop_schedule(loop, 0.5, 0, "default", on_tick, NULL, &c));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.1, 0.1, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &own, &own.self));
    CHECK_OK(cadence_countdown_start(loop, 10, 1, on_countdown, &count, &n));
    CHECK_OK(cadence_poller_start(loop, 0.1, 0, on_poll, &poll, &p));
    cadence_cancellable s = subscribe_autoconnect(loop, 0.1, 0, "default", on_tick, &sub);
    own_sub.self = subscribe_autoconnect(loop, 0.1, 0, "default", on_tick, &own_sub);
    CHECK_EQ(cadence_cancel_steal(a), (intptr_t)&once);
    CHECK_EQ(cadence_cancel_steal(b), (intptr_t)&every);
    CHECK_EQ(cadence_cancel_steal(c), 0);
    CHECK_EQ(null_releases, 1);
    CHECK_EQ(cadence_cancel_steal(s), (intptr_t)&sub);
    CHECK_EQ(cadence_cancel_steal(n), (intptr_t)&count);
    CHECK_EQ(cadence_cancel_steal(p), (intptr_t)&poll);
    CHECK_ERR(cadence_cancel_steal(a), CADENCE_EALREADY);
    CHECK_ERR(cadence_cancel_steal(s), CADENCE_EALREADY);
    CHECK_ERR(cadence_cancel_steal(n), CADENCE_EALREADY);
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_EQ(once.calls + once.finals + once.releases, 0);    /* stolen: the caller's now */
    CHECK_EQ(every.calls + every.finals + every.releases, 0);
    CHECK_EQ(sub.calls + sub.finals + sub.releases, 0);
    CHECK_EQ(count.calls + count.finals + count.releases, 0);
    CHECK_EQ(poll.calls + poll.finals + poll.releases, 0);
    CHECK_EQ(own.calls, 1);
    check_one_end(&own);
    CHECK_EQ(own_sub.calls, 1);
    check_one_end(&own_sub);
    cadence_cancellable handles[] = {a, b, c, n, p, s, own.self, own_sub.self};
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
    CHECK_ERR(cadence_cancel_steal(a), CADENCE_EBADF);
    CHECK_ERR(cadence_cancel_steal(s), CADENCE_EBADF);
    CHECK_ERR(cadence_cancel_steal((cadence_cancellable){0}), CADENCE_EBADF);
    CHECK_OK(cadence_loop_close(loop));
}

/* A NULL callback to cadence_loop_schedule, cadence_loop_schedule_repeating or
 * cadence_publisher_subscribe means the loop's fire function, with the same userdata contract; on a
 * loop without one it is CADENCE_EINVAL and nothing is armed. */
static void null_callback_uses_fire_function(void) {
    cadence_loop loop = virtual_loop();
    CHECK_OK(cadence_loop_add_mode(loop, "tracking"));
    reg once = {0}, every = {0}, sub = {0};
    cadence_cancellable a, b;
    CHECK_OK(cadence_loop_schedule(loop, 0.5, 0.1, "common", NULL, &once, &a));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.25, 0.25, 0, CADENCE_MISSED_TICKS_SKIP, "default", NULL, &every,
                                             &b));
    cadence_cancellable s = subscribe_autoconnect(loop, 0.5, 0, "default", NULL, &sub);
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_EQ(once.calls, 1);
    CHECK_EQ(once.finals, 1);                  /* a one-shot's fire is its final call */
    CHECK_RANGE(once.fire_date, 0.5, 0.5);
    CHECK_EQ(every.calls, 4);
    CHECK_EQ(every.finals, 0);
    CHECK_RANGE(every.fire_date, 1.0, 1.0);
    CHECK_EQ(sub.calls, 2);
    CHECK_EQ(sub.finals, 0);
    CHECK_OK(cadence_cancel(b));
    CHECK_OK(cadence_cancel(s));
    check_one_end(&once);
    check_one_end(&every);                      /* released by the cancel */
    check_one_end(&sub);
    cadence_cancellable handles[] = {a, b, s};
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; i++) CHECK_OK(cadence_cancellable_release(handles[i]));

    CHECK_OK(cadence_loop_set_callbacks(loop, NULL, on_release));
    cadence_cancellable none = {0};
    const char *message = "fn must not be NULL, got NULL (or set the loop's fire function: cadence_loop_set_callbacks)";
    CHECK_ERR(cadence_loop_schedule(loop, 1, 0, "default", NULL, &once, &none), CADENCE_EINVAL);
    CHECK(strstr(cadence_last_error_message(), message) != NULL);
    CHECK_ERR(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "default", NULL, &once, &none),
              CADENCE_EINVAL);
    cadence_publisher timer;
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &timer));
    CHECK_ERR(cadence_publisher_subscribe(timer, NULL, &once, &none), CADENCE_EINVAL);
    CHECK(strstr(cadence_last_error_message(), message) != NULL);
    CHECK_EQ(none.id, 0);
    uint64_t armed = 9;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 0);
    CHECK_OK(cadence_publisher_release(timer));
    CHECK_OK(cadence_loop_close(loop));
    check_one_end(&once);                       /* nothing more came */
}

/* A release function that calls back into Cadence: it schedules on the loop that released it (or
 * on another loop, from a destroy), cancels and releases another handle. Nothing deadlocks. */
static cadence_loop reentry_loop, other_loop;
static cadence_cancellable reentry_victim;
static int reentries;
static reg chained;

static void on_release_reentering(void *userdata) {
    on_release(userdata);
    reentries++;
    cadence_cancellable h;
    /* The loop that released may be destroyed already: then the other one. */
    int rc = schedule_default(reentry_loop, 0.5, &chained, &h);
    if (rc == CADENCE_EBADF) {
        CHECK_OK(cadence_loop_schedule(other_loop, 0.5, 0, "default", on_tick, &chained, &h));
    } else {
        CHECK_OK(rc);
    }
    CHECK_OK(cadence_cancellable_release(h));
    if (reentry_victim.id) {
        cadence_cancellable victim = reentry_victim;
        reentry_victim = (cadence_cancellable){0};
        CHECK_OK(cadence_cancel(victim));   /* releases it too, from inside this release */
        CHECK_OK(cadence_cancellable_release(victim));
    }
    uint64_t armed;
    CHECK_OK(cadence_loop_armed_timers(other_loop, &armed));
}

static void release_reenters(void) {
    CHECK_OK(cadence_loop_create_virtual(&reentry_loop));
    CHECK_OK(cadence_loop_create_virtual(&other_loop));
    CHECK_OK(cadence_loop_set_callbacks(reentry_loop, on_fire, on_release_reentering));
    CHECK_OK(cadence_loop_set_callbacks(other_loop, on_fire, on_release));
    reg a = {0}, victim = {0}, sub = {0}, pending = {0};
    cadence_cancellable ha, hs, hp;
    CHECK_OK(cadence_loop_schedule_repeating(reentry_loop, 0.1, 0.1, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             on_tick, &a, &ha));
    CHECK_OK(schedule_default(reentry_loop, 3, &victim, &reentry_victim));
    hs = subscribe_autoconnect(reentry_loop, 0.1, 0, "default", on_tick, &sub);
    CHECK_OK(cadence_loop_schedule(reentry_loop, 9, 0, "default", on_tick, &pending, &hp));
    CHECK_OK(cadence_loop_run(reentry_loop, "default", 0.15));

    CHECK_OK(cadence_cancel(ha));               /* its release schedules and cancels the victim */
    CHECK_EQ(a.releases, 1);
    CHECK_EQ(victim.releases, 1);
    CHECK_EQ(reentries, 2);
    CHECK_OK(cadence_cancellable_release(hs));  /* from a subscription's release too */
    CHECK_EQ(sub.releases, 1);
    CHECK_EQ(reentries, 3);
    CHECK_OK(cadence_loop_run(reentry_loop, "default", 1));
    CHECK_EQ(chained.calls, 3);                 /* the timers the releases scheduled fired */
    CHECK_EQ(chained.finals, 3);

    chained = (reg){0};
    CHECK_OK(cadence_cancellable_release(ha));
    CHECK_OK(cadence_cancellable_release(hp));
    CHECK_OK(cadence_loop_close(reentry_loop));  /* `pending`'s release schedules on the other loop */
    CHECK_EQ(pending.releases, 1);
    CHECK_EQ(reentries, 4);
    CHECK_OK(cadence_loop_run(other_loop, "default", 1));
    CHECK_EQ(chained.calls, 1);
    CHECK_OK(cadence_loop_close(other_loop));
    check_one_end(&a);
    check_one_end(&victim);
    check_one_end(&sub);
    check_one_end(&pending);
    CHECK_EQ(victim.calls, 0);
}

/* A detached repeating timer, once released, stays valid as its ticks' source until it ends: its
 * callback cancels it through tick->source (and gets its release after returning); a second
 * release or a detach of it is CADENCE_EBADF; once ended, the handle is dead. */
static reg sourced;
static void cancel_through_source(const cadence_tick *tick, void *userdata) {
    on_tick(tick, userdata);
    if (sourced.calls == 3) CHECK_OK(cadence_cancel(tick->source));
}

static void released_detached_source(void) {
    cadence_loop loop = virtual_loop();
    cadence_cancellable h;
    CHECK_OK(cadence_loop_schedule_repeating(loop, 0.1, 0.1, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             cancel_through_source, &sourced, &h));
    CHECK_OK(cadence_cancellable_detach(h));
    CHECK_OK(cadence_cancellable_release(h));
    CHECK_ERR(cadence_cancellable_release(h), CADENCE_EBADF);
    CHECK_ERR(cadence_cancellable_detach(h), CADENCE_EBADF);
    CHECK_OK(cadence_loop_run(loop, "default", 1));
    CHECK_EQ(sourced.calls, 3);
    CHECK_EQ(sourced.releases, 1);
    CHECK_ERR(cadence_cancel(h), CADENCE_EBADF);  /* ended: the handle went with it */
    uint64_t armed = 1;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, 0);
    CHECK_OK(cadence_loop_close(loop));
    check_one_end(&sourced);
}

/* Registrations made before the callbacks were set, or after they were cleared, release nothing;
 * those made while they were set keep them. */
static void only_while_set(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    reg before = {0}, during = {0}, after = {0};
    cadence_cancellable hb, hd, ha;
    CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &before, &hb));
    CHECK_OK(cadence_loop_set_callbacks(loop, on_fire, on_release));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &during, &hd));
    CHECK_OK(cadence_loop_set_callbacks(loop, NULL, NULL));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick,
                                             &after, &ha));
    cadence_cancellable h;
    CHECK_ERR_MSG(schedule_default(loop, 1, &after, &h), CADENCE_EINVAL,
                  "cadence_loop_schedule_default: loop must have a fire function, got none "
                  "(cadence_loop_set_callbacks first)");
    CHECK_OK(cadence_cancel(hb));
    CHECK_OK(cadence_cancel(hd));
    CHECK_OK(cadence_cancel(ha));
    CHECK_EQ(before.releases, 0);
    CHECK_EQ(during.releases, 1);
    CHECK_EQ(after.releases, 0);
    CHECK_OK(cadence_cancellable_release(hb));
    CHECK_OK(cadence_cancellable_release(hd));
    CHECK_OK(cadence_cancellable_release(ha));
    CHECK_OK(cadence_loop_close(loop));
}

static void bad_input(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    reg r = {0};
    cadence_cancellable h = {0};
    CHECK_ERR_MSG(schedule_default(loop, 1, &r, &h), CADENCE_EINVAL,
                  "cadence_loop_schedule_default: loop must have a fire function, got none "
                  "(cadence_loop_set_callbacks first)");
    CHECK_EQ(h.id, 0);  /* out is written only on success */
    CHECK_OK(cadence_loop_set_callbacks(loop, on_fire, on_release));
    CHECK_ERR_MSG(schedule_default(loop, NAN, &r, &h), CADENCE_EINVAL,
                  "cadence_loop_schedule_default: delay must be >= 0 and finite, got nan");
    CHECK_ERR_MSG(schedule_default(loop, -1, &r, &h), CADENCE_EINVAL,
                  "cadence_loop_schedule_default: delay must be >= 0 and finite, got -1.0");
    CHECK_ERR_MSG(schedule_default(loop, INFINITY, &r, &h), CADENCE_EINVAL,
                  "cadence_loop_schedule_default: delay must be >= 0 and finite, got inf");
    CHECK_ERR_MSG(schedule_default((cadence_loop){0}, 1, &r, &h), CADENCE_EBADF,
                  "cadence_loop_schedule_default: loop must be a live loop handle, got 0x0 "
                  "(released, destroyed with its loop, of another kind, or never made)");
    CHECK_ERR_MSG(cadence_loop_set_callbacks((cadence_loop){0}, on_fire, on_release), CADENCE_EBADF,
                  "cadence_loop_set_callbacks: loop must be a live loop handle, got 0x0 "
                  "(released, destroyed with its loop, of another kind, or never made)");
    /* A registering call that fails calls neither function. */
    CHECK_ERR(cadence_loop_schedule_repeating(loop, 1, 0, 0, CADENCE_MISSED_TICKS_SKIP, "default", on_tick, &r, &h),
              CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule(loop, 1, 0, "nowhere", on_tick, &r, &h), CADENCE_ENOENT);
    CHECK_ERR(cadence_countdown_start(loop, NAN, 1, on_countdown, &r, &h), CADENCE_EINVAL);
    CHECK_ERR(cadence_poller_start(loop, -1, 0, on_poll, &r, &h), CADENCE_EINVAL);

    /* Detach: 0, twice a no-op; dead handles EBADF with the message of the other calls. */
    cadence_cancellable once = {0};
    CHECK_OK(schedule_default(loop, 1, &r, &once));
    CHECK_OK(cadence_cancellable_detach(once));
    CHECK_OK(cadence_cancellable_detach(once));
    CHECK_OK(cadence_cancellable_release(once));
    char expected[256];
    snprintf(expected, sizeof expected, "cadence_cancellable_detach: cancellable must be a live cancellable "
             "handle, got 0x%llx (released, destroyed with its loop, of another kind, or never made)",
             (unsigned long long)once.id);
    CHECK_ERR_MSG(cadence_cancellable_detach(once), CADENCE_EBADF, expected);
    CHECK_ERR_MSG(cadence_cancellable_detach((cadence_cancellable){0}), CADENCE_EBADF,
                  "cadence_cancellable_detach: cancellable must be a live cancellable handle, got 0x0 "
                  "(released, destroyed with its loop, of another kind, or never made)");
    CHECK_ERR(cadence_cancellable_detach((cadence_cancellable){loop.id}), CADENCE_EBADF);  /* a loop's */
    CHECK_OK(cadence_loop_run(loop, "default", 2));
    CHECK_EQ(r.calls, 1);  /* the detached one-shot fired */
    check_one_end(&r);
    CHECK_OK(cadence_loop_close(loop));
    CHECK_ERR(cadence_loop_set_callbacks(loop, on_fire, on_release), CADENCE_EBADF);
    CHECK_ERR(schedule_default(loop, 1, &r, &h), CADENCE_EBADF);
    check_one_end(&r);
}

/* A release function that destroys the loop whose destroy called it: that nested destroy gives
 * CADENCE_EBADF (the loop is being destroyed), and the outer destroy finishes and returns 0. */
static cadence_loop destroying;
static int nested_rc = 1;

static void on_release_destroying(void *userdata) {
    on_release(userdata);
    nested_rc = cadence_loop_close(destroying);
}

static void release_destroys_its_loop(void) {
    CHECK_OK(cadence_loop_create_virtual(&destroying));
    CHECK_OK(cadence_loop_set_callbacks(destroying, on_fire, on_release_destroying));
    reg pending = {0};
    cadence_cancellable h;
    CHECK_OK(cadence_loop_schedule(destroying, 9, 0, "default", on_tick, &pending, &h));
    CHECK_OK(cadence_loop_close(destroying));
    CHECK_EQ(nested_rc, CADENCE_EBADF);
    CHECK_EQ(pending.releases, 1);
    check_one_end(&pending);
    CHECK_ERR(cadence_loop_close(destroying), CADENCE_EBADF);
}

int main(void) {
    schedule_default_fires();
    final_flag();
    cancel_and_give_up();
    cancel_lets_go();
    destroy_releases();
    ended_by_publisher();
    cancel_from_own_callback();
    cancel_steal();
    null_callback_uses_fire_function();
    release_reenters();
    release_destroys_its_loop();
    released_detached_source();
    only_while_set();
    bad_input();
    return 0;
}
