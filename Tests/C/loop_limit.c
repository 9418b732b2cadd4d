/* At most 2,048 loops exist at once (a scheduled timer's handle names its loop's place in 11
 * bits): the 2,049th, real or virtual, is CADENCE_ENOMEM with a message that says so, and
 * changes nothing; the loop in the last place has timers like any other; a loop destroyed frees
 * its place for the next one, whose timers its stale handles never name, however many loops
 * came and went. */
#include "recorder.h"

#define LOOP_LIMIT 2048

static cadence_loop loops[LOOP_LIMIT];

static const char *const too_many_virtual =
    "cadence_loop_create_virtual: loops must number at most 2048 at once (a timer handle names its "
    "loop in 11 bits), got 2049 (destroy one first)";
static const char *const too_many_real =
    "cadence_loop_create: loops must number at most 2048 at once (a timer handle names its loop in "
    "11 bits), got 2049 (destroy one first)";

/* A one-shot due at 1 s on virtual `loop`, fired there once; its handle is below 2^60. */
static void fires_once(cadence_loop loop) {
    recorder fired = {.loop = loop};
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", record_tick, &fired, &timer));
    CHECK(timer.id >> 59 == 1);
    CHECK_OK(cadence_loop_run(loop, "default", 2));
    CHECK_EQ(fired.count, 1);
    CHECK_RANGE(fired.dates[0], 1 - 1e-9, 1 + 1e-9);
    CHECK_OK(cadence_cancellable_release(timer));
}

static void the_2049th_loop(void) {
    for (int i = 0; i < LOOP_LIMIT; i++) CHECK_OK(cadence_loop_create_virtual(&loops[i]));
    cadence_loop extra = {0};
    CHECK_ERR_MSG(cadence_loop_create_virtual(&extra), CADENCE_ENOMEM, too_many_virtual);
    CHECK_ERR_MSG(cadence_loop_create(&extra), CADENCE_ENOMEM, too_many_real);
    CHECK_EQ(extra.id, 0);  /* out is written only on success */
    fires_once(loops[LOOP_LIMIT - 1]);  /* the last place */

    /* A destroyed loop's place goes to the next loop; the old loop's pending timer's handle
     * names nothing there. */
    recorder never = {.loop = loops[7]};
    cadence_cancellable old;
    CHECK_OK(cadence_loop_schedule(loops[7], 1, 0, "default", record_tick, &never, &old));
    CHECK_OK(cadence_loop_close(loops[7]));
    CHECK_OK(cadence_loop_create_virtual(&loops[7]));
    CHECK_ERR(cadence_loop_create_virtual(&extra), CADENCE_ENOMEM);
    cadence_cancellable new;
    recorder fired = {.loop = loops[7]};
    CHECK_OK(cadence_loop_schedule(loops[7], 1, 0, "default", record_tick, &fired, &new));
    CHECK(new.id != old.id);
    CHECK_ERR(cadence_cancel(old), CADENCE_EBADF);
    CHECK_ERR(cadence_cancellable_release(old), CADENCE_EBADF);
    CHECK_OK(cadence_loop_run(loops[7], "default", 2));
    CHECK_EQ(fired.count, 1);
    CHECK_EQ(never.count, 0);
    CHECK_OK(cadence_cancellable_release(new));
    for (int i = 0; i < LOOP_LIMIT; i++) CHECK_OK(cadence_loop_close(loops[i]));
}

/* Loops made and destroyed many times over, each with a timer whose handle is kept: every loop
 * after them still works, and no kept handle names its timer. */
static void after_many_destroyed(void) {
    enum { ROUNDS = 3000 };
    static cadence_cancellable kept[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        cadence_loop loop;
        CHECK_OK(cadence_loop_create_virtual(&loop));
        CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", record_tick, NULL, &kept[i]));
        CHECK_OK(cadence_loop_close(loop));
    }
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    recorder fired = {.loop = loop};
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule(loop, 1, 0, "default", record_tick, &fired, &timer));
    for (int i = 0; i < ROUNDS; i++) {
        CHECK(kept[i].id != timer.id);
        CHECK_ERR(cadence_cancel(kept[i]), CADENCE_EBADF);
    }
    CHECK_OK(cadence_loop_run(loop, "default", 2));
    CHECK_EQ(fired.count, 1);
    CHECK_OK(cadence_cancellable_release(timer));
    CHECK_OK(cadence_loop_close(loop));
}

int main(void) {
    the_2049th_loop();
    after_many_destroyed();
    return 0;
}
