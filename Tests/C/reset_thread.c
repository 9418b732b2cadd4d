/* cadence_timer_reset against a fire on the loop's own thread (cadence_loop_start_thread): the
 * loop's lock decides. Either the reset returned 0 first, and the one fire comes at the reset's
 * fire date, or the callback had started, and the reset gave CADENCE_EALREADY and the one fire
 * was at the original fire date. Resets land at moments spread around the fire date. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "check.h"

typedef struct fires {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int count;
    double fire_date;
} fires;

static void on_fire(const cadence_tick *tick, void *userdata) {
    fires *f = userdata;
    pthread_mutex_lock(&f->lock);
    f->count++;
    f->fire_date = tick->fire_date;
    pthread_cond_broadcast(&f->changed);
    pthread_mutex_unlock(&f->lock);
}

/* Waits up to `seconds` for at least `count` fires; returns the count seen. */
static int wait_for(fires *f, int count, double seconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    long long ns = deadline.tv_nsec + (long long)(seconds * 1e9);
    deadline.tv_sec += (time_t)(ns / 1000000000);
    deadline.tv_nsec = (long)(ns % 1000000000);
    pthread_mutex_lock(&f->lock);
    while (f->count < count && pthread_cond_timedwait(&f->changed, &f->lock, &deadline) != ETIMEDOUT) {}
    int seen = f->count;
    pthread_mutex_unlock(&f->lock);
    return seen;
}

static double now(cadence_loop loop) {
    double value = 0;
    CHECK_OK(cadence_loop_now(loop, &value));
    return value;
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    CHECK_OK(cadence_loop_start_thread(loop, "default"));
    for (int attempt = 0; attempt < 40; attempt++) {
        fires f = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};
        cadence_cancellable timer;
        double before = now(loop);
        CHECK_OK(cadence_loop_schedule(loop, 0.002, 0, "default", on_fire, &f, &timer));
        double after = now(loop);
        double reset_at = before + 0.0001 * (attempt % 30);
        while (now(loop) < reset_at) {}
        double reset_start = now(loop);
        int result = cadence_timer_reset(timer, 0.01);
        double reset_end = now(loop);
        CHECK(result == 0 || result == CADENCE_EALREADY);
        CHECK_EQ(wait_for(&f, 1, 10), 1);
        CHECK_EQ(wait_for(&f, 2, 0.02), 1);    /* one fire only */
        if (result == 0) {
            CHECK_RANGE(f.fire_date, reset_start + 0.01 - 1e-6, reset_end + 0.01 + 1e-6);
        } else {
            CHECK_RANGE(f.fire_date, before + 0.002 - 1e-6, after + 0.002 + 1e-6);
        }
        int cancelled = 0;
        CHECK_OK(cadence_is_cancelled(timer, &cancelled));
        CHECK_EQ(cancelled, 1);
        CHECK_OK(cadence_cancellable_release(timer));
    }
    CHECK_OK(cadence_loop_stop_thread(loop));
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
