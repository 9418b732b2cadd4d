/* The engine's own storage gives its memory back: 100,000 one-shots armed and cancelled, then
 * their handles released, and two passes of the loop with nothing armed (a table that fills again
 * at once keeps its pages), leave at most 32 bytes a timer resident (measured: 16; the timer table
 * keeps its buffers but not their pages, and 4 bytes a slot of generations: FreedMemory.swift);
 * it kept about 110 before. No task and no malloc_trim. (Not 10 % of this small process's RSS:
 * the generations alone are 6 % of it.) Under valgrind or a sanitizer, whose own memory and
 * allocator are in the process's RSS, the figures are printed only. */
#include <string.h>
#include <stdlib.h>
#include <stdio.h>

#include "check.h"

enum { COUNT = 100000, KEPT_PER_TIMER = 32 };

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

static long resident_bytes(void) {
    long size = 0, resident = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    CHECK(statm != NULL);
    CHECK(fscanf(statm, "%ld %ld", &size, &resident) == 2);
    fclose(statm);
    return resident * 4096;
}

static void on_tick(const cadence_tick *tick, void *userdata) { (void)tick; (void)userdata; }

/* Two passes with nothing armed: the second gives an emptied table's memory back. */
static void two_quiet_passes(cadence_loop loop) {
    CHECK_OK(cadence_loop_run(loop, "default", 0));
    CHECK_OK(cadence_loop_run(loop, "default", 0));
}

/* Arms `count` one-shots an hour away, then cancels and releases every handle. */
static void arm_and_cancel(cadence_loop loop, cadence_cancellable *handles, int count) {
    uint64_t armed = 0;
    for (int i = 0; i < count; i++) CHECK_OK(cadence_loop_schedule(loop, 3600, 0, "default", on_tick, NULL, &handles[i]));
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, (uint64_t)count);
    for (int i = 0; i < count; i++) {
        CHECK_OK(cadence_cancel(handles[i]));
        CHECK_OK(cadence_cancellable_release(handles[i]));
    }
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    CHECK_EQ(armed, (uint64_t)0);
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    cadence_cancellable *handles = calloc(COUNT, sizeof *handles);
    CHECK(handles != NULL);
    for (int i = 0; i < COUNT; i++) handles[i] = (cadence_cancellable){0};  /* every page touched now */
    arm_and_cancel(loop, handles, COUNT / 100);  /* the engine's small tables warm */
    long before = resident_bytes();
    arm_and_cancel(loop, handles, COUNT);
    two_quiet_passes(loop);
    long after = resident_bytes();
    printf("RSS before %ld KB, after %d one-shots armed and cancelled %ld KB\n", before / 1024, COUNT, after / 1024);
    const char *preload = getenv("LD_PRELOAD");
    int measured = !UNDER_SANITIZER && (preload == NULL || strstr(preload, "vgpreload") == NULL);
    if (measured) CHECK(after - before <= (long)COUNT * KEPT_PER_TIMER);
    arm_and_cancel(loop, handles, COUNT);  /* again, in the same buffers */
    two_quiet_passes(loop);
    if (measured) CHECK(resident_bytes() - before <= (long)COUNT * KEPT_PER_TIMER);
    free(handles);
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
