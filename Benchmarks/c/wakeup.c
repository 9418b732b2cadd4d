/* wakeup.c - what one idle wake-up touches: a repeating 200 ms timer, run by the library's own
 * run call, with callgrind collecting from the 4th fire's callback to the 5th's (one whole
 * steady-state cycle: the rest of a pass, the re-arm, the wait, the next pass up to the callback).
 * The period is long enough for the cycle to wait even under callgrind (at 10 ms, its work there
 * ran past the next fire date, and the wait was skipped); the program checks that it did wait and
 * exits with 3 if not.
 *
 * Run:   valgrind --tool=callgrind --instr-atstart=no --cache-sim=yes wakeup cadence|libuv
 *        (Benchmarks/profile.py does, and prints the figures)
 *
 * With instrumentation off until then, callgrind's simulated caches start empty, so its misses
 * count the distinct cache lines the cycle touches (code and data): what a wake-up after a long
 * sleep, its caches cold, has to fetch. The idle row of `make bench` (five 1 s wake-ups) pays
 * that fetch on each wake-up; instructions alone do not show it. Outside valgrind the requests
 * do nothing and the program just runs the five fires.
 */
#include <cadence.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <uv.h>
#include <valgrind/callgrind.h>

enum { FROM = 4, TO = 5, PERIOD_MS = 200 };

static uint64_t mono_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* The clock is read outside the collection, which it would otherwise count. */
static uint64_t cycle_began;
static int cycle_waited;
static void cycle_mark(int fires) {
  if (fires == FROM) {
    cycle_began = mono_ms();
    CALLGRIND_START_INSTRUMENTATION;
  }
  if (fires == TO) {
    CALLGRIND_STOP_INSTRUMENTATION;
    cycle_waited = mono_ms() - cycle_began >= PERIOD_MS / 2;
  }
}

static cadence_loop loop;
static cadence_cancellable timer;
static int cadence_fires;
static void on_cadence(const cadence_tick *tick, void *userdata) {
  (void)tick; (void)userdata;
  cycle_mark(++cadence_fires);
  if (cadence_fires == TO) { cadence_cancel(timer); cadence_loop_stop(loop); }
}

static int libuv_fires;
static void on_libuv(uv_timer_t *t) {
  cycle_mark(++libuv_fires);
  if (libuv_fires == TO) uv_timer_stop(t);
}

static int check(int code, const char *what) {
  if (code) fprintf(stderr, "wakeup: %s failed (%d)\n", what, code);
  return code;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "cadence")) {
    if (check(cadence_loop_create(&loop), "cadence_loop_create")) return 1;
    if (check(cadence_loop_schedule_repeating(loop, PERIOD_MS / 1e3, PERIOD_MS / 1e3, 0,
                                              CADENCE_MISSED_TICKS_SKIP,
                                              "default", on_cadence, NULL, &timer),
              "cadence_loop_schedule_repeating"))
      return 1;
    if (check(cadence_loop_run(loop, "default", 10), "cadence_loop_run")) return 1;
    if (check(cadence_loop_close(loop), "cadence_loop_close")) return 1;
    return cycle_waited ? 0 : 3;
  }
  if (argc == 2 && !strcmp(argv[1], "libuv")) {
    uv_loop_t *uv = uv_default_loop();
    uv_timer_t t;
    uv_timer_init(uv, &t);
    uv_timer_start(&t, on_libuv, PERIOD_MS, PERIOD_MS);
    uv_run(uv, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(uv, UV_RUN_DEFAULT);
    if (uv_loop_close(uv)) return 1;
    return cycle_waited ? 0 : 3;
  }
  fprintf(stderr, "usage: wakeup cadence|libuv\n");
  return 2;
}
