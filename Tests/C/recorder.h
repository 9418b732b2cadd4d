/* A callback that records every tick it gets, and small timing helpers shared by the C tests. */
#ifndef CADENCE_TEST_RECORDER_H
#define CADENCE_TEST_RECORDER_H

#include <math.h>
#include <time.h>

#include "check.h"

#define RECORDER_MAX 64

typedef struct recorder {
    cadence_loop loop;              /* read in the callback, for lateness */
    int count;                      /* every tick, also past RECORDER_MAX */
    double dates[RECORDER_MAX];     /* fire dates */
    double lateness[RECORDER_MAX];  /* the loop's clock in the callback minus the fire date */
    uint64_t skipped[RECORDER_MAX];
} recorder;

/* A cadence_tick_fn; userdata is a recorder. */
static inline void record_tick(const cadence_tick *tick, void *userdata) {
    recorder *r = userdata;
    double now = 0;
    CHECK_OK(cadence_loop_now(r->loop, &now));
    if (r->count < RECORDER_MAX) {
        r->dates[r->count] = tick->fire_date;
        r->lateness[r->count] = now - tick->fire_date;
        r->skipped[r->count] = tick->skipped;
    }
    r->count++;
}

/* Blocks the thread without running any loop, as the seed's Thread.sleep. */
static inline void sleep_seconds(double seconds) {
    struct timespec ts = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {}
}

static inline double loop_now(cadence_loop loop) {
    double now = 0;
    CHECK_OK(cadence_loop_now(loop, &now));
    return now;
}

/* Checks that every recorded fire date lies on the first one's grid, dates[0] + k * interval.
 * Fire dates are epoch seconds (~1.8e9), whose doubles resolve about 0.25 us. */
static inline void check_on_grid(const recorder *r, double interval) {
    int n = r->count < RECORDER_MAX ? r->count : RECORDER_MAX;
    for (int i = 0; i < n; i++) {
        double steps = (r->dates[i] - r->dates[0]) / interval;
        CHECK_RANGE(fabs(steps - round(steps)) * interval, 0, 1e-5);
    }
}

#endif /* CADENCE_TEST_RECORDER_H */
