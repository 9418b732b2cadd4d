/* Calls that are wrong because of where or on what they are made: running or destroying a loop
 * from its own callback or while another thread runs it (CADENCE_EBUSY), and connect or
 * autoconnect on an autoconnect publisher (CADENCE_ENOTSUP). Stopping from a callback works. */
#include <pthread.h>
#include <stdatomic.h>

#include "recorder.h"

typedef struct reentry {
    cadence_loop loop;
    int count;
    int run_result, destroy_result, stop_result;
    char run_message[256];  /* cadence_last_error_message() after the run */
} reentry;

static void reenter(const cadence_tick *tick, void *userdata) {
    reentry *r = userdata;
    r->count++;
    r->run_result = cadence_loop_run(r->loop, "default", 0.01);
    snprintf(r->run_message, sizeof r->run_message, "%s", cadence_last_error_message());
    r->destroy_result = cadence_loop_close(r->loop);
    r->stop_result = cadence_loop_stop(r->loop);
    CHECK_ERR(cadence_cancel(tick->source), CADENCE_EALREADY);  /* a one-shot has fired by now */
}

static void from_a_callback(cadence_loop loop) {
    reentry r = {.loop = loop, .run_result = 1, .destroy_result = 1, .stop_result = 1};
    cadence_cancellable once;
    double before = loop_now(loop);  /* before scheduling: the one-shot is due 0.01 s after that */
    CHECK_OK(cadence_loop_schedule(loop, 0.01, 0, "default", reenter, &r, &once));
    CHECK_OK(cadence_loop_run(loop, "default", 1.0));
    CHECK_RANGE(loop_now(loop) - before, 0.01, 0.5);  /* the stop made run return early */
    CHECK_EQ(r.count, 1);
    CHECK_ERR(r.run_result, CADENCE_EBUSY);
    CHECK_STR(r.run_message, "cadence_loop_run: loop must not be running to run, got a running loop (a run has "
                             "not returned: called from one of its callbacks or from another thread?)");
    CHECK_ERR(r.destroy_result, CADENCE_EBUSY);
    CHECK_OK(r.stop_result);
    CHECK_OK(cadence_cancellable_release(once));
}

/* The runner runs until stopped, so it is still running whenever the checks below come; a
 * one-shot due at once tells the test that the run has begun (no guessed sleep). */
static void *run_until_stopped(void *loop) {
    CHECK_OK(cadence_loop_run(*(cadence_loop *)loop, "default", INFINITY));
    return NULL;
}

static void mark_entered(const cadence_tick *tick, void *userdata) {
    (void)tick;
    atomic_store((atomic_int *)userdata, 1);
}

static void from_another_thread(cadence_loop loop) {
    atomic_int entered = 0;
    cadence_cancellable first_pass;
    CHECK_OK(cadence_loop_schedule(loop, 0, 0, "default", mark_entered, &entered, &first_pass));
    pthread_t runner;
    CHECK_EQ(pthread_create(&runner, NULL, run_until_stopped, &loop), 0);
    CHECK_EVENTUALLY(atomic_load(&entered));
    CHECK_ERR(cadence_loop_run(loop, "default", 0.01), CADENCE_EBUSY);
    CHECK_ERR(cadence_loop_close(loop), CADENCE_EBUSY);
    CHECK_OK(cadence_loop_stop(loop));         /* wakes the sleeping runner: its run returns */
    CHECK_EQ(pthread_join(runner, NULL), 0);
    CHECK_OK(cadence_loop_stop(loop));         /* not running: does nothing */
    CHECK_OK(cadence_cancellable_release(first_pass));
}

static void autoconnect_publisher(cadence_loop loop) {
    cadence_publisher timer, shared, twice = {0x5e5e};
    cadence_cancellable connection = {0x5e5e};
    CHECK_OK(cadence_publisher_create(loop, 0.1, 0, "default", &timer));
    CHECK_OK(cadence_publisher_autoconnect(timer, &shared));
    CHECK_ERR_MSG(cadence_publisher_connect(shared, &connection), CADENCE_ENOTSUP,
                  "cadence_publisher_connect: publisher must be a connectable publisher, got an autoconnect publisher");
    CHECK_ERR(cadence_publisher_autoconnect(shared, &twice), CADENCE_ENOTSUP);
    CHECK_EQ(connection.id, 0x5e5e);
    CHECK_EQ(twice.id, 0x5e5e);
    CHECK_OK(cadence_publisher_release(shared));
    CHECK_OK(cadence_publisher_release(timer));
}

int main(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create(&loop));
    from_a_callback(loop);
    from_another_thread(loop);
    autoconnect_publisher(loop);
    CHECK_OK(cadence_loop_close(loop));
    return 0;
}
