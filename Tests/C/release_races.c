/* Who releases a registration's userdata when calls meet (cadence_loop_set_callbacks): the call
 * that stops a registration releases before it returns, a call that loses (CADENCE_EALREADY)
 * releases nothing, a countdown's finished call is never lost to a cancel, a registering call that
 * fails releases nothing even when the loop is destroyed meanwhile, and a release function may
 * release its own handle or destroy its loop without changing what the outer call returns. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"

static atomic_int releases;
static cadence_cancellable handle;
static cadence_loop loop;

/* Waits until `ended()` holds, for at most 10 s (then the check fails). */
static void wait_for(int (*ended)(void)) {
    for (int i = 0; i < 10000 && !ended(); i++) nanosleep(&(struct timespec){0, 1000000}, NULL);
    CHECK(ended());
}

static void count_release(void *userdata) {
    (void)userdata;
    atomic_fetch_add(&releases, 1);
}

static void ignore_tick(const cadence_tick *tick, void *userdata) {
    (void)tick;
    (void)userdata;
}

static void ignore_poll(const cadence_poll *poll, void *userdata) {
    (void)poll;
    (void)userdata;
}

/* ---- a second cancel, while the first waits for a tick being delivered, releases nothing ---- */

static atomic_int loser_code = 99, releases_at_loss = -1, delivering;

static void *first_cancel(void *arg) {
    *(int *)arg = cadence_cancel(handle);
    return NULL;
}

/* The second subscriber of the tick: waits until the first cancel has taken `handle` out (it then
 * waits for this delivery to end), cancels it a second time, and sees what that released. */
static void cancel_again(const cadence_tick *tick, void *userdata) {
    (void)tick;
    (void)userdata;
    if (atomic_exchange(&delivering, 1)) return;
    int cancelled = 0;
    while (!cancelled) {
        CHECK_OK(cadence_is_cancelled(handle, &cancelled));
        if (!cancelled) sched_yield();
    }
    atomic_store(&loser_code, cadence_cancel(handle));
    atomic_store(&releases_at_loss, atomic_load(&releases));
}

static void a_losing_cancel_releases_nothing(void) {
    cadence_publisher publisher;
    cadence_cancellable connection, other;
    atomic_store(&releases, 0);
    CHECK_OK(cadence_loop_create(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, NULL, count_release));
    CHECK_OK(cadence_publisher_create(loop, 0.01, 0, "default", &publisher));
    CHECK_OK(cadence_publisher_connect(publisher, &connection));
    CHECK_OK(cadence_publisher_subscribe(publisher, ignore_tick, (void *)1, &handle));
    CHECK_OK(cadence_publisher_subscribe(publisher, cancel_again, (void *)2, &other));
    CHECK_OK(cadence_loop_start_thread(loop, "default"));
    while (!atomic_load(&delivering)) sched_yield();
    int first_code = 99;
    pthread_t first;
    CHECK_EQ(pthread_create(&first, NULL, first_cancel, &first_code), 0);
    CHECK_EQ(pthread_join(first, NULL), 0);
    CHECK_ERR(first_code, 0);
    CHECK_ERR(atomic_load(&loser_code), CADENCE_EALREADY);
    CHECK_EQ(atomic_load(&releases_at_loss), 0);  /* the first cancel still waited for the tick */
    CHECK_EQ(atomic_load(&releases), 1);          /* made by the first, before it returned */
    CHECK_OK(cadence_loop_stop_thread(loop));
    CHECK_OK(cadence_loop_close(loop));
    CHECK_EQ(atomic_load(&releases), 2);          /* the other subscription's too, then */
}

/* ---- a countdown cancelled as it finishes: one end, the finished call or the cancel's ---- */

static atomic_int zero_seen, finished_calls;

static void on_countdown(const cadence_countdown_event *event, void *userdata) {
    (void)userdata;
    if (event->finished) atomic_fetch_add(&finished_calls, 1);
    else if (event->remaining == 0) atomic_store(&zero_seen, 1);
}

static int handle_ended(void) {
    int ended = 0;
    CHECK_OK(cadence_is_cancelled(handle, &ended));
    return ended;
}

static int finished_once(void) { return atomic_load(&finished_calls) == 1; }

static void *cancel_at_zero(void *arg) {
    while (!atomic_load(&zero_seen)) sched_yield();
    *(int *)arg = cadence_cancel(handle);
    return NULL;
}

static void a_countdown_ends_once_when_cancelled_as_it_finishes(void) {
    CHECK_OK(cadence_loop_create(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, NULL, count_release));
    CHECK_OK(cadence_loop_start_thread(loop, "default"));
    for (int round = 0; round < 500; round++) {
        atomic_store(&zero_seen, 0);
        atomic_store(&finished_calls, 0);
        atomic_store(&releases, 0);
        double now;
        CHECK_OK(cadence_loop_now(loop, &now));
        CHECK_OK(cadence_countdown_start(loop, now - 1, 1, on_countdown, NULL, &handle));
        int code = 99;
        pthread_t canceller;
        CHECK_EQ(pthread_create(&canceller, NULL, cancel_at_zero, &code), 0);
        CHECK_EQ(pthread_join(canceller, NULL), 0);
        if (code == 0) {  /* the cancel stopped it: its release came, and no finished call */
            CHECK_EQ(atomic_load(&releases), 1);
            CHECK_EQ(atomic_load(&finished_calls), 0);
        } else {          /* it had finished: its finished call comes, and no release */
            CHECK_ERR(code, CADENCE_EALREADY);
            CHECK(handle_ended());
            wait_for(finished_once);
            CHECK_EQ(atomic_load(&releases), 0);
        }
        CHECK_OK(cadence_cancellable_release(handle));
        CHECK_EQ(atomic_load(&releases) + atomic_load(&finished_calls), 1);
    }
    CHECK_OK(cadence_loop_stop_thread(loop));
    CHECK_OK(cadence_loop_close(loop));
}

/* ---- a start that fails because its loop was destroyed meanwhile releases nothing ---- */

static atomic_int go;

static void *destroy_soon(void *arg) {
    (void)arg;
    while (!atomic_load(&go)) sched_yield();
    CHECK_OK(cadence_loop_close(loop));
    return NULL;
}

typedef struct { atomic_int released; } userdata_count;

static void count_per_userdata(void *userdata) { atomic_fetch_add(&((userdata_count *)userdata)->released, 1); }

static void a_failed_start_releases_nothing(void) {
    enum { per_round = 64 };
    for (int round = 0; round < 300; round++) {
        userdata_count counts[per_round];
        int codes[per_round], made = 0;
        CHECK_OK(cadence_loop_create_virtual(&loop));
        CHECK_OK(cadence_loop_set_callbacks(loop, NULL, count_per_userdata));
        atomic_store(&go, 0);
        pthread_t destroyer;
        CHECK_EQ(pthread_create(&destroyer, NULL, destroy_soon, NULL), 0);
        atomic_store(&go, 1);
        for (; made < per_round; made++) {
            atomic_store(&counts[made].released, 0);
            cadence_cancellable h;
            codes[made] = made % 2 ? cadence_countdown_start(loop, 10, 1, on_countdown, &counts[made], &h)
                                   : cadence_poller_start(loop, 1, 0, ignore_poll, &counts[made], &h);
            if (codes[made] != 0) {
                made++;
                break;
            }
        }
        CHECK_EQ(pthread_join(destroyer, NULL), 0);
        for (int i = 0; i < made; i++) {  /* the destroy released every one that was made */
            if (codes[i] != 0) CHECK_ERR(codes[i], CADENCE_EBADF);
            CHECK_EQ(atomic_load(&counts[i].released), codes[i] == 0 ? 1 : 0);
        }
    }
}

/* ---- a release function that releases its own handle, or destroys the loop ---- */

static int inner_code;

static void release_own_handle(void *userdata) {
    (void)userdata;
    inner_code = cadence_cancellable_release(handle);
}

static void destroy_loop(void *userdata) {
    (void)userdata;
    inner_code = cadence_loop_close(loop);
}

static void the_outer_call_is_the_one_that_succeeds(void) {
    cadence_publisher publisher;
    cadence_cancellable connection;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, NULL, release_own_handle));
    CHECK_OK(cadence_poller_start(loop, 1, 0, ignore_poll, NULL, &handle));
    CHECK_OK(cadence_cancellable_release(handle));
    CHECK_ERR(inner_code, CADENCE_EBADF);
    CHECK_OK(cadence_publisher_create(loop, 1, 0, "default", &publisher));
    CHECK_OK(cadence_publisher_connect(publisher, &connection));
    CHECK_OK(cadence_publisher_subscribe(publisher, ignore_tick, NULL, &handle));
    CHECK_OK(cadence_cancellable_release(handle));
    CHECK_ERR(inner_code, CADENCE_EBADF);
    CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "default", ignore_tick,
                                             NULL, &handle));
    CHECK_OK(cadence_cancellable_release(handle));
    CHECK_ERR(inner_code, CADENCE_EBADF);
    CHECK_OK(cadence_loop_close(loop));

    /* A cancel whose release destroys the loop still stopped its registration. */
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, NULL, destroy_loop));
    CHECK_OK(cadence_poller_start(loop, 1, 0, ignore_poll, NULL, &handle));
    CHECK_OK(cadence_cancel(handle));
    CHECK_OK(inner_code);
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_set_callbacks(loop, NULL, destroy_loop));
    CHECK_OK(cadence_countdown_start(loop, 10, 1, on_countdown, NULL, &handle));
    CHECK_OK(cadence_cancel(handle));
    CHECK_OK(inner_code);
}

int main(void) {
    a_losing_cancel_releases_nothing();
    a_countdown_ends_once_when_cancelled_as_it_finishes();
    a_failed_start_releases_nothing();
    the_outer_call_is_the_one_that_succeeds();
    puts("release_races: ok");
    return 0;
}
