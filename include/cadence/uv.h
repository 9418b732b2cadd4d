/*
 * cadence/uv.h - a Cadence loop on a libuv loop that the program runs itself.
 *
 * Kept apart from <cadence.h>, which does not include <uv.h>: include this one only in programs
 * that use libuv (and build with libuv's headers, `pkg-config --cflags libuv`). Added in 0.3.
 */
#ifndef CADENCE_UV_H
#define CADENCE_UV_H

#include <uv.h>

#include "../cadence.h"

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-extension" /* as in cadence.h */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Creates a Cadence loop that lives on `uv_loop`, an initialized libuv loop (not yet closed with
 * uv_loop_close: libuv itself crashes on a closed one) that the program runs with uv_run: its
 * timers fire from that uv_run (in any of its modes), on the thread that runs it, in `mode`
 * ("default", or a custom mode, which is registered), with every rule of cadence_loop_run
 * (fire-date order, never early at nanosecond resolution, coalescing).
 *
 * The loop adds two handles to `uv_loop`: a uv_poll_t on a timerfd armed with the loop's next
 * wake-up, and a uv_async_t. Like a uv_timer_t (libuv's uv_ref / uv_unref), they keep
 * uv_run(UV_RUN_DEFAULT) going exactly while a referenced Cadence timer that can fire in `mode` is
 * armed (one cadence_loop_run_until_idle would wait for; see cadence_timer_unref), so uv_run
 * returns once the host's own work and those timers are done. A timer armed, cancelled or
 * unreferenced on another thread counts from the host's next turn (uv_run is woken for it); one
 * armed after uv_run has returned fires when the host runs its loop again. cadence_loop_close closes
 * them (uv_close); their close callbacks free them. Destroyed from a callback of the host's
 * uv_run, nothing more is needed: uv_run returns once the host's own handles are closed, and
 * uv_loop_close then returns 0. Destroyed after uv_run has returned, run the loop once more
 * (uv_run(uv_loop, UV_RUN_NOWAIT)) before uv_loop_close. Never close these handles yourself: a
 * uv_walk that closes every handle comes after cadence_loop_close.
 *
 * Threads: call this and cadence_loop_close on the thread that runs `uv_loop` (or while nothing
 * runs it), as libuv requires of every handle. Every other function may be called from any
 * thread: arming and cancelling re-arm the timerfd, which wakes the host's uv_run.
 * cadence_loop_run, cadence_loop_run_until_idle, cadence_loop_run_pass, cadence_loop_fd and
 * cadence_loop_start_thread return CADENCE_ENOTSUP for this loop: the host's uv_run drives it. `uv_loop` must outlive the Cadence
 * loop. A Cadence callback must not run `uv_loop` itself (a nested uv_run skips Cadence's pass).
 *
 * Errors: CADENCE_EINVAL (uv_loop, mode or out NULL; mode malformed or "common"), CADENCE_EIO (no
 * timerfd or handle could be made), CADENCE_ENOMEM. */
CADENCE_EXPORT int cadence_loop_create_on_uv(uv_loop_t *_Nullable uv_loop, const char *_Nullable mode,
                                             cadence_loop *_Nullable out);

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* CADENCE_UV_H */
