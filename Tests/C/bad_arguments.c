/* Bad arguments to every function of cadence.h that takes any: NULL pointers, bad mode names and
 * bad numbers give the documented code, write nothing through `out`, never call the callback,
 * and leave the loop working. */
#include "recorder.h"
#include "timeline.h"

#define SENTINEL 0x5e5e5e5eu

/* Mode names that are malformed anywhere a mode is taken (CADENCE_EINVAL). */
static char too_long[257];
static const char *malformed_modes[] = {"", "tab\there", "new\nline", "\x7f", "\xff\xfe", too_long};
#define MALFORMED_COUNT (int)(sizeof malformed_modes / sizeof *malformed_modes)

/* Numbers that are never a valid time. */
static const double bad_seconds[] = {NAN, INFINITY, -INFINITY, -1, -1e-9};
#define BAD_SECONDS_COUNT (int)(sizeof bad_seconds / sizeof *bad_seconds)

static void loop_functions(cadence_loop loop) {
    CHECK_ERR(cadence_loop_create(NULL), CADENCE_EINVAL);

    CHECK_ERR(cadence_loop_run(loop, NULL, 0.01), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_run(loop, "common", 0.01), CADENCE_EINVAL);  /* a pseudo-mode */
    CHECK_ERR(cadence_loop_run(loop, "unknown", 0.01), CADENCE_ENOENT);
    for (int i = 0; i < MALFORMED_COUNT; i++) CHECK_ERR(cadence_loop_run(loop, malformed_modes[i], 0), CADENCE_EINVAL);
    /* INFINITY runs until cadence_loop_stop (descriptor_poll.c), so it is no bad argument here. */
    for (int i = 0; i < BAD_SECONDS_COUNT; i++) {
        if (bad_seconds[i] != INFINITY) CHECK_ERR(cadence_loop_run(loop, "default", bad_seconds[i]), CADENCE_EINVAL);
    }

    CHECK_ERR(cadence_loop_add_mode(loop, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_add_mode(loop, "common"), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_add_common_mode(loop, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_add_common_mode(loop, "common"), CADENCE_EINVAL);
    for (int i = 0; i < MALFORMED_COUNT; i++) {
        CHECK_ERR(cadence_loop_add_mode(loop, malformed_modes[i]), CADENCE_EINVAL);
        CHECK_ERR(cadence_loop_add_common_mode(loop, malformed_modes[i]), CADENCE_EINVAL);
    }
    /* Edge cases that are fine: the longest name, UTF-8, registering twice, "default". */
    CHECK_OK(cadence_loop_add_mode(loop, too_long + 1));
    CHECK_OK(cadence_loop_add_mode(loop, "d\xc3\xa9j\xc3\xa0 vu"));
    CHECK_OK(cadence_loop_add_mode(loop, "d\xc3\xa9j\xc3\xa0 vu"));
    CHECK_OK(cadence_loop_add_common_mode(loop, "d\xc3\xa9j\xc3\xa0 vu"));
    CHECK_OK(cadence_loop_add_mode(loop, "default"));
    CHECK_OK(cadence_loop_run(loop, too_long + 1, 0));

    CHECK_ERR(cadence_loop_now(loop, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_wakeups(loop, NULL), CADENCE_EINVAL);
}

static void publisher_functions(cadence_loop loop) {
    cadence_publisher out = {SENTINEL};
    CHECK_ERR(cadence_publisher_create(loop, 0.1, 0, "default", NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_publisher_create(loop, 0.1, 0, NULL, &out), CADENCE_EINVAL);
    CHECK_ERR(cadence_publisher_create(loop, 0.1, 0, "unknown", &out), CADENCE_ENOENT);
    CHECK_ERR(cadence_publisher_create(loop, 0, 0, "default", &out), CADENCE_EINVAL);  /* zero interval */
    for (int i = 0; i < MALFORMED_COUNT; i++) CHECK_ERR(cadence_publisher_create(loop, 0.1, 0, malformed_modes[i], &out), CADENCE_EINVAL);
    for (int i = 0; i < BAD_SECONDS_COUNT; i++) {
        CHECK_ERR(cadence_publisher_create(loop, bad_seconds[i], 0, "default", &out), CADENCE_EINVAL);
        CHECK_ERR(cadence_publisher_create(loop, 0.1, bad_seconds[i], "default", &out), CADENCE_EINVAL);
    }
    CHECK_EQ(out.id, SENTINEL);                /* nothing written on error */

    /* A huge interval saturates instead of wrapping around into "now". */
    cadence_publisher timer;
    cadence_cancellable subscription, connection;
    recorder ticks = {.loop = loop};
    CHECK_OK(cadence_publisher_create(loop, 1e300, 1e300, "common", &timer));
    CHECK_OK(cadence_publisher_subscribe(timer, record_tick, &ticks, &subscription));
    CHECK_OK(cadence_publisher_connect(timer, &connection));
    CHECK_OK(cadence_loop_run(loop, "default", 0.02));
    CHECK_EQ(ticks.count, 0);

    cadence_cancellable sub_out = {SENTINEL};
    CHECK_ERR(cadence_publisher_autoconnect(timer, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_publisher_subscribe(timer, NULL, NULL, &sub_out), CADENCE_EINVAL);
    CHECK_ERR(cadence_publisher_subscribe(timer, record_tick, &ticks, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_publisher_connect(timer, NULL), CADENCE_EINVAL);
    CHECK_EQ(sub_out.id, SENTINEL);

    CHECK_OK(cadence_cancel(connection));
    CHECK_OK(cadence_cancellable_release(connection));
    CHECK_OK(cadence_cancellable_release(subscription));
    CHECK_OK(cadence_publisher_release(timer));
}

static void one_shot_and_cancellable_functions(cadence_loop loop) {
    recorder never = {.loop = loop};
    cadence_cancellable out = {SENTINEL};
    CHECK_ERR(cadence_loop_schedule(loop, 0, 0, "default", NULL, NULL, &out), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule(loop, 0, 0, "default", record_tick, &never, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule(loop, 0, 0, NULL, record_tick, &never, &out), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_schedule(loop, 0, 0, "unknown", record_tick, &never, &out), CADENCE_ENOENT);
    /* Names one byte off the built-in ones are other names (the built-ins are matched byte by byte). */
    static const char *const near_builtins[] = {"defaul", "defaultt", "Default", "commo", "commons", "commoN"};
    for (int i = 0; i < (int)(sizeof near_builtins / sizeof *near_builtins); i++)
        CHECK_ERR(cadence_loop_schedule(loop, 0, 0, near_builtins[i], record_tick, &never, &out), CADENCE_ENOENT);
    for (int i = 0; i < MALFORMED_COUNT; i++)
        CHECK_ERR(cadence_loop_schedule(loop, 0, 0, malformed_modes[i], record_tick, &never, &out), CADENCE_EINVAL);
    for (int i = 0; i < BAD_SECONDS_COUNT; i++) {
        CHECK_ERR(cadence_loop_schedule(loop, bad_seconds[i], 0, "default", record_tick, &never, &out), CADENCE_EINVAL);
        CHECK_ERR(cadence_loop_schedule(loop, 0, bad_seconds[i], "default", record_tick, &never, &out), CADENCE_EINVAL);
    }
    CHECK_EQ(out.id, SENTINEL);
    CHECK_OK(cadence_loop_run(loop, "default", 0.02));
    CHECK_EQ(never.count, 0);                  /* on error the callback is never called */

    CHECK_OK(cadence_loop_schedule(loop, 1e300, 0, "default", record_tick, &never, &out));
    CHECK_OK(cadence_loop_run(loop, "default", 0.02));
    CHECK_EQ(never.count, 0);                  /* saturated, not wrapped */
    CHECK_ERR(cadence_is_cancelled(out, NULL), CADENCE_EINVAL);
    CHECK_OK(cadence_cancel(out));
    CHECK_OK(cadence_cancellable_release(out));
}

static int never_called;  /* by the countdown and poll callbacks given with bad arguments */
static void never_countdown(const cadence_countdown_event *event, void *userdata) { (void)event, (void)userdata; never_called++; }
static void never_poll(const cadence_poll *poll, void *userdata) { (void)poll, (void)userdata; never_called++; }

/* Virtual time, loop threads, countdowns and pollers. */
static void virtual_thread_countdown_poller_functions(cadence_loop real) {
    cadence_loop loop = {SENTINEL};
    CHECK_ERR(cadence_loop_create_virtual(NULL), CADENCE_EINVAL);
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_ERR(cadence_loop_armed_timers(loop, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_armed_timers(real, NULL), CADENCE_EINVAL);
    for (int i = 0; i < BAD_SECONDS_COUNT; i++) CHECK_ERR(cadence_loop_jump_clock(loop, bad_seconds[i]), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_jump_clock(real, 1), CADENCE_ENOTSUP);

    CHECK_ERR(cadence_loop_start_thread(real, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_start_thread(real, "common"), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_start_thread(real, "unknown"), CADENCE_ENOENT);
    for (int i = 0; i < MALFORMED_COUNT; i++) CHECK_ERR(cadence_loop_start_thread(real, malformed_modes[i]), CADENCE_EINVAL);
    CHECK_OK(cadence_loop_stop_thread(real));  /* none was started */

    cadence_cancellable out = {SENTINEL};
    CHECK_ERR(cadence_countdown_start(loop, 3, 0.25, NULL, NULL, &out), CADENCE_EINVAL);
    CHECK_ERR(cadence_countdown_start(loop, 3, 0.25, never_countdown, NULL, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_countdown_start(loop, -3, 0.25, never_countdown, NULL, NULL), CADENCE_EINVAL);  /* past */
    CHECK_ERR(cadence_countdown_start(loop, 3, 0, never_countdown, NULL, &out), CADENCE_EINVAL);
    for (int i = 0; i < BAD_SECONDS_COUNT; i++) {
        CHECK_ERR(cadence_countdown_start(loop, 3, bad_seconds[i], never_countdown, NULL, &out), CADENCE_EINVAL);
        CHECK_ERR(cadence_countdown_start(loop, -3, bad_seconds[i], never_countdown, NULL, &out), CADENCE_EINVAL);
        if (isnan(bad_seconds[i]) || isinf(bad_seconds[i]))  /* other negative deadlines are past dates */
            CHECK_ERR(cadence_countdown_start(loop, bad_seconds[i], 0.25, never_countdown, NULL, &out), CADENCE_EINVAL);
    }

    CHECK_ERR(cadence_poller_start(loop, 30, 0, NULL, NULL, &out), CADENCE_EINVAL);
    CHECK_ERR(cadence_poller_start(loop, 30, 0, never_poll, NULL, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_poller_start(loop, 0, 0, never_poll, NULL, &out), CADENCE_EINVAL);
    CHECK_ERR(cadence_poller_start(loop, 30, -2.0, never_poll, NULL, &out), CADENCE_EINVAL);
    for (int i = 0; i < BAD_SECONDS_COUNT; i++) {
        CHECK_ERR(cadence_poller_start(loop, bad_seconds[i], 0, never_poll, NULL, &out), CADENCE_EINVAL);
        if (bad_seconds[i] != CADENCE_TOLERANCE_DEFAULT)
            CHECK_ERR(cadence_poller_start(loop, 30, bad_seconds[i], never_poll, NULL, &out), CADENCE_EINVAL);
    }
    CHECK_EQ(out.id, SENTINEL);
    CHECK_EQ(armed_timers(loop), 0);

    cadence_cancellable poller;
    double tolerance = -5;
    CHECK_OK(cadence_poller_start(loop, 30, CADENCE_TOLERANCE_DEFAULT, never_poll, NULL, &poller));
    CHECK_ERR(cadence_poller_tolerance(poller, NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_poller_finish(poller, 0), CADENCE_EALREADY);   /* never started */
    CHECK_ERR(cadence_poller_finish(poller, 1), CADENCE_EALREADY);
    int active = -1;
    CHECK_ERR(cadence_poller_active(poller, NULL), CADENCE_EINVAL);
    CHECK_OK(cadence_poller_set_active(poller, 0));
    CHECK_OK(cadence_poller_active(poller, &active));
    CHECK_EQ(active, 0);
    CHECK_OK(cadence_poller_set_active(poller, -7));                 /* any non-zero is "active" */
    CHECK_OK(cadence_poller_active(poller, &active));
    CHECK_EQ(active, 1);
    CHECK_OK(cadence_poller_tolerance(poller, &tolerance));
    CHECK(tolerance == 3.0);
    CHECK_OK(cadence_cancellable_release(poller));

    CHECK_OK(cadence_loop_run(loop, "default", 100));
    CHECK_EQ(never_called, 0);                 /* on error the callback is never called */
    CHECK_OK(cadence_loop_close(loop));
    CHECK_OK(cadence_loop_run(real, "default", 0));  /* no thread was started */
}

/* One error of each kind, with the message it leaves (cadence_last_error_message): the function,
 * the argument, the rule and the value. */
static void messages(cadence_loop loop) {
    cadence_publisher publisher = {SENTINEL};
    cadence_cancellable out = {SENTINEL};
    recorder never = {.loop = loop};
    CHECK_ERR_MSG(cadence_publisher_create(loop, NAN, 0, "default", &publisher), CADENCE_EINVAL,
                  "cadence_publisher_create: interval must be > 0 and finite, got nan");
    CHECK_ERR_MSG(cadence_publisher_create(loop, INFINITY, 0, "default", &publisher), CADENCE_EINVAL,
                  "cadence_publisher_create: interval must be > 0 and finite, got inf");
    CHECK_ERR_MSG(cadence_publisher_create(loop, 0, 0, "default", &publisher), CADENCE_EINVAL,
                  "cadence_publisher_create: interval must be > 0 and finite, got 0.0");
    CHECK_ERR_MSG(cadence_publisher_create(loop, 1, -1, "default", &publisher), CADENCE_EINVAL,
                  "cadence_publisher_create: tolerance must be >= 0 and finite, got -1.0");
    CHECK_ERR_MSG(cadence_loop_schedule(loop, -0.5, 0, "default", record_tick, &never, &out), CADENCE_EINVAL,
                  "cadence_loop_schedule: delay must be >= 0 and finite, got -0.5");
    /* INFINITY runs until stopped, so the rule of a run's duration says so. */
    CHECK_ERR_MSG(cadence_loop_run(loop, "default", -1), CADENCE_EINVAL,
                  "cadence_loop_run: seconds must be >= 0, or infinity to run until stopped, got -1.0");
    CHECK_ERR_MSG(cadence_loop_run(loop, "default", NAN), CADENCE_EINVAL,
                  "cadence_loop_run: seconds must be >= 0, or infinity to run until stopped, got nan");
    CHECK_ERR_MSG(cadence_loop_run(loop, "default", -INFINITY), CADENCE_EINVAL,
                  "cadence_loop_run: seconds must be >= 0, or infinity to run until stopped, got -inf");
    CHECK_ERR_MSG(cadence_loop_schedule_repeating(loop, 0, 1, 0, 7, "default", record_tick, &never, &out),
                  CADENCE_EINVAL,
                  "cadence_loop_schedule_repeating: missed_ticks must be a cadence_missed_ticks value "
                  "(0 skip, 1 burst, 2 delay), got 7");
    CHECK_ERR_MSG(cadence_loop_schedule(loop, 0, 0, "fast", record_tick, &never, &out), CADENCE_ENOENT,
                  "cadence_loop_schedule: mode must be registered on the loop first (added as a mode or a common mode), "
                  "got \"fast\"");
    CHECK_ERR_MSG(cadence_loop_add_mode(loop, ""), CADENCE_EINVAL,
                  "cadence_loop_add_mode: mode must be 1-255 bytes of UTF-8 without control characters, got \"\"");
    CHECK_ERR_MSG(cadence_loop_add_mode(loop, "tab\there"), CADENCE_EINVAL,
                  "cadence_loop_add_mode: mode must be 1-255 bytes of UTF-8 without control characters, "
                  "got \"tab\\there\"");
    CHECK_ERR_MSG(cadence_loop_run(loop, "common", 0), CADENCE_EINVAL,
                  "cadence_loop_run: mode must not be \"common\" (a pseudo-mode, never run itself), got \"common\"");
    CHECK_ERR_MSG(cadence_loop_run(loop, NULL, 0), CADENCE_EINVAL, "cadence_loop_run: mode must not be NULL, got NULL");
    CHECK_ERR_MSG(cadence_loop_add_mode(loop, "\xff\xfe"), CADENCE_EINVAL,
                  "cadence_loop_add_mode: mode must be UTF-8, got \"\xef\xbf\xbd\xef\xbf\xbd\"");  /* U+FFFD twice */
    /* Past ASCII, control, format and separator characters are escaped too (NEL, U+2028, U+202E),
     * so a message is one line that a terminal shows as it is; a name past 255 bytes is cut. */
    CHECK_ERR_MSG(cadence_loop_add_mode(loop, "a\xc2\x85" "b"), CADENCE_EINVAL,
                  "cadence_loop_add_mode: mode must be 1-255 bytes of UTF-8 without control characters, "
                  "got \"a\\u{0085}b\"");
    CHECK_ERR_MSG(cadence_loop_run(loop, "x\xe2\x80\xa8" "y\xe2\x80\xae", 0), CADENCE_ENOENT,
                  "cadence_loop_run: mode must be registered on the loop first (added as a mode or a common mode), "
                  "got \"x\\u{2028}y\\u{202E}\"");
    CHECK_ERR_MSG(cadence_loop_add_mode(loop, "\xff\xc2\x85"), CADENCE_EINVAL,
                  "cadence_loop_add_mode: mode must be UTF-8, got \"\xef\xbf\xbd\\u{0085}\"");
    static char huge[100001];
    memset(huge, 'm', sizeof huge - 1);
    CHECK_ERR(cadence_loop_add_mode(loop, huge), CADENCE_EINVAL);
    const char *cut = cadence_last_error_message();
    CHECK(strlen(cut) < 400);
    CHECK(strstr(cut, "mmm\"... (100000 bytes)") != NULL);
    CHECK_ERR_MSG(cadence_loop_now(loop, NULL), CADENCE_EINVAL, "cadence_loop_now: out must not be NULL, got NULL");
    CHECK_ERR_MSG(cadence_loop_schedule(loop, 0, 0, "default", NULL, NULL, &out), CADENCE_EINVAL,
                  "cadence_loop_schedule: fn must not be NULL, got NULL "
                  "(or set the loop's fire function: cadence_loop_set_callbacks)");
    CHECK_ERR_MSG(cadence_loop_create(NULL), CADENCE_EINVAL, "cadence_loop_create: out must not be NULL, got NULL");
    CHECK_ERR_MSG(cadence_loop_jump_clock(loop, 1), CADENCE_ENOTSUP,
                  "cadence_loop_jump_clock: loop must be a virtual loop, got a real loop (its clock is libuv's)");
    CHECK_EQ(publisher.id, SENTINEL);
    CHECK_EQ(out.id, SENTINEL);

    /* A cancel after a cancel. */
    CHECK_OK(cadence_loop_schedule(loop, 10, 0, "default", record_tick, &never, &out));
    CHECK_OK(cadence_cancel(out));
    CHECK_ERR_MSG(cadence_cancel(out), CADENCE_EALREADY,
                  "cadence_cancel: cancellable must not be cancelled already, got one that was "
                  "(cancelled before, a one-shot that has fired, or a countdown that has finished)");
    /* A call that succeeds leaves the message alone. */
    CHECK_OK(cadence_cancellable_release(out));
    CHECK_STR(cadence_last_error_message(), "cadence_cancel: cancellable must not be cancelled already, got one "
                                            "that was (cancelled before, a one-shot that has fired, or a "
                                            "countdown that has finished)");

    cadence_loop virtual_loop;
    CHECK_OK(cadence_loop_create_virtual(&virtual_loop));
    CHECK_ERR_MSG(cadence_loop_start_thread(virtual_loop, "default"), CADENCE_ENOTSUP,
                  "cadence_loop_start_thread: loop must be a real loop, got a virtual loop (its clock moves only "
                  "when told)");
    CHECK_ERR_MSG(cadence_loop_jump_clock(virtual_loop, 1e30), CADENCE_EINVAL,
                  "cadence_loop_jump_clock: seconds must keep a virtual clock before its end (2^64 - 1 ns, about "
                  "584 years after its start), got 1e+30");
    /* A run until stopped, which a virtual clock cannot make, says what to do instead. */
    CHECK_ERR_MSG(cadence_loop_run(virtual_loop, "default", INFINITY), CADENCE_EINVAL,
                  "cadence_loop_run: seconds must keep a virtual clock before its end (2^64 - 1 ns, about 584 years "
                  "after its start), got inf (a virtual loop cannot run until stop(): pass a duration, or run until "
                  "idle)");
    /* A finite span past the clock's end is shown as given, not as the run until stopped it saturates to. */
    CHECK_ERR_MSG(cadence_loop_run(virtual_loop, "default", 1.8e10), CADENCE_EINVAL,
                  "cadence_loop_run: seconds must keep a virtual clock before its end (2^64 - 1 ns, about 584 years "
                  "after its start), got 18000000000.0");
    CHECK_OK(cadence_loop_close(virtual_loop));
    CHECK_EQ(never.count, 0);
}

/* A loop has at most 65,536 modes ("default" and "common" included): one more is CADENCE_ENOMEM,
 * and the modes it has keep working. */
static void mode_limit(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    char name[16];
    for (int i = 0; i < 65534; i++) {
        snprintf(name, sizeof name, "m%d", i);
        CHECK_OK(cadence_loop_add_mode(loop, name));
    }
    CHECK_ERR_MSG(cadence_loop_add_common_mode(loop, "one more"), CADENCE_ENOMEM,
                  "cadence_loop_add_common_mode: mode must be one of at most 65536 modes of a loop (default "
                  "and common included), got \"one more\" as one more");
    CHECK_OK(cadence_loop_add_common_mode(loop, "m65533"));  /* registered already: fine */
    recorder ticks = {.loop = loop};
    cadence_cancellable once;
    CHECK_OK(cadence_loop_schedule(loop, 0.01, 0, "m65533", record_tick, &ticks, &once));
    CHECK_OK(cadence_loop_run(loop, "m65533", 0.05));
    CHECK_EQ(ticks.count, 1);
    CHECK_OK(cadence_cancellable_release(once));
    CHECK_OK(cadence_loop_close(loop));
}

int main(void) {
    memset(too_long, 'm', sizeof too_long - 1);  /* 256 bytes; too_long + 1 is the longest valid */
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    loop_functions(loop);
    publisher_functions(loop);
    one_shot_and_cancellable_functions(loop);
    virtual_thread_countdown_poller_functions(loop);
    messages(loop);
    mode_limit();

    /* The loop still works after all that. */
    recorder ticks = {.loop = loop};
    cadence_cancellable once;
    CHECK_OK(cadence_loop_schedule(loop, 0.01, 0, "default", record_tick, &ticks, &once));
    CHECK_OK(cadence_loop_run(loop, "default", 0.05));
    CHECK_EQ(ticks.count, 1);
    CHECK_OK(cadence_cancellable_release(once));
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
