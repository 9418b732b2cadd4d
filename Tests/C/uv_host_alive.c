/* A Cadence loop on a host's uv_loop_t keeps the host's uv_run(UV_RUN_DEFAULT) going exactly
 * while a referenced Cadence timer is armed, as a referenced uv_timer_t would (real clock):
 *  - with nothing armed, uv_run returns at once;
 *  - with the host's own 50 ms timer and a 200 ms Cadence one-shot, uv_run returns right after
 *    the one-shot; with a 200 ms host timer and a 50 ms one-shot, right after the host's timer;
 *  - with only an unreferenced repeating Cadence timer, uv_run returns after the host's own work,
 *    the repeating timer having ticked meanwhile;
 *  - a one-shot cancelled from the host's thread lets uv_run return at once;
 *  - a one-shot armed from another thread, while the host still runs, keeps it going until it
 *    fires;
 * and each time the Cadence loop is destroyed after uv_run returned, then uv_run(UV_RUN_NOWAIT)
 * and uv_loop_close return 0, as cadence/uv.h says (and valgrind finds nothing). */
#include <pthread.h>

#include <cadence/uv.h>

#include "recorder.h"

typedef struct host {
    uv_loop_t uv;
    uv_timer_t own;                 /* the host's own work */
    cadence_loop loop;
    int own_fired, cadence_fired;
    double started, own_at, cadence_at;  /* the loop's clock, from `started` */
    pthread_t thread;
    int thread_started;
} host;

static void on_cadence(const cadence_tick *tick, void *userdata) {
    (void)tick;
    host *h = userdata;
    h->cadence_fired++;
    h->cadence_at = loop_now(h->loop) - h->started;
}

static void on_own(uv_timer_t *timer) {
    host *h = timer->data;
    h->own_fired++;
    h->own_at = loop_now(h->loop) - h->started;
    /* Another thread's arm has happened once joined; its wake-up reaches uv_run in this turn. */
    if (h->thread_started) CHECK_EQ(pthread_join(h->thread, NULL), 0);
}

static void open_host(host *h) {
    memset(h, 0, sizeof *h);
    CHECK_EQ(uv_loop_init(&h->uv), 0);
    CHECK_OK(cadence_loop_create_on_uv(&h->uv, "default", &h->loop));
    CHECK_EQ(uv_timer_init(&h->uv, &h->own), 0);
    h->own.data = h;
}

static void start_own(host *h, double seconds) {
    uv_update_time(&h->uv);                    /* libuv's cached clock, read at uv_loop_init */
    CHECK_EQ(uv_timer_start(&h->own, on_own, (uint64_t)(seconds * 1000), 0), 0);
}

static cadence_cancellable schedule(host *h, double delay) {
    cadence_cancellable timer;
    CHECK_OK(cadence_loop_schedule(h->loop, delay, 0, "default", on_cadence, h, &timer));
    return timer;
}

/* Runs the host's loop until it returns; the seconds it took. */
static double run_host(host *h) {
    h->started = loop_now(h->loop);
    CHECK_EQ(uv_run(&h->uv, UV_RUN_DEFAULT), 0);
    return loop_now(h->loop) - h->started;
}

/* Destroys the Cadence loop after uv_run returned, then closes the host's loop (cadence/uv.h). */
static void close_host(host *h) {
    CHECK_OK(cadence_loop_close(h->loop));
    uv_close((uv_handle_t *)&h->own, NULL);
    CHECK_EQ(uv_run(&h->uv, UV_RUN_NOWAIT), 0);
    CHECK_EQ(uv_loop_close(&h->uv), 0);
}

static void nothing_armed(void) {
    static host h;
    open_host(&h);
    CHECK_RANGE(run_host(&h), 0, 0.05 + timing_slack());
    close_host(&h);
}

static void returns_after_the_later(double own, double cadence) {
    static host h;
    open_host(&h);
    start_own(&h, own);
    CHECK_OK(cadence_cancellable_release(schedule(&h, cadence)));  /* a one-shot fires all the same */
    double later = own > cadence ? own : cadence;
    double took = run_host(&h);
    CHECK_EQ(h.own_fired, 1);
    CHECK_EQ(h.cadence_fired, 1);
    CHECK_RANGE(h.cadence_at, cadence - 0.01, cadence + 0.1 + timing_slack());  /* armed just before */
    CHECK_RANGE(took, later - 0.01, later + 0.1 + timing_slack());
    close_host(&h);
}

static void unreferenced_repeating(void) {
    static host h;
    open_host(&h);
    cadence_cancellable ticker;
    CHECK_OK(cadence_loop_schedule_repeating(h.loop, 0.05, 0.05, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             on_cadence, &h, &ticker));
    CHECK_OK(cadence_timer_unref(ticker));
    start_own(&h, 0.12);
    double took = run_host(&h);
    CHECK_RANGE(took, 0.11, 0.22 + timing_slack());  /* libuv's whole milliseconds */
    CHECK_RANGE(h.cadence_fired, 1, 2);        /* at 0.05 and 0.10, the second late on a loaded machine */
    CHECK_OK(cadence_cancellable_release(ticker));  /* stops it */
    close_host(&h);
}

static void cancelled_from_the_host(void) {
    static host h;
    open_host(&h);
    cadence_cancellable once = schedule(&h, 5);
    CHECK_OK(cadence_cancel(once));
    CHECK_OK(cadence_cancellable_release(once));
    CHECK_RANGE(run_host(&h), 0, 0.05 + timing_slack());
    CHECK_EQ(h.cadence_fired, 0);
    close_host(&h);
}

static void *arm_remotely(void *userdata) {
    host *h = userdata;
    CHECK_OK(cadence_cancellable_release(schedule(h, 0.25)));
    return NULL;
}

static void armed_from_another_thread(void) {
    static host h;
    open_host(&h);
    start_own(&h, 0.05);                       /* keeps the host running until the thread has armed */
    CHECK_EQ(pthread_create(&h.thread, NULL, arm_remotely, &h), 0);
    h.thread_started = 1;
    double took = run_host(&h);
    CHECK_EQ(h.own_fired, 1);
    CHECK_EQ(h.cadence_fired, 1);
    CHECK_RANGE(took, h.cadence_at, h.cadence_at + 0.1 + timing_slack());
    close_host(&h);
}

int main(void) {
    nothing_armed();
    returns_after_the_later(0.05, 0.2);
    returns_after_the_later(0.2, 0.05);
    unreferenced_repeating();
    cancelled_from_the_host();
    armed_from_another_thread();
    printf("uv_run returns once the host's work and Cadence's referenced timers are done\n");
    return 0;
}
