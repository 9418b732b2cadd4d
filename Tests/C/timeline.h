/* A timeline of events for exact checks on virtual loops, written as the seed article's
 * TimelineRecorder writes them: "value@ms" (a value at virtual milliseconds) and "|@ms" (finished). */
#ifndef CADENCE_TEST_TIMELINE_H
#define CADENCE_TEST_TIMELINE_H

#include <math.h>

#include "check.h"

#define TIMELINE_MAX 32

typedef struct timeline {
    cadence_loop loop;                /* read in the callbacks */
    int count;                        /* every event, also past TIMELINE_MAX */
    char events[TIMELINE_MAX][40];
    long long ran_at[TIMELINE_MAX];   /* the loop's clock in the callback, in ms */
    uint64_t skipped[TIMELINE_MAX];   /* for ticks */
} timeline;

/* Virtual seconds as whole milliseconds. */
static inline long long to_ms(double seconds) { return llround(seconds * 1000); }

static inline double timeline_now(cadence_loop loop) {
    double now = -1;
    CHECK_OK(cadence_loop_now(loop, &now));
    return now;
}

/* Appends "label@ms(date)" and when it happened. */
static inline void timeline_add(timeline *t, const char *label, double date, uint64_t skipped) {
    if (t->count < TIMELINE_MAX) {
        snprintf(t->events[t->count], sizeof t->events[0], "%s@%lld", label, to_ms(date));
        t->ran_at[t->count] = to_ms(timeline_now(t->loop));
        t->skipped[t->count] = skipped;
    }
    t->count++;
}

/* A cadence_tick_fn; userdata is a timeline. Records "n@fire date", n counting from 0, and checks
 * that the tick never runs before its fire date. */
static inline void timeline_tick(const cadence_tick *tick, void *userdata) {
    timeline *t = userdata;
    char label[24];
    snprintf(label, sizeof label, "%d", t->count);
    CHECK(timeline_now(t->loop) >= tick->fire_date);
    timeline_add(t, label, tick->fire_date, tick->skipped);
}

/* A cadence_countdown_fn; userdata is a timeline. Records "remaining@date", then "|@date" for the
 * finish. */
static inline void timeline_countdown(const cadence_countdown_event *event, void *userdata) {
    timeline *t = userdata;
    char label[24];
    if (event->finished) snprintf(label, sizeof label, "|");
    else snprintf(label, sizeof label, "%lld", (long long)event->remaining);
    timeline_add(t, label, event->date, 0);
}

/* Checks that the timeline holds exactly the given events, in order (at least one). */
#define CHECK_TIMELINE(t, ...) \
    check_timeline_(__FILE__, __LINE__, #t, &(t), (const char *const[]){__VA_ARGS__, NULL})

static inline void check_timeline_(const char *file, int line, const char *name, const timeline *t,
                                   const char *const *expected) {
    int n = 0;
    while (expected[n] != NULL) n++;
    int same = t->count == n;
    for (int i = 0; same && i < n; i++) same = strcmp(t->events[i], expected[i]) == 0;
    if (same) return;
    fprintf(stderr, "%s:%d: timeline %s is [", file, line, name);
    for (int i = 0; i < t->count && i < TIMELINE_MAX; i++) fprintf(stderr, "%s\"%s\"", i ? ", " : "", t->events[i]);
    fprintf(stderr, "%s], expected [", t->count > TIMELINE_MAX ? ", ..." : "");
    for (int i = 0; i < n; i++) fprintf(stderr, "%s\"%s\"", i ? ", " : "", expected[i]);
    fprintf(stderr, "]\n");
    exit(1);
}

static inline uint64_t armed_timers(cadence_loop loop) {
    uint64_t armed = UINT64_MAX;
    CHECK_OK(cadence_loop_armed_timers(loop, &armed));
    return armed;
}

#endif /* CADENCE_TEST_TIMELINE_H */
