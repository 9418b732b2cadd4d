/* Four threads publishing, connecting, subscribing, scheduling and cancelling on one loop that
 * runs on its own thread, for CADENCE_STRESS_SECONDS (default 10): nothing crashes, and no
 * callback starts after the cancel of what it belongs to has returned. Each callback's userdata is
 * freed right after that cancel, so a late callback would also be a use after free (ASan, valgrind)
 * and ThreadSanitizer sees every access. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "check.h"

typedef struct target {
    atomic_int cancelled;  /* set once the cancel has returned */
} target;

static cadence_loop loop;
static cadence_publisher shared_timer;  /* an autoconnect publisher all threads subscribe to */
static atomic_long fires, late_fires;
static double stop_at;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void on_tick(const cadence_tick *tick, void *userdata) {
    (void)tick;
    target *t = userdata;
    atomic_fetch_add(&fires, 1);
    if (atomic_load(&t->cancelled)) atomic_fetch_add(&late_fires, 1);
}

/* Cancels, marks the target, and frees it: from here on a callback must not touch it. */
static void finish(cadence_cancellable c, target *t) {
    int err = cadence_cancel(c);
    CHECK(err == 0 || err == CADENCE_EALREADY);  /* EALREADY: a one-shot that fired */
    atomic_store(&t->cancelled, 1);
    free(t);
}

static void spin(unsigned *seed) {
    for (unsigned n = (unsigned)rand_r(seed) % 20000; n > 0; n--) __asm__ volatile("");
}

static void *worker(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    while (now() < stop_at) {
        target *t = calloc(1, sizeof *t);
        CHECK(t != NULL);
        cadence_cancellable c;
        switch (rand_r(&seed) % 3) {
        case 0: {  /* subscribe to the shared timer, then leave */
            CHECK_OK(cadence_publisher_subscribe(shared_timer, on_tick, t, &c));
            spin(&seed);
            finish(c, t);
            CHECK_OK(cadence_cancellable_release(c));
            break;
        }
        case 1: {  /* a timer of one's own: publish, subscribe, connect, cancel the connection */
            cadence_publisher p;
            cadence_cancellable sub;
            CHECK_OK(cadence_publisher_create(loop, 0.0001, 0, "common", &p));
            CHECK_OK(cadence_publisher_subscribe(p, on_tick, t, &sub));
            CHECK_OK(cadence_publisher_connect(p, &c));
            spin(&seed);
            finish(c, t);
            CHECK_OK(cadence_cancellable_release(c));
            CHECK_OK(cadence_cancellable_release(sub));
            CHECK_OK(cadence_publisher_release(p));
            break;
        }
        default: {  /* a one-shot that may or may not have fired by the cancel */
            CHECK_OK(cadence_loop_schedule(loop, 0.0001 * (rand_r(&seed) % 3), 0, "common", on_tick, t, &c));
            spin(&seed);
            finish(c, t);
            CHECK_OK(cadence_cancellable_release(c));
            break;
        }
        }
    }
    return NULL;
}

int main(void) {
    const char *seconds = getenv("CADENCE_STRESS_SECONDS");
    stop_at = now() + (seconds != NULL ? atof(seconds) : 10.0);
    CHECK_OK(cadence_loop_create(&loop));
    cadence_publisher connectable;
    CHECK_OK(cadence_publisher_create(loop, 0.0002, 0, "common", &connectable));
    CHECK_OK(cadence_publisher_autoconnect(connectable, &shared_timer));
    CHECK_OK(cadence_publisher_release(connectable));
    CHECK_OK(cadence_loop_start_thread(loop, "default"));

    pthread_t threads[4];
    for (uintptr_t i = 0; i < 4; i++) CHECK(pthread_create(&threads[i], NULL, worker, (void *)(i + 1)) == 0);
    for (int i = 0; i < 4; i++) CHECK(pthread_join(threads[i], NULL) == 0);

    CHECK_OK(cadence_loop_stop_thread(loop));
    CHECK_OK(cadence_publisher_release(shared_timer));
    CHECK_OK(cadence_loop_close(loop));
    printf("%ld fires, %ld after a cancel returned\n", atomic_load(&fires), atomic_load(&late_fires));
    CHECK_EQ(atomic_load(&late_fires), 0);
    CHECK(atomic_load(&fires) > 0);
    return 0;
}
