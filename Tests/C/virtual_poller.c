/* Seed article's exercise, the status poller, in virtual time: a poll every 30 s, none while
 * inactive, one at once on resuming, a slow poll delays the next to the first tick after it
 * finishes (never two at once), 10 % tolerance by default, and bad numbers call nothing. */
#include "timeline.h"

#define MAX_FINISHERS 8

typedef struct poll_log {
    timeline polls;                  /* "number@date" */
    cadence_cancellable poller;      /* as the callbacks see it */
    double finish_after;             /* 0: finish from inside the callback */
    uint64_t running;                /* the poll in flight, or 0 */
    int in_flight, max_in_flight;
    int finishers;
    cadence_cancellable finisher[MAX_FINISHERS];
} poll_log;

/* A one-shot that finishes the poll in flight. */
static void finish_later(const cadence_tick *tick, void *userdata) {
    (void)tick;
    poll_log *log = userdata;
    CHECK_OK(cadence_poller_finish(log->poller, log->running));
    log->running = 0;
    log->in_flight--;
}

static void on_poll(const cadence_poll *poll, void *userdata) {
    poll_log *log = userdata;
    char label[24];
    snprintf(label, sizeof label, "%llu", (unsigned long long)poll->number);
    CHECK(poll->date == timeline_now(log->polls.loop));
    CHECK_EQ(poll->source.id, log->poller.id);
    timeline_add(&log->polls, label, poll->date, 0);
    if (++log->in_flight > log->max_in_flight) log->max_in_flight = log->in_flight;
    log->running = poll->number;
    if (log->finish_after == 0) {
        CHECK_OK(cadence_poller_finish(poll->source, poll->number));
        log->running = 0;
        log->in_flight--;
    } else {
        CHECK(log->finishers < MAX_FINISHERS);
        CHECK_OK(cadence_loop_schedule(log->polls.loop, log->finish_after, 0, "common", finish_later, log,
                                       &log->finisher[log->finishers++]));
    }
}

static void start(poll_log *log, cadence_loop loop, double tolerance) {
    CHECK_OK(cadence_poller_start(loop, 30, tolerance, on_poll, log, &log->poller));
}

static void stop(poll_log *log) {
    CHECK_OK(cadence_cancel(log->poller));
    CHECK_OK(cadence_cancellable_release(log->poller));
    for (int i = 0; i < log->finishers; i++) CHECK_OK(cadence_cancellable_release(log->finisher[i]));
}

/* Polls at 30, 60, 90; 10 % tolerance by default. */
static void every_30_seconds(cadence_loop loop) {
    poll_log log = {.polls = {.loop = loop}};
    start(&log, loop, CADENCE_TOLERANCE_DEFAULT);
    CHECK_EQ(log.polls.count, 0);              /* the first poll one interval from now */
    CHECK_OK(cadence_loop_run(loop, "default", 90));
    CHECK_TIMELINE(log.polls, "1@30000", "2@60000", "3@90000");
    double tolerance = 0;
    CHECK_OK(cadence_poller_tolerance(log.poller, &tolerance));
    CHECK(tolerance == 3.0);
    CHECK_ERR(cadence_poller_finish(log.poller, 3), CADENCE_EALREADY);  /* finished */
    CHECK_ERR(cadence_poller_finish(log.poller, 4), CADENCE_EALREADY);  /* not started */
    CHECK_ERR(cadence_poller_finish(log.poller, 0), CADENCE_EALREADY);
    CHECK_ERR(cadence_poller_finish(log.poller, UINT64_MAX), CADENCE_EALREADY);
    stop(&log);
    CHECK_EQ(armed_timers(loop), 0);
}

/* Inactive from 40 to 100: no polls and no timer; resuming polls at once, then every 30 s. */
static void paused(cadence_loop loop) {
    poll_log log = {.polls = {.loop = loop}};
    start(&log, loop, 1.0);
    double tolerance = 0;
    CHECK_OK(cadence_poller_tolerance(log.poller, &tolerance));
    CHECK(tolerance == 1.0);
    CHECK_OK(cadence_loop_run(loop, "default", 40));
    CHECK_TIMELINE(log.polls, "1@30000");
    CHECK_OK(cadence_poller_set_active(log.poller, 0));
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_run(loop, "default", 60));
    CHECK_EQ(log.polls.count, 1);
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_poller_set_active(log.poller, 0));  /* paused again: no change */
    CHECK_OK(cadence_poller_set_active(log.poller, 1));
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_TIMELINE(log.polls, "1@30000", "2@100000");
    CHECK_EQ(armed_timers(loop), 1);
    CHECK_OK(cadence_loop_run(loop, "default", 30));
    CHECK_TIMELINE(log.polls, "1@30000", "2@100000", "3@130000");
    stop(&log);
}

/* Each poll takes 45 s: the ticks at 60, 120 and 180 find one running and do nothing. */
static void slow_polls(cadence_loop loop) {
    poll_log log = {.polls = {.loop = loop}, .finish_after = 45};
    start(&log, loop, CADENCE_TOLERANCE_DEFAULT);
    CHECK_OK(cadence_loop_run(loop, "default", 200));
    CHECK_TIMELINE(log.polls, "1@30000", "2@90000", "3@150000");
    CHECK_EQ(log.max_in_flight, 1);
    CHECK_EQ(log.in_flight, 0);                /* the third finished at 195 */
    CHECK_ERR(cadence_poller_finish(log.poller, 3), CADENCE_EALREADY);
    stop(&log);
}

/* Bad intervals and tolerances: CADENCE_EINVAL, nothing written, never a poll. Exactly -1.0 is
 * CADENCE_TOLERANCE_DEFAULT. */
static void bad_numbers(cadence_loop loop) {
    poll_log never = {.polls = {.loop = loop}};
    cadence_cancellable out = {0x5e5e};
    const double bad_intervals[] = {0, -0.0, -30, NAN, INFINITY, -INFINITY};
    const double bad_tolerances[] = {-2.0, -0.5, -1.0000001, -0.9999999, NAN, INFINITY, -INFINITY};
    for (int i = 0; i < (int)(sizeof bad_intervals / sizeof *bad_intervals); i++) {
        CHECK_ERR(cadence_poller_start(loop, bad_intervals[i], 0, on_poll, &never, &out), CADENCE_EINVAL);
        CHECK_ERR(cadence_poller_start(loop, bad_intervals[i], CADENCE_TOLERANCE_DEFAULT, on_poll, &never, &out),
                  CADENCE_EINVAL);
    }
    for (int i = 0; i < (int)(sizeof bad_tolerances / sizeof *bad_tolerances); i++)
        CHECK_ERR(cadence_poller_start(loop, 30, bad_tolerances[i], on_poll, &never, &out), CADENCE_EINVAL);
    CHECK_EQ(out.id, 0x5e5e);
    CHECK_EQ(armed_timers(loop), 0);
    CHECK_OK(cadence_loop_run(loop, "default", 100));
    CHECK_EQ(never.polls.count, 0);
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    every_30_seconds(loop);                    /* 0 to 90 s */
    CHECK_OK(cadence_loop_close(loop));
    CHECK_OK(cadence_loop_create_virtual(&loop));
    paused(loop);
    CHECK_OK(cadence_loop_close(loop));
    CHECK_OK(cadence_loop_create_virtual(&loop));
    slow_polls(loop);
    bad_numbers(loop);
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
