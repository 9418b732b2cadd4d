/*
 * cadence.h - the C API of Cadence: Foundation- and Combine-style timers on a libuv event loop.
 *
 * Conventions (see docs/c-api.md for the full contract and the ABI policy):
 *  - Times are seconds as a double. Fire dates are seconds since the Unix epoch, derived from the
 *    monotonic clock (virtual seconds on a virtual loop).
 *  - Every function returns 0 or a negative CADENCE_E* code, unless its comment says what else
 *    (the version and error-string functions; a few that return a count, a handle or a userdata
 *    on success); results come back through `out` pointers, which are written only on success. A function that takes a callback and returns
 *    an error never calls that callback (libuv's rule).
 *  - Handles are small values with a generation count: a stale, released or foreign handle gives
 *    CADENCE_EBADF, never a crash, and never names a later object, however often its slot is
 *    reused (a slot whose generations run out is retired: no count wraps). A zero handle ({0}) is
 *    "no handle"; releasing it is a no-op. A scheduled timer's handle names its slot in its
 *    loop's timer table, which stays the handle's until it is released: up to 2,048 loops exist
 *    at once, each with up to 16,777,216 scheduled timers armed or with a handle not yet released
 *    (CADENCE_ENOMEM beyond).
 *  - Threads: every function may be called from any thread. Callbacks run on the thread that is
 *    inside cadence_loop_run, cadence_loop_run_until_idle or cadence_loop_run_pass for their
 *    loop, on the loop's own thread (cadence_loop_start_thread), or on the thread that runs a
 *    host's uv_loop_t (<cadence/uv.h>).
 *  - Durations are rounded up to whole nanoseconds (never early): 1e-12 s is 1 ns, and 0.067 s,
 *    a double slightly above 67 ms, is 67 000 001 ns.
 *  - Callbacks: the code a timer calls is a "callback"; its `void *userdata` is the LAST parameter
 *    (cadence_tick_fn, cadence_countdown_fn, cadence_poll_fn; GLib's user_data rule), and every
 *    callback type added from 0.4 on follows it. The binding-only cadence_fire_fn, which predates
 *    the rule, keeps userdata first (cadence_release_fn has no other parameter).
 *  - Stability: everything above the section "For language bindings" at the end follows the ABI
 *    policy of docs/c-api.md. That section (calls only a binding's runtime needs: ctypes, cffi)
 *    may change in any minor version. A former name is kept for one minor version as an alias
 *    marked CADENCE_DEPRECATED ("Former names", near the end), then removed.
 */
#ifndef CADENCE_H
#define CADENCE_H

#include <stddef.h>
#include <stdint.h>
#include "cadence/version.h"

#if defined(__GNUC__) || defined(__clang__)
#define CADENCE_EXPORT __attribute__((visibility("default")))
#else
#define CADENCE_EXPORT
#endif

/* Marks a former name, kept as an alias for one minor version: the compiler warns, naming the
 * function to use instead (-Wdeprecated-declarations). Define CADENCE_NO_DEPRECATION_WARNINGS
 * before including this header to call former names without the warning. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(CADENCE_NO_DEPRECATION_WARNINGS)
#define CADENCE_DEPRECATED(message) __attribute__((deprecated(message)))
#else
#define CADENCE_DEPRECATED(message)
#endif

#if !defined(__clang__)
#define _Nonnull
#define _Nullable
#else
/* The nullability qualifiers are Clang's extension: a program built with -pedantic -Werror must
 * still include this header (the pragma is popped at its end). */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-extension"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Errors (negative; most equal the negated errno of the same name) ---- */

#define CADENCE_ENOENT (-2)     /* unknown run loop mode */
#define CADENCE_EIO (-5)        /* event loop failure */
#define CADENCE_EBADF (-9)      /* stale, released or foreign handle, or a closed loop */
#define CADENCE_ENOMEM (-12)    /* out of memory */
#define CADENCE_EBUSY (-16)     /* loop is running, or has a thread of its own */
#define CADENCE_EINVAL (-22)    /* invalid argument: NULL, NaN, infinity, out of range, bad mode name */
#define CADENCE_ENOTSUP (-95)   /* operation does not apply to this object */
#define CADENCE_EALREADY (-114) /* already cancelled */

/* ---- Handles ---- */

/* An event loop that fires timers. */
typedef struct cadence_loop { uint64_t id; } cadence_loop;
/* A timer publisher: connectable, or autoconnect. */
typedef struct cadence_publisher { uint64_t id; } cadence_publisher;
/* Something that can be cancelled: a subscription, a connection, a scheduled timer (one-shot or
 * repeating), a countdown or a poller. */
typedef struct cadence_cancellable { uint64_t id; } cadence_cancellable;

/* One firing, as passed to a callback. Valid only during the call. */
typedef struct cadence_tick {
    double fire_date;           /* when the tick was due on the timer's grid, seconds since the epoch */
    uint64_t skipped;           /* grid points skipped before this fire because the loop was late */
    cadence_cancellable source; /* the subscription or scheduled timer being called */
    int final;                  /* 1 on the registration's last call (a one-shot's fire), else 0 (a
                                 * subscription's or a repeating timer's ticks); after it the
                                 * callback's userdata is never used again. Added in 0.4. */
} cadence_tick;

/* A callback: `tick` is never NULL; `userdata` is what was passed when subscribing. */
typedef void (*cadence_tick_fn)(const cadence_tick *_Nonnull tick, void *_Nullable userdata);

/* A loop's fire function (cadence_loop_set_callbacks), called by the one-shots of
 * cadence_loop_schedule_default: the fields of a cadence_tick as scalars, for bindings (ctypes,
 * cffi) that call back cheaper with no struct to read. `fire_date` in seconds as tick->fire_date,
 * `skipped` as tick->skipped (0 for a one-shot), `final` as tick->final (1 for a one-shot).
 * Added in 0.4. */
typedef void (*cadence_fire_fn)(void *_Nullable userdata, double fire_date, uint64_t skipped, int final);

/* A loop's release function (cadence_loop_set_callbacks): told that a registration's userdata
 * will never be used again, when the registration ended without a final call (GLib's
 * GDestroyNotify). Added in 0.4. */
typedef void (*cadence_release_fn)(void *_Nullable userdata);

/* ---- Version and errors ---- */

/* The loaded library's version as (major << 16) | (minor << 8) | patch; compare with CADENCE_VERSION_HEX. */
CADENCE_EXPORT unsigned cadence_version(void);
/* The loaded library's version as "major.minor.patch"; a static string, never NULL. */
CADENCE_EXPORT const char *_Nonnull cadence_version_string(void);
/* A short English message for an error code ("success" for 0); a static string, never NULL (also for unknown codes). */
CADENCE_EXPORT const char *_Nonnull cadence_strerror(int err);
/* The symbolic name of an error code, such as "EINVAL" ("OK" for 0); "UNKNOWN" for codes Cadence does not define. */
CADENCE_EXPORT const char *_Nonnull cadence_err_name(int err);
/* What the calling thread's last failed Cadence call found wrong, as "<function>: <argument>
 * <rule>, got <value>", for example "cadence_publisher_create: tolerance must be >= 0 and finite, got
 * -1.0" (dlerror and sqlite3_errmsg keep the same kind of message). Thread-local: a call that fails
 * on one thread never changes another thread's message. Every function that returns a negative
 * code sets it; a call that succeeds leaves it alone (as errno), so read it right after the call
 * that failed. The string belongs to Cadence and stays valid until the next failing Cadence call on
 * this thread or the thread's end; copy it to keep it. Never NULL: "" before any call has failed on
 * this thread. The text is for people, and may change between versions; branch on the code.
 * Added in 0.3. */
CADENCE_EXPORT const char *_Nonnull cadence_last_error_message(void);

/* ---- Loops ---- */

/* Creates a loop on libuv's monotonic clock. The modes "default" and "common" exist already.
 * Errors: CADENCE_EINVAL (out is NULL), CADENCE_EIO (libuv failed), CADENCE_ENOMEM. */
CADENCE_EXPORT int cadence_loop_create(cadence_loop *_Nullable out);

/* Cancels every timer on the loop, releases every handle that belongs to it, and frees it (its
 * descriptor, cadence_loop_fd, is closed: stop watching it first; a loop on a host's uv_loop_t
 * closes its libuv handles, on the thread that runs that loop: see <cadence/uv.h>).
 * A zero handle is a no-op (returns 0). Errors: CADENCE_EBUSY while the loop is running (for
 * example from its own callback; libuv's uv_loop_close rule), CADENCE_EBADF for a stale handle,
 * such as a loop closed already (closing twice is harmless: the second call does nothing).
 * Threads: a cadence_cancel or cadence_cancellable_release of one of its handles that another
 * thread made before this call may still be calling the loop's release function (which that call
 * makes before it returns) when this returns; keep what the release function uses until such
 * calls have returned. After this returns, every other call with the loop's handles is EBADF. */
CADENCE_EXPORT int cadence_loop_close(cadence_loop loop);

/* Runs the loop in `mode` for `seconds` of its clock (>= 0; 0 fires what is due and returns;
 * INFINITY runs until cadence_loop_stop, since 0.3), firing every due timer of that mode on this
 * thread, sleeping in between, then returns; returns early after cadence_loop_stop. Timers fire
 * in fire-date order, ties in scheduling order, never before their fire date; a timer armed
 * during a pass waits for a later pass.
 * Errors: CADENCE_EINVAL (mode NULL, empty or malformed, "common", seconds NaN, -INFINITY or
 * negative, or, on a virtual loop, seconds that would take the clock to its end, INFINITY
 * included: see cadence_loop_jump_clock), CADENCE_ENOENT (mode not registered), CADENCE_EBUSY
 * (already running, for example when called from one of its callbacks), CADENCE_ENOTSUP (a loop
 * on a host's uv_loop_t, see <cadence/uv.h>), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_loop_run(cadence_loop loop, const char *_Nullable mode, double seconds);

/* Runs the loop in `mode` as cadence_loop_run does, until no referenced timer that can fire in
 * `mode` is armed, then returns (libuv's UV_RUN_DEFAULT; early after cadence_loop_stop). Every
 * timer is referenced unless cadence_timer_unref was called on it (only scheduled timers can be
 * unreferenced): a one-shot until it fires or is cancelled; a repeating scheduled timer, a
 * connected publisher and a poller until cancelled; a countdown until it finishes. Only timers
 * in `mode`, and in "common" when `mode` is a common mode (read at each pass), count: a timer of
 * another mode can never fire in this run. The check follows each pass, so with nothing
 * referenced it fires what is due and returns, and after the last referenced one-shot fires it
 * returns at once (on a virtual loop the clock then reads that one-shot's fire date). A cancel or
 * unref from another thread that leaves nothing referenced wakes the run, which returns. On a
 * virtual loop the clock steps from wake-up to wake-up as in cadence_loop_run, with no bound (as
 * libuv): a referenced repeating timer keeps it going until a callback stops the loop, cancels or
 * unreferences the timer; a timer whose fire date saturated at the clock's end (a delay of about
 * 584 years or more) can never fire, so a virtual run whose only timers are such returns at once
 * (a real loop sleeps until stopped). Errors: CADENCE_EINVAL (mode NULL, empty, malformed or "common"),
 * CADENCE_ENOENT (mode not registered), CADENCE_EBUSY (already running, for example when called
 * from one of its callbacks, or the loop has a thread of its own), CADENCE_ENOTSUP (a loop on a
 * host's uv_loop_t, see <cadence/uv.h>), CADENCE_EBADF. Added in 0.3. */
CADENCE_EXPORT int cadence_loop_run_until_idle(cadence_loop loop, const char *_Nullable mode);

/* Makes a running cadence_loop_run or cadence_loop_run_until_idle return after its current pass.
 * On a loop that is not running it stops nothing; once cadence_loop_fd was called or a
 * cadence_loop_run_pass made, it makes the descriptor readable (until the next pass or run), so
 * that a program's loop that waits on it and runs passes wakes and can act on the stop it asked
 * for (since 0.4). Callable from callbacks (a release function's too) and other threads.
 * Errors: CADENCE_EBADF. */
CADENCE_EXPORT int cadence_loop_stop(cadence_loop loop);

/* Registers a custom mode (1-255 bytes of UTF-8, no control characters). Idempotent.
 * Errors: CADENCE_EINVAL (NULL, malformed, or "common"), CADENCE_ENOMEM (one more than 65,536
 * modes on the loop, "default" and "common" included), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_loop_add_mode(cadence_loop loop, const char *_Nullable mode);

/* Registers `mode` (if needed) as a common mode: timers in "common", existing ones included, fire
 * while the loop runs in it (as CFRunLoopAddCommonMode). Errors: as cadence_loop_add_mode. */
CADENCE_EXPORT int cadence_loop_add_common_mode(cadence_loop loop, const char *_Nullable mode);

/* Writes a fresh read of the loop's clock, on the fire-date scale, to *out.
 * Errors: CADENCE_EINVAL (out NULL), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_loop_now(cadence_loop loop, double *_Nullable out);

/* Writes how many times the loop has woken from sleep to fire timers to *out.
 * Errors: CADENCE_EINVAL (out NULL), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_loop_wakeups(cadence_loop loop, uint64_t *_Nullable out);

/* Writes how many timers are armed on the loop, in all modes, to *out (a repeating timer counts
 * once; a connected publisher is one timer whatever its subscribers).
 * Errors: CADENCE_EINVAL (out NULL), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_loop_armed_timers(cadence_loop loop, uint64_t *_Nullable out);

/* ---- Callbacks per loop: a fire function and a release function (added in 0.4; docs/c-api.md, "Bindings") ---- */

/* Sets the loop's fire function and release function, for the registrations made on the loop
 * from now on (one made before keeps what was set when it was made); NULL clears either.
 *
 * `release`: while it is set, every registration made on the loop (a scheduled timer, one-shot
 * or repeating; a subscription, a countdown, a poller) gets exactly one of these two ends:
 *  - a final call: a one-shot's fire (tick->final == 1, or the fire function's `final`), or a
 *    countdown's call with finished == 1; release is then not called;
 *  - release(userdata), exactly once, when it ends without one: cancelled (cadence_cancel),
 *    given up (cadence_cancellable_release of a handle whose work stops, see there), ended by its
 *    publisher (a subscription of a publisher that nothing can make tick again: released by the
 *    cadence_cancel or cadence_cancellable_release of its handle, which still names it), or by
 *    cadence_loop_close.
 * Release is called after every callback of the registration has returned (a callback that
 * cancels its own registration gets its release once it has returned), with no Cadence lock
 * held (so it may call any Cadence function: schedule a timer, cancel another, release a
 * handle), on the thread that ended it: inside cadence_cancel, cadence_cancellable_release or
 * cadence_loop_close, or on the loop's thread (after a callback that cancelled itself). After
 * either end, Cadence never uses that userdata again: GLib's GDestroyNotify, libuv's uv_close
 * callback. A registering call that fails calls neither. Connections have no userdata.
 *
 * `fire`: the function cadence_loop_schedule_default calls, and cadence_loop_schedule,
 * cadence_loop_schedule_repeating and cadence_publisher_subscribe when their `fn` is NULL
 * (scalars, no struct to read through a pointer: one callback per loop for a binding's every
 * timer). Functions those calls are given are unaffected; a countdown's or poller's callback
 * must still be given.
 * Threads: any thread; a registration racing with this call gets the old or the new pair.
 * A loop keeps at most 31 release functions for its armed scheduled timers (each keeps its own
 * by a 5-bit tag, 8 bytes a timer less): a timer scheduled while 31 others, each with a timer
 * still armed, have been set fails with CADENCE_ENOMEM; one with no armed timer left gives its
 * place to the next. (Subscriptions, countdowns and pollers keep theirs in full.)
 * Errors: CADENCE_EBADF (stale or closed loop). */
CADENCE_EXPORT int cadence_loop_set_callbacks(cadence_loop loop, cadence_fire_fn _Nullable fire,
                                              cadence_release_fn _Nullable release);

/* ---- Driving a loop from your own event loop (poll, epoll, select, GLib, asyncio) ----
 *
 * A host loop watches the descriptor and calls cadence_loop_run_pass when it is readable, or
 * waits for cadence_loop_timeout and then calls it (libuv's uv_backend_fd, uv_backend_timeout and
 * UV_RUN_NOWAIT; sd-event's sd_event_get_fd). Both follow the mode of the latest pass ("default"
 * until the first). For a libuv program there is also a loop on its own uv_loop_t:
 * <cadence/uv.h>. Added in 0.3. */

/* Writes to *out a descriptor that is readable exactly when the loop has work to do now: a
 * wake-up due by the coalescing rule (in the mode of the latest cadence_loop_run_pass, "default"
 * until the first), or a call from another thread that came while the loop was running (a timer
 * armed during a pass, which the next pass plans for). Watch it for reading (POLLIN, EPOLLIN, G_IO_IN, asyncio's add_reader) and
 * call cadence_loop_run_pass when it is; afterwards it is unreadable again unless more work is
 * due. Arming or cancelling a timer, from any thread, re-arms it at once: a timer armed from
 * another thread makes it readable at its wake-up without a pass in between, and one cancelled
 * before it is due leaves it unreadable then. It is libuv's epoll descriptor of the loop: do not
 * read, write or close it; it stays the same until cadence_loop_close closes it.
 * Errors: CADENCE_EINVAL (out NULL), CADENCE_ENOTSUP (a virtual loop, whose clock moves only
 * when told, or a loop on a host's uv_loop_t: watch that loop), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_loop_fd(cadence_loop loop, int *_Nullable out);

/* Writes to *out the seconds of the loop's clock until it next needs a pass (in the mode of the
 * latest pass, "default" until the first; a loop on a uv_loop_t: its own mode): 0 if a wake-up is
 * due now, INFINITY (<math.h>) if no timer that could fire in that mode is armed. Coalescing is
 * in the answer (the wake-up that serves every timer due by then within its tolerance). Round up
 * when converting to a coarser unit, such as poll's milliseconds (ceil(t * 1000), -1 for
 * INFINITY), or the host wakes early and the pass finds nothing due. A timer armed from another
 * thread after the call may be due sooner: a host that must see that watches cadence_loop_fd.
 * Errors: CADENCE_EINVAL (out NULL), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_loop_timeout(cadence_loop loop, double *_Nullable out);

/* One pass on the calling thread, without waiting (uv_run's UV_RUN_NOWAIT): fires every timer due
 * in `mode` now, with every rule of cadence_loop_run (fire-date order, never early, a timer armed
 * during the pass waits for the next one), then arms cadence_loop_fd for the next wake-up in
 * `mode`. On a virtual loop it fires what is due at the loop's clock and does not move it. A pass
 * that fires timers at or after the wake-up it was armed for counts in cadence_loop_wakeups.
 * Errors: as cadence_loop_run: CADENCE_EINVAL (mode NULL, malformed or "common"), CADENCE_ENOENT,
 * CADENCE_EBUSY (running: called from one of its callbacks, inside cadence_loop_run, or with a
 * thread of its own), CADENCE_ENOTSUP (a loop on a host's uv_loop_t, which its uv_run drives),
 * CADENCE_EBADF. */
CADENCE_EXPORT int cadence_loop_run_pass(cadence_loop loop, const char *_Nullable mode);

/* Writes 1 to *out if a run until idle in `mode` would go on (a referenced timer that can fire
 * in `mode` is armed, counted as cadence_loop_run_until_idle counts; libuv's uv_loop_alive), else
 * 0. For a host that runs the loop until idle through cadence_loop_fd and cadence_loop_run_pass:
 * after each pass it asks, and returns on 0. While the latest answer is 1, a cancel or
 * cadence_timer_unref, from any thread, that leaves nothing referenced in `mode` makes the
 * descriptor readable, so that the host's wait ends and its next pass and question find the loop
 * idle. Errors: CADENCE_EINVAL (out NULL; mode NULL, malformed or "common"), CADENCE_ENOENT (mode
 * not registered), CADENCE_EBADF. Added in 0.4. */
CADENCE_EXPORT int cadence_loop_alive(cadence_loop loop, const char *_Nullable mode, int *_Nullable out);

/* ---- A loop on a thread of its own (the dispatch-timer use) ---- */

/* Starts a thread that runs the loop in `mode` until cadence_loop_stop_thread, so timers fire
 * without the program running the loop. Every function may then be called from any thread;
 * callbacks run on the loop's thread. Errors: CADENCE_ENOTSUP (a virtual loop, whose clock moves
 * only when told), CADENCE_EBUSY (running or already has a thread),
 * CADENCE_EINVAL / CADENCE_ENOENT (bad mode, as cadence_loop_run), CADENCE_ENOMEM (no thread),
 * CADENCE_EBADF. A loop on a host's uv_loop_t also gives CADENCE_ENOTSUP (its uv_run drives it). */
CADENCE_EXPORT int cadence_loop_start_thread(cadence_loop loop, const char *_Nullable mode);

/* Stops the loop's thread after its current pass and waits for it to end; 0 if it had none.
 * Several threads may call it at once: each returns once the loop's thread has ended.
 * Errors: CADENCE_EBUSY when called from the loop's own thread (a callback), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_loop_stop_thread(cadence_loop loop);

/* Writes 1 to *out while a thread started by cadence_loop_start_thread runs the loop (from its
 * start until cadence_loop_stop_thread has waited for it; Swift's Loop.hasThread), else 0. Any
 * thread. Errors: CADENCE_EINVAL (out NULL), CADENCE_EBADF. Added in 0.4. */
CADENCE_EXPORT int cadence_loop_has_thread(cadence_loop loop, int *_Nullable out);

/* ---- Virtual time: the same engine on a clock that moves only when told ---- */

/* Creates a loop on a virtual clock that starts at 0 (fire dates are virtual seconds).
 * cadence_loop_run(loop, mode, d) then advances virtual time by d, stepping the clock to each
 * wake-up and firing what is due there, in order; with zero tolerance each timer fires exactly at
 * its fire date. Errors: CADENCE_EINVAL (out NULL), CADENCE_ENOMEM. */
CADENCE_EXPORT int cadence_loop_create_virtual(cadence_loop *_Nullable out);

/* Moves a virtual loop's clock forward by `seconds` (>= 0) without running it, as if its thread
 * were blocked; afterwards an overdue repeating timer fires once, on its grid.
 * Errors: CADENCE_ENOTSUP (a real loop), CADENCE_EINVAL (NaN, infinite or negative, or an advance
 * that would take the clock to its end, 2^64 - 1 ns or about 584 years after its start: the clock
 * is then left alone), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_loop_jump_clock(cadence_loop loop, double seconds);

/* For tests of stale handles, on any loop: moves the generation of every timer slot the loop has
 * used (and of those its predecessor in its place had) `reuses` further, as if each slot had held
 * that many more timers. A slot holds at most 16,777,215 timers in turn and is then retired for
 * good (see "Handles" above); this reaches that limit without 16 million schedules. Generations
 * only move forward: no handle can match again.
 * Errors: CADENCE_EBUSY (a timer is armed, or a scheduled timer's handle is not released),
 * CADENCE_EBADF. Added in 0.4. */
CADENCE_EXPORT int cadence_loop_age_timer_slots(cadence_loop loop, uint32_t reuses);

/* ---- Timer publishers (like Foundation's Timer.publish(every:tolerance:on:in:)) ---- */

/* Creates a connectable timer publisher: nothing is scheduled until cadence_publisher_connect.
 * `interval` > 0 and finite; `tolerance` >= 0 and finite (the timer may fire up to that late,
 * never early); `mode` a registered mode or "common".
 * Errors: CADENCE_EINVAL (out or mode NULL, bad numbers, malformed mode), CADENCE_ENOENT,
 * CADENCE_EBADF. */
CADENCE_EXPORT int cadence_publisher_create(cadence_loop loop, double interval, double tolerance,
                                            const char *_Nullable mode, cadence_publisher *_Nullable out);

/* What a repeating timer does when the loop gets to it after fire dates have passed (tokio's
 * MissedTickBehavior). SKIP (the default, Apple's Timer): fire once, report the latest grid point
 * passed and the skipped count, keep the grid. BURST: fire once per missed grid point, back to back
 * (one per loop pass). DELAY: fire once, report the missed fire date, restart the grid one interval
 * after the late fire, however small the lateness (tokio's Delay); a fire is late when it comes
 * after its tolerance window (fire date + tolerance) and more than 5 ms after its fire date (half
 * the interval, for intervals under 10 ms), or an interval or more after it; any other fire keeps
 * the grid: a 50 ms timer whose loop is blocked until 70 ms fires at 70, 120, 170 ms. */
typedef enum cadence_missed_ticks {
    CADENCE_MISSED_TICKS_SKIP = 0,
    CADENCE_MISSED_TICKS_BURST = 1,
    CADENCE_MISSED_TICKS_DELAY = 2
} cadence_missed_ticks;

/* Sets the missed-tick policy of the timers the publisher starts from now on (a running timer
 * keeps its own); cadence_publisher_autoconnect copies it. Errors: CADENCE_EINVAL (not one of
 * the cadence_missed_ticks values), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_publisher_set_missed_ticks(cadence_publisher publisher, int policy);

/* The settings of a publisher, connectable or autoconnect (which has those of the publisher it
 * was made from), as given to cadence_publisher_create: its interval and tolerance in seconds, and
 * its missed-tick policy (a cadence_missed_ticks value, as last set), written to *out. Any
 * thread; readable for as long as the publisher handle is held, whatever its timer's state.
 * Errors: CADENCE_EINVAL (out NULL), CADENCE_EBADF. Added in 0.4. */
CADENCE_EXPORT int cadence_publisher_interval(cadence_publisher publisher, double *_Nullable out);
CADENCE_EXPORT int cadence_publisher_tolerance(cadence_publisher publisher, double *_Nullable out);
CADENCE_EXPORT int cadence_publisher_missed_ticks(cadence_publisher publisher, int *_Nullable out);

/* Writes the name of the publisher's mode as UTF-8 to `buffer`, as snprintf does: at most
 * size - 1 bytes and a NUL (nothing when size is 0, and then buffer may be NULL). Returns the
 * name's length in bytes without the NUL (a mode name has at most 255, so a buffer of 256 always
 * holds it; a return >= size means it was cut). Any thread.
 * Errors: CADENCE_EINVAL (buffer NULL with size > 0), CADENCE_EBADF. Added in 0.4. */
CADENCE_EXPORT int cadence_publisher_mode(cadence_publisher publisher, char *_Nullable buffer, size_t size);

/* Creates an autoconnect publisher with the same settings: it connects when its first subscriber
 * arrives, stops when the last one cancels, and starts a fresh timer for the next first
 * subscriber. Errors: CADENCE_EINVAL (out NULL), CADENCE_ENOTSUP (already an autoconnect
 * publisher), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_publisher_autoconnect(cadence_publisher publisher,
                                                 cadence_publisher *_Nullable out);

/* Subscribes `fn` to the publisher's ticks; `fn(tick, userdata)` runs on the loop's thread.
 * Subscribing does not connect a connectable publisher; the first subscriber starts an autoconnect
 * one. Cancel the returned subscription to stop delivery to it alone; the last one cancelled
 * stops an autoconnect publisher's timer. Releasing the subscription cancels it too (so 1,000
 * autoconnected subscriptions released leave no timer armed), unless it was detached
 * (cadence_cancellable_detach): then it keeps delivering until cancelled, until its publisher can
 * never tick again, or until cadence_loop_close. `fn` NULL (since 0.4): the loop's fire function
 * (cadence_loop_set_callbacks) is called instead, fire(userdata, fire_date, skipped, 0).
 * Errors: CADENCE_EINVAL (out NULL; fn NULL on a loop without a fire function), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_publisher_subscribe(cadence_publisher publisher, cadence_tick_fn _Nullable fn,
                                               void *_Nullable userdata, cadence_cancellable *_Nullable out);

/* Starts a connectable publisher's timer (first fire one interval from now) and returns a handle
 * to the connection; cancelling it stops the timer for good. Connecting again returns another
 * handle to the same connection (no second timer); connecting a cancelled publisher returns a
 * handle to an already-cancelled connection. The engine counts a publisher's connection handles:
 * releasing the last one stops the timer, as cadence_cancel does, unless one of them was detached
 * (cadence_cancellable_detach), which keeps the timer running until cancelled or
 * cadence_loop_close. Errors: CADENCE_EINVAL (out NULL), CADENCE_ENOTSUP (autoconnect
 * publisher), CADENCE_EBADF. Releasing stops the timer since 0.4 (it used to leave it running). */
CADENCE_EXPORT int cadence_publisher_connect(cadence_publisher publisher, cadence_cancellable *_Nullable out);

/* Releases a publisher handle; a publisher has no cancel and no detach. A connected timer keeps
 * running and its subscribers keep receiving while a connection handle (or, for an autoconnect
 * publisher, a subscription) is held or was detached. Once nothing can make the timer tick again
 * (the publisher released before it was ever connected, or its connection cancelled or its last
 * connection handle released), its subscriptions are cancelled (cadence_is_cancelled reports 1).
 * A zero handle is a no-op. Errors: CADENCE_EBADF (stale or already released; as for
 * cadence_cancellable_release, the thread's last error message is left alone). */
CADENCE_EXPORT int cadence_publisher_release(cadence_publisher publisher);

/* ---- Scheduled timers (without a publisher) ---- */

/* Calls `fn` once, `delay` seconds (>= 0, finite) from now, while the loop runs in a mode covered
 * by `mode`; `tolerance` >= 0. Fire-and-forget: releasing the handle does not cancel the timer
 * (asyncio's call_later handle, libuv's unref'd timer); cadence_cancel does. Its call has
 * tick->final = 1; cancelled or closed with its loop before it, it gets the loop's release
 * function instead, when one is set (cadence_loop_set_callbacks). `fn` NULL (since 0.4): the
 * loop's fire function is called instead, fire(userdata, fire_date, 0, 1).
 * Errors: CADENCE_EINVAL (out NULL, bad numbers, a mode NULL or malformed, fn NULL on a loop without a
 * fire function), CADENCE_ENOENT, CADENCE_EBADF, CADENCE_ENOMEM (see "Handles" above); on error
 * `fn` is never called. */
CADENCE_EXPORT int cadence_loop_schedule(cadence_loop loop, double delay, double tolerance,
                                         const char *_Nullable mode, cadence_tick_fn _Nullable fn,
                                         void *_Nullable userdata, cadence_cancellable *_Nullable out);

/* Calls `fn` `delay` seconds (>= 0, finite) from now, then every `interval` seconds (> 0, finite)
 * on that grid, while the loop runs in a mode covered by `mode`, each fire up to `tolerance`
 * (>= 0) seconds late; `missed_ticks` (a cadence_missed_ticks value) says what a late timer does,
 * as for publishers. A repeating Timer without a publisher (Swift's
 * Loop.schedule(after:interval:tolerance:in:missedTicks:)): one callback, no connect. It runs
 * until cadence_cancel, cadence_cancellable_release (since 0.4; before, releasing left it running)
 * or cadence_loop_close; after cadence_cancellable_detach, until cadence_cancel or
 * cadence_loop_close. tick->fire_date is the grid point, tick->skipped the grid points skipped,
 * tick->final always 0 (it ends by cancel: the loop's release function, when one is set). `fn`
 * NULL (since 0.4): the loop's fire function is called instead, fire(userdata, fire_date,
 * skipped, 0).
 * Errors: CADENCE_EINVAL (out or mode NULL, bad numbers, an unknown policy, a malformed mode, fn
 * NULL on a loop without a fire function),
 * CADENCE_ENOENT, CADENCE_EBADF, CADENCE_ENOMEM (see "Handles" above); on error `fn` is never
 * called. Added in 0.2. */
CADENCE_EXPORT int cadence_loop_schedule_repeating(cadence_loop loop, double delay, double interval,
                                                   double tolerance, int missed_ticks,
                                                   const char *_Nullable mode,
                                                   cadence_tick_fn _Nullable fn, void *_Nullable userdata,
                                                   cadence_cancellable *_Nullable out);

/* Makes a scheduled timer (one-shot or repeating) no longer keep cadence_loop_run_until_idle
 * going (libuv's uv_unref, Node's timeout.unref()); it still fires as usual while the loop runs,
 * a repeating one on every tick. Calling it twice, or on a timer that has ended (cancelled, or a
 * one-shot that has fired), does nothing and returns 0. Callable from any thread.
 * Errors: CADENCE_ENOTSUP (a cancellable that is not a scheduled timer), CADENCE_EBADF. Added in 0.3. */
CADENCE_EXPORT int cadence_timer_unref(cadence_cancellable timer);

/* Makes a scheduled timer keep cadence_loop_run_until_idle going again, as it did when it was
 * scheduled (libuv's uv_ref). On a timer that has ended it does nothing and returns 0.
 * Errors: as cadence_timer_unref. Added in 0.3. */
CADENCE_EXPORT int cadence_timer_ref(cadence_cancellable timer);

/* Writes 1 to *out if the scheduled timer is armed and referenced (it keeps a run until idle in
 * one of its modes going; libuv's uv_has_ref), else 0 (also once it has ended).
 * Errors: CADENCE_EINVAL (out NULL), CADENCE_ENOTSUP (not a scheduled timer), CADENCE_EBADF.
 * Added in 0.3. */
CADENCE_EXPORT int cadence_timer_has_ref(cadence_cancellable timer, int *_Nullable out);

/* Moves a pending scheduled timer (from cadence_loop_schedule or cadence_loop_schedule_repeating)
 * to fire `delay` seconds (>= 0, finite) after a fresh clock read, without cancelling it:
 * Foundation's fireDate setter, Go's Timer.Reset, Node's refresh(), libuv's uv_timer_again. A
 * repeating timer starts a new grid there (fires at the new date, then every interval after it);
 * a debounce is a one-shot reset on every event. Ties: the reset timer fires after the timers
 * already due at its new fire date, as if scheduled now (as libuv and Node order a re-armed
 * timer); reset during a pass, it waits for a later pass. Threads: any thread, and callbacks (its
 * own included); the loop's lock decides against a fire on another thread: a reset that returns
 * 0 before the callback starts wins (the old fire date never fires), and a one-shot whose
 * callback has started has ended, so its reset gives CADENCE_EALREADY; a repeating timer whose
 * callback is running moves its next fire date. Errors: CADENCE_EINVAL (delay NaN, infinite or
 * negative), CADENCE_EALREADY (cancelled, or a one-shot that has fired or whose callback has
 * started), CADENCE_ENOTSUP (a cancellable that is not a scheduled timer), CADENCE_EBADF; on error
 * the timer is left as it was. Added in 0.3. */
CADENCE_EXPORT int cadence_timer_reset(cadence_cancellable timer, double delay);

/* Write a pending scheduled timer's next fire date (seconds on the fire-date scale, as
 * tick->fire_date and cadence_loop_now; asyncio's TimerHandle.when(), Foundation's fireDate), its
 * interval (seconds, 0 for a one-shot; Foundation's timeInterval) or its tolerance (seconds) to
 * *out. During a repeating timer's callback the fire date is already the next grid point.
 * Whether the timer is still valid (Foundation's isValid) is cadence_is_cancelled's answer.
 * Errors: CADENCE_EINVAL (out NULL), CADENCE_EALREADY (no longer valid: cancelled, or a one-shot
 * that has fired or whose callback has started), CADENCE_ENOTSUP (a cancellable that is not a
 * scheduled timer), CADENCE_EBADF. Added in 0.3. */
CADENCE_EXPORT int cadence_timer_fire_date(cadence_cancellable timer, double *_Nullable out);
CADENCE_EXPORT int cadence_timer_interval(cadence_cancellable timer, double *_Nullable out);
CADENCE_EXPORT int cadence_timer_tolerance(cadence_cancellable timer, double *_Nullable out);

/* ---- Countdowns ---- */

/* One call of a countdown's callback. Valid only during the call. */
typedef struct cadence_countdown_event {
    int64_t remaining;          /* whole seconds to the deadline, rounded up; 0 at the end */
    int finished;               /* 1 on the last call, which follows the call with remaining 0 */
    double date;                /* the loop's clock when the value was computed */
    cadence_cancellable source; /* the countdown */
} cadence_countdown_event;

typedef void (*cadence_countdown_fn)(const cadence_countdown_event *_Nonnull event, void *_Nullable userdata);

/* Starts a countdown to `deadline`, a date on the loop's clock, not a number of seconds to go:
 * seconds since the epoch on a real loop, virtual seconds on a virtual one, as cadence_loop_now
 * gives (for 10 s: cadence_loop_now(loop, &now), then deadline = now + 10; a bare 10 counts 10 s
 * only on a virtual loop at 0, and is long past on a real one, which then finishes at once). Calls
 * `fn` with the remaining whole seconds on the loop's next pass and whenever the value changes on
 * a tick every `tick` seconds (> 0, finite), then with 0 at the deadline, then once more with
 * finished = 1. Each value is computed from the clock and the deadline when it is delivered, so
 * after any gap the next one is right. `fn` is never called from inside this function (libuv's
 * rule: a registering call never calls back): the first value comes from a timer due at once, on
 * the loop's next pass, at the same virtual time on a virtual loop; a countdown cancelled before
 * that pass delivers nothing. A past deadline calls with 0 and finished on that pass. The timers are
 * in the "common" mode. Cancelling the countdown removes its timers (CADENCE_EALREADY once it has
 * finished); releasing the handle cancels it too, unless it was detached
 * (cadence_cancellable_detach): then it counts down to 0 and finishes.
 * Errors: CADENCE_EINVAL (fn or out NULL, tick or deadline not finite, tick <= 0), CADENCE_EBADF;
 * on error `fn` is never called. */
CADENCE_EXPORT int cadence_countdown_start(cadence_loop loop, double deadline, double tick,
                                           cadence_countdown_fn _Nullable fn, void *_Nullable userdata,
                                           cadence_cancellable *_Nullable out);

/* Write the countdown's deadline (a date on the loop's clock, as given) and its tick (seconds)
 * to *out. Any thread; readable for as long as the handle is held, also once the countdown was
 * cancelled or finished. Errors: CADENCE_EINVAL (out NULL), CADENCE_EBADF (a dead handle, or one
 * that is not a countdown's). Added in 0.4. */
CADENCE_EXPORT int cadence_countdown_deadline(cadence_cancellable countdown, double *_Nullable out);
CADENCE_EXPORT int cadence_countdown_tick(cadence_cancellable countdown, double *_Nullable out);

/* ---- Pollers: an operation every interval, never overlapping ---- */

/* Pass as a poller's tolerance to get 10 % of its interval (Apple's advice for repeating timers). */
#define CADENCE_TOLERANCE_DEFAULT (-1.0)

/* One poll, as passed to a poller's callback. Valid only during the call. */
typedef struct cadence_poll {
    uint64_t number;            /* 1 for the first poll; pass it to cadence_poller_finish */
    double date;                /* the loop's clock when the poll started */
    cadence_cancellable source; /* the poller */
} cadence_poll;

typedef void (*cadence_poll_fn)(const cadence_poll *_Nonnull poll, void *_Nullable userdata);

/* Starts a poller on the loop ("common" mode): every `interval` seconds (> 0, finite; the first
 * poll one interval from now) it calls `fn` unless the previous poll is still running. A poll runs
 * until cadence_poller_finish is called with its number, from any thread, at any later time (also
 * from inside `fn`), so a slow operation delays the next poll to the first tick after it finishes
 * instead of overlapping. `tolerance` >= 0, or CADENCE_TOLERANCE_DEFAULT for 10 % of the interval.
 * Cancelling the poller stops it for good; releasing the handle cancels it too, unless it was
 * detached (cadence_cancellable_detach): then it keeps polling until cadence_loop_close.
 * Errors: CADENCE_EINVAL (fn or out NULL, bad interval or tolerance), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_poller_start(cadence_loop loop, double interval, double tolerance,
                                        cadence_poll_fn _Nullable fn, void *_Nullable userdata,
                                        cadence_cancellable *_Nullable out);

/* Marks poll `number` as finished. Errors: CADENCE_EALREADY (that poll is not running: finished
 * already, or never started), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_poller_finish(cadence_cancellable poller, uint64_t number);

/* Pauses (active = 0) or resumes (active != 0) a poller. While paused its timer is removed and
 * nothing polls; resuming polls at once (on the loop's next pass, unless a poll is running) and
 * restarts the ticks from now. Errors: CADENCE_EALREADY (cancelled), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_poller_set_active(cadence_cancellable poller, int active);

/* Writes the poller's interval, in seconds, to *out. Any thread; readable for as long as the
 * handle is held. Errors: CADENCE_EINVAL (out NULL), CADENCE_EBADF (a dead handle, or one that
 * is not a poller's). Added in 0.4. */
CADENCE_EXPORT int cadence_poller_interval(cadence_cancellable poller, double *_Nullable out);

/* Writes the tolerance the poller's timer uses, in seconds, to *out.
 * Errors: CADENCE_EINVAL (out NULL), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_poller_tolerance(cadence_cancellable poller, double *_Nullable out);

/* Writes 1 to *out if the poller polls (not paused by cadence_poller_set_active, not cancelled,
 * its loop not closed; Swift's Poller.isActive), else 0. Errors: CADENCE_EINVAL (out NULL),
 * CADENCE_EBADF. Added in 0.4. */
CADENCE_EXPORT int cadence_poller_active(cadence_cancellable poller, int *_Nullable out);

/* ---- Cancellables ---- */

/* Cancels a subscription, a connection, a scheduled timer, a countdown or a poller. Once it
 * returns, no callback for it starts; called from another thread while one of its callbacks runs
 * on the loop's thread, it waits for that callback to return (for a subscription: for the tick
 * being delivered, which may be another subscriber's callback of the same publisher), and not for
 * later ones; so do not call it from another thread while holding a lock that those callbacks
 * take, nor from a callback on one loop's thread for a timer whose callback, on another loop's
 * thread, cancels one of the first loop's running timers (each would wait for the other). A second
 * cancel returns at once. Safe inside callbacks, including the one cancelled, where it returns at
 * once (a one-shot cancelling itself gets CADENCE_EALREADY: it ended when it fired).
 * Returns 0 only for the call that stopped it: the engine decides in one atomic step, so of any
 * number of threads cancelling the same handle at once exactly one gets 0 and every other
 * CADENCE_EALREADY (Swift's cancel() returning true, Python's cancel() returning True). The call
 * that stops a registration calls the loop's release function (cadence_loop_set_callbacks) with
 * its userdata before it returns, after that wait (from inside the registration's own callback:
 * once that callback has returned).
 * Errors: CADENCE_EALREADY (already cancelled, ended on its own: a one-shot that has fired, a
 * finished countdown), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_cancel(cadence_cancellable cancellable);

/* Writes 1 to *out if the cancellable was cancelled (or its one-shot has fired), else 0.
 * Errors: CADENCE_EINVAL (out NULL), CADENCE_EBADF. */
CADENCE_EXPORT int cadence_is_cancelled(cadence_cancellable cancellable, int *_Nullable out);

/* Releases a handle ("giving it up": docs/c-api.md, "Lifetimes"): frees it and stops what only
 * it could stop (libuv's uv_close), unless it was detached (cadence_cancellable_detach):
 *  - a subscription is cancelled (the last one of an autoconnect publisher stops its timer);
 *  - a connection: releasing the last handle to a publisher's connection stops its timer, as
 *    cadence_cancel does (every cadence_publisher_connect of one publisher names one connection);
 *  - a countdown or a poller is cancelled;
 *  - a repeating scheduled timer is cancelled (since 0.4; before, it ran until
 *    cadence_loop_close); a one-shot is left armed and still fires once (fire-and-forget).
 * As cadence_cancel, a release that stops something waits for a callback of it running on another
 * thread, so no callback for it starts once it returns; the loop's release function
 * (cadence_loop_set_callbacks) is then called inside this call. A zero handle is a no-op.
 * Errors: CADENCE_EBADF (stale or already released), without setting the thread's last error
 * message (since 0.4): finalizers release handles at any moment, also between another call's
 * failure and the read of its message. */
CADENCE_EXPORT int cadence_cancellable_release(cadence_cancellable cancellable);

/* Detaches a handle: the caller says by name "keep it going without me", so that releasing it
 * afterwards leaves its work running (a repeating scheduled timer keeps firing, a subscription
 * keeps delivering, a connection keeps its timer running, a countdown counts down to its finish,
 * a poller keeps polling) until it is cancelled through a handle still held, its publisher can
 * never tick again, or cadence_loop_close. The handle stays valid: it can still be cancelled,
 * and must still be released. Detaching a connection handle detaches the connection (no later
 * release of one of its handles stops the timer). A detached repeating scheduled timer,
 * subscription, countdown or poller, once released, stays valid as its callbacks' source
 * (tick->source, event->source, poll->source: a poll is still finished through it) until it is
 * cancelled through it, the countdown finishes, or cadence_loop_close; the program must not use
 * it after the release, and a second release (or detach) gives CADENCE_EBADF. Changes nothing for
 * a one-shot (fire-and-forget anyway: its handle is dead once released). Detaching twice does
 * nothing and returns 0. Any thread.
 * Errors: CADENCE_EBADF (stale, released or never made). Added in 0.4. */
CADENCE_EXPORT int cadence_cancellable_detach(cadence_cancellable cancellable);

/* ---- Memory ---- */

/* Sets whether Cadence hands freed heap pages back to the system when one of its timer tables
 * grows past 1 MB, by calling glibc's malloc_trim(0): enabled != 0 turns it on, 0 off (the
 * default). A growing table frees its old buffer, whose pages glibc keeps resident (about 17
 * bytes per timer at 10^6 timers); malloc_trim(0) gives them back but trims the whole process's
 * heap, so it is the program's choice. Process-wide, for every loop; any thread, any time.
 * Emptied tables give their pages back without it (madvise). Swift: Loop.trimsMemory; Python:
 * cadence.set_trim_memory. Returns 0. Added in 0.4. */
CADENCE_EXPORT int cadence_set_trim_memory(int enabled);

/* Writes 1 to *out if trimming is on (cadence_set_trim_memory), else 0.
 * Errors: CADENCE_EINVAL (out NULL). Added in 0.4. */
CADENCE_EXPORT int cadence_trim_memory(int *_Nullable out);

/* Writes how many malloc_trim(0) calls Cadence has made in this process to *out (0 unless
 * trimming was turned on and a table then grew past 1 MB). Errors: CADENCE_EINVAL (out NULL).
 * Added in 0.4. */
CADENCE_EXPORT int cadence_memory_trims(uint64_t *_Nullable out);

/* ---- Former names (deprecated in 0.4, removed in 0.5): each does what its new name does ---- */

/* Former name of cadence_loop_close (Swift's and Python's close()). */
CADENCE_DEPRECATED("use cadence_loop_close")
CADENCE_EXPORT int cadence_loop_destroy(cadence_loop loop);

/* Former name of cadence_publisher_create (the cadence_timer_* functions act on scheduled timers). */
CADENCE_DEPRECATED("use cadence_publisher_create")
CADENCE_EXPORT int cadence_timer_publish(cadence_loop loop, double interval, double tolerance,
                                         const char *_Nullable mode, cadence_publisher *_Nullable out);

/* Former name of cadence_loop_jump_clock (an "advance" runs the timers on the way, as
 * cadence_loop_run does on a virtual loop; this call moves the clock without running them). */
CADENCE_DEPRECATED("use cadence_loop_jump_clock")
CADENCE_EXPORT int cadence_loop_advance_clock(cadence_loop loop, double seconds);

/* ==== For language bindings ==========================================================
 *
 * Stability: the declarations from here to the end of the header serve the runtimes of language
 * bindings (Python's ctypes binding, cffi): they save a binding the calls back into its own
 * language, struct reads and arguments that a C program does not mind. They MAY CHANGE IN ANY
 * MINOR VERSION, outside the ABI policy of docs/c-api.md (a changed one says so in the
 * CHANGELOG); a C program should use the functions above. The patch-version promise holds.
 * Userdata here is a binding's integer key (a slot in its table of callbacks) cast to a pointer. */

/* The one-shot of cadence_loop_schedule(loop, delay, 0, "default", ..., userdata, out) with the
 * loop's fire function as its callback: fire(userdata, fire_date, 0, 1) once, `delay` seconds
 * (>= 0, finite; rounded up to whole nanoseconds) from now, while the loop runs in "default", with
 * no tolerance. A one-shot like the others: fire-and-forget (releasing its handle leaves it
 * armed), stopped by cadence_cancel, reset and read by the cadence_timer_* functions; its
 * userdata's end follows cadence_loop_set_callbacks. The cheapest start: three arguments, no mode
 * or callback to check, and the handle as the result (a binding makes no out-parameter): returns
 * the new handle's id (> 0, below 2^60: the `id` of a cadence_cancellable), or a negative error
 * code: CADENCE_EINVAL (delay NaN, infinite or negative; the loop has no fire function:
 * "cadence_loop_set_callbacks first"), CADENCE_EBADF, CADENCE_ENOMEM (see "Handles" above); on
 * error nothing is called. Added in 0.4. */
CADENCE_EXPORT int64_t cadence_loop_schedule_default(cadence_loop loop, double delay, void *_Nullable userdata);

/* A one-shot of the loop's fire function, fire(userdata, fire_date, 0, 1), in "default", due at
 * `fire_date` and up to `tolerance` (seconds >= 0, finite) later, never earlier, whose handle
 * ends with the timer. `fire_date` is in seconds of the loop's monotonic clock: CLOCK_MONOTONIC
 * on a real loop (clock_gettime(CLOCK_MONOTONIC), Python's time.monotonic(), libuv's uv_hrtime()
 * in seconds), the virtual clock on a virtual loop (its fire-date scale); a date within a
 * hundredth of a nanosecond of a whole one is that nanosecond (a double's rounding of it), any
 * other is rounded up; a date that has passed is due at once, in the next pass. So two timers
 * keep the order of their dates whenever they were armed (asyncio's call_at, whose `when` is an
 * absolute date: a delay would be measured from a clock read a few microseconds apart for each).
 * Its tick's fire_date is on the fire-date scale, as for every timer.
 * The handle ends with the timer: its fire (its final call, batched or not), the cancel that stops
 * it (cadence_cancel, cadence_cancel_steal) or cadence_loop_close releases the handle, so the
 * caller never releases it (a release before then does what it does for any one-shot: gives the
 * handle up and leaves the timer armed). From then on the handle is stale, and every call with it
 * returns CADENCE_EBADF, which for such a handle means "ended"; it never names another timer (see
 * "Handles"). For a binding whose handle objects would otherwise each make one more call to give
 * the handle up after the fire (Python's asyncio timers). Detaching it changes nothing.
 * Threads: any thread. Errors: CADENCE_EINVAL (out NULL; fire_date NaN or infinite; tolerance
 * negative, NaN or infinite; the loop has no fire function), CADENCE_EBADF, CADENCE_ENOMEM (see
 * "Handles" above); on error nothing is called. Added in 0.4. */
CADENCE_EXPORT int cadence_loop_schedule_transient(cadence_loop loop, double fire_date, double tolerance,
                                                   void *_Nullable userdata,
                                                   cadence_cancellable *_Nullable out);

/* cadence_loop_schedule_transient for `count` records at once: record i arms a one-shot due at
 * fire_dates[i], up to tolerances[i] later, with userdata[i], and writes its handle to out[i],
 * exactly as cadence_loop_schedule_transient(loop, fire_dates[i], tolerances[i], userdata[i],
 * &out[i]) would, in record order (so records with equal dates fire in record order, after the
 * timers armed before this call). For a binding that collects the starts made between two turns
 * of its event loop and hands them over in one call (Python's cadence.asyncio: about 0.7 us a
 * ctypes call), whose per-record cost is the engine's alone.
 * A bad record does not stop the others: its out[i] is {0}, nothing is armed for it and its
 * userdata is never called or released. Returns 0 when every record was armed, else the error
 * of the first record that was not (CADENCE_EINVAL: fire date NaN or infinite, tolerance
 * negative, NaN or infinite, the loop has no fire function; CADENCE_EBADF: the loop is stale or
 * destroyed; CADENCE_ENOMEM), whose index the thread's last error message names ("record 3: ...").
 * count 0 does nothing and returns 0 (the arrays may then be NULL); a NULL array with count > 0,
 * or a count of 2^63 or more (a negative int passed by mistake), is CADENCE_EINVAL, with nothing
 * armed and out untouched.
 * Units: seconds as doubles, on the loop's monotonic clock (see cadence_loop_schedule_transient).
 * Threads: any thread; a call from another thread takes effect before the loop's next pass.
 * Added in 0.4. */
CADENCE_EXPORT int cadence_loop_schedule_transient_batch(cadence_loop loop, size_t count,
                                                         const double *_Nullable fire_dates,
                                                         const double *_Nullable tolerances,
                                                         void *_Nullable const *_Nullable userdata,
                                                         cadence_cancellable *_Nullable out);

/* One fire of a batch (cadence_loop_set_fire_batch): what the loop's fire function would have
 * been called with for a one-shot, fire(userdata, fire_date, 0, 1), and the one-shot's handle
 * (`source`, as cadence_tick's). Added in 0.4. */
typedef struct cadence_fire_record {
    void *_Nullable userdata;   /* as given to the registering call */
    double fire_date;           /* seconds, as cadence_tick's fire_date */
    cadence_cancellable source; /* the one-shot's handle; {0} once a call made for an earlier
                                 * record cancelled or reset it: skip the record */
} cadence_fire_record;

/* A loop's batch function: `count` (1 to 256) one-shot fires in fire-date order. `records` and
 * `started` are valid only during the call; `*started` is 0 when it begins. Before it calls
 * anything for record i (or skips it), the function sets *started = i + 1: the timers of the
 * records before *started have fired, those from it on are still due and not yet called.
 * Added in 0.4. */
typedef void (*cadence_fire_batch_fn)(cadence_fire_record *_Nonnull records, size_t count,
                                      size_t *_Nonnull started);

/* Hands the loop's one-shots that call its fire function (cadence_loop_schedule_default, and the
 * one-shots of cadence_loop_schedule with fn NULL) to `batch` in batches, from the next pass on,
 * instead of calling the fire function once per fire: for a binding whose every call from C
 * costs more than the fire itself (ctypes, about 0.25 us), one call per batch. NULL goes back to
 * one call per fire. The fire function must be set first (cadence_loop_set_callbacks), and stays
 * what is called for the loop's subscriptions and repeating timers.
 *
 * The one-shots that a pass takes one after another go into one batch (at most 256, then the
 * next); the fire of anything else (another callback, a repeating timer, a countdown) hands over
 * the batch first, so calls keep the fire-date order of the pass. A record's call is its
 * one-shot's final call: its userdata is the caller's from then on, and its release function is
 * never called. A batched one-shot stays what it would be without a batch, due and not yet
 * called, until `batch` says its call has started (`*started`, above), so that, called on the
 * loop's thread from the call for an earlier record:
 *  - cadence_cancel (or cadence_cancel_steal) of a later record's timer stops it, with its release
 *    (or hands its userdata back), and sets the record's `source` to {0}: `batch` must skip it;
 *  - cadence_timer_reset of it moves it to a later pass, and sets `source` to {0} too (the timer
 *    keeps its userdata for that fire);
 *  - cadence_timer_fire_date, cadence_is_cancelled, cadence_loop_armed_timers and the others read
 *    it as pending; those of the records before *started read as fired.
 * A call from another thread cannot know how far `batch` has got: for it, the timers of the
 * batch being handed over have fired. Its cancel of one waits until `batch` returns, as it waits
 * for a running callback (see cadence_cancel), and then returns CADENCE_EALREADY: so once it
 * returns, no call for that timer starts.
 * `batch` runs on the thread running the loop, with no Cadence lock held: it may call any
 * Cadence function, except this one on the same loop (CADENCE_EINVAL). From another thread, this
 * call waits while a batch is handed over, until `batch` returns (as a cancel does).
 * Errors: CADENCE_EINVAL (batch set and the loop has no fire function; called from `batch`),
 * CADENCE_EBADF. Added in 0.4. */
CADENCE_EXPORT int cadence_loop_set_fire_batch(cadence_loop loop, cadence_fire_batch_fn _Nullable batch);

/* cadence_loop_run_pass, collecting the pass's last batch: when the pass ends with a batch
 * (cadence_loop_set_fire_batch) whose every record's userdata has all the bits of `mask` set,
 * that fits in `records` (`capacity` records; 255 hold any: a batch that fills its 256 records
 * is handed over at once, before the pass knows it is the last) and after which no Swift job
 * waits to run, that batch is not handed to the batch function: it is copied to records[0] to
 * records[*count - 1], in fire-date order, and its one-shots end as fired, their calls made (each
 * record's userdata is the caller's from then on, as after a batch call; `source` is the spent
 * one-shot's handle). Otherwise *count is 0 and every fire went to the batch or fire function, as
 * in cadence_loop_run_pass. Batches handed over earlier in the pass (a full one, at 256 records,
 * or one before the fire of anything else) keep the fire-date order: the collected records are
 * the pass's last fires. For a binding whose call for such one-shots only queues them (asyncio's
 * ready queue) and whose every call from C costs more than a pass (ctypes): a quiet loop's
 * wake-up is then one call into C and none back. `mask` 0 or `capacity` 0 collects nothing; a
 * record's userdata is compared as an unsigned integer of pointer width. Only this call's pass
 * collects: a call that fails (another thread is running the loop: CADENCE_EBUSY) changes no
 * other pass. *count is written only on success.
 * Errors: as cadence_loop_run_pass, and CADENCE_EINVAL (count NULL; records NULL with a capacity;
 * capacity beyond SSIZE_MAX). Added in 0.4. */
CADENCE_EXPORT int cadence_loop_run_pass_collect(cadence_loop loop, const char *_Nullable mode,
                                                 uintptr_t mask, cadence_fire_record *_Nullable records,
                                                 size_t capacity, size_t *_Nullable count);

/* For bindings whose userdata is a positive integer key (a slot in a table of theirs), cast to a
 * pointer: cadence_cancel, except that when it stops a registration of any kind (a scheduled
 * timer, a subscription, a countdown, a poller) whose userdata the loop's release function
 * would then be called with (cadence_loop_set_callbacks), the release function is not called
 * and the userdata comes back as the result instead, the caller's from then on (GLib's
 * g_hash_table_steal: removed without its GDestroyNotify). One cancel protocol for every kind:
 * it saves a binding the call back into its own language that a release costs.
 * Returns the userdata as an intptr_t (> 0) when it stole it; 0 when this call stopped the
 * registration and stole nothing, whose end then follows cadence_cancel (the release function,
 * if any, is called: inside this call, or after the registration's callback when called from it,
 * which never steals; a userdata that is NULL or negative as an intptr_t is never stolen, and a
 * connection has none); a negative error code as cadence_cancel (CADENCE_EALREADY,
 * CADENCE_EBADF), nothing stolen: the registration had ended already, and a subscription whose
 * publisher can never tick again is released by this call as by cadence_cancel (its release
 * function called inside it, once). Threads and waits: as cadence_cancel.
 * Added in 0.4. */
CADENCE_EXPORT intptr_t cadence_cancel_steal(cadence_cancellable cancellable);

/* cadence_cancel_steal for `count` handles at once, for bindings (as
 * cadence_loop_schedule_transient_batch): out[i] is what cadence_cancel_steal(handles[i]) would
 * return (the stolen userdata > 0, 0, CADENCE_EALREADY or CADENCE_EBADF), in record order; a
 * record that fails does not stop the others, and does not set the thread's last error message
 * (a binding cancelling one-shots that may have fired meanwhile expects CADENCE_EBADF, "ended",
 * for those). Returns 0, or CADENCE_EINVAL for a NULL array with count > 0 or a count of 2^63
 * or more (nothing cancelled); count 0 does nothing (the arrays may then be NULL). Threads and waits: as cadence_cancel, record
 * by record (each may wait for its timer's callback running on another thread).
 * Added in 0.4. */
CADENCE_EXPORT int cadence_cancel_steal_batch(const cadence_cancellable *_Nullable handles, size_t count,
                                              intptr_t *_Nullable out);

/* cadence_cancellable_release, saying whether the release stopped work that was still going: for
 * a binding whose garbage collector gives handles up, to warn about work dropped while active
 * (Python's ResourceWarning). Returns 1 when it stopped a repeating scheduled timer, a
 * subscription, a countdown or a poller that had not been cancelled, ended or detached, or, as
 * the last handle to a connection that was not detached, the publisher's running timer; 0 when it
 * stopped nothing (a one-shot left to fire, a detached handle, work that had ended, a connection
 * handle that was not the last, a zero handle); CADENCE_EBADF as cadence_cancellable_release,
 * nothing changed. Threads, waits and the release function: as cadence_cancellable_release.
 * Added in 0.4. */
CADENCE_EXPORT int cadence_cancellable_release_stopping(cadence_cancellable cancellable);

/* ==== End of the section for language bindings ==== */

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* CADENCE_H */
