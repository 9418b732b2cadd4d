/* malloc_trim(0) trims the whole process's heap, so Cadence calls it only once the program opts
 * in (cadence_set_trim_memory): in a fresh process, timer tables that grow past 1 MB make no
 * trim; after the opt-in, tables that grow make one or more. */
#include "check.h"

enum { TIMERS = 100000 };  /* enough for a loop's timer tables to grow past 1 MB */

static void never(const cadence_tick *tick, void *userdata) {
    (void)tick;
    (void)userdata;
}

/* Arms TIMERS one-shots an hour away on a fresh virtual loop, whose tables grow, then closes it. */
static void grow_tables(void) {
    static cadence_cancellable handles[TIMERS];
    cadence_loop loop;
    CHECK_ERR(cadence_loop_create_virtual(&loop), 0);
    for (int i = 0; i < TIMERS; i++) {
        CHECK_ERR(cadence_loop_schedule(loop, 3600, 0, "default", never, NULL, &handles[i]), 0);
    }
    CHECK_ERR(cadence_loop_close(loop), 0);  /* cancels the timers, releases the handles */
}

int main(void) {
    int on = -1;
    uint64_t trims = 99;
    CHECK_ERR(cadence_trim_memory(&on), 0);
    CHECK_EQ(on, 0);  /* off by default */
    grow_tables();
    CHECK_ERR(cadence_memory_trims(&trims), 0);
    CHECK_EQ(trims, 0);  /* grown without a trim */

    CHECK_ERR(cadence_set_trim_memory(1), 0);
    CHECK_ERR(cadence_trim_memory(&on), 0);
    CHECK_EQ(on, 1);
    grow_tables();
    CHECK_ERR(cadence_memory_trims(&trims), 0);
    CHECK(trims >= 1);

    CHECK_ERR(cadence_set_trim_memory(0), 0);  /* and off again: no more trims */
    uint64_t before = trims;
    grow_tables();
    CHECK_ERR(cadence_memory_trims(&trims), 0);
    CHECK_EQ(trims, before);

    CHECK_ERR(cadence_trim_memory(NULL), CADENCE_EINVAL);
    CHECK_ERR(cadence_memory_trims(NULL), CADENCE_EINVAL);
    return 0;
}
