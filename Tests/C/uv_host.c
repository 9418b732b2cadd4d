/* A Cadence loop on a host's own uv_loop_t (<cadence/uv.h>), run with uv_run(UV_RUN_DEFAULT)
 * beside a libuv timer and a pipe of the host's. Cadence's callbacks run on the host's thread, in
 * fire-date order, never early; 1000 repeating 1 s timers with 10 % tolerance wake the loop within
 * 1.1 times the optimum (computed from the fire dates seen, as virtual_coalescing does); a timer
 * armed from another thread fires on the host's thread; the host's own timer and pipe keep
 * working; after the host destroys the Cadence loop from its own callback, uv_run returns and
 * uv_loop_close returns 0. Under valgrind (CADENCE_TEST_SLOW=1) 250 timers. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include <cadence/uv.h>

#include "recorder.h"

#define MAX_TIMERS 1000
#define SLOW_TIMERS 250
#define TOLERANCE 0.1
#define MAX_FIRES (MAX_TIMERS * 4)
#define ORDERED 6

typedef struct host {
    uv_loop_t uv;
    uv_timer_t heartbeat;           /* the host's own timer: writes a byte to its pipe */
    uv_pipe_t reader;               /* the host's own pipe, read end */
    int write_fd;
    int beats, bytes_read;
    cadence_loop loop;
    pthread_t thread;
    int off_thread;                 /* Cadence callbacks not on the host's thread */
    int early;                      /* Cadence callbacks before their fire date */
    /* One-shots armed out of order: the fire dates and order seen. */
    double ordered_dates[ORDERED];
    int ordered_seen[ORDERED], ordered_count;
    /* The coalescing schedule. */
    int n;
    double fires[MAX_FIRES], late_max;
    int fire_count, off_grid;
    double first_fire[MAX_TIMERS];
    int fires_of[MAX_TIMERS];
    uint64_t wakeups_before, wakeups_after;  /* around the coalescing schedule */
    /* The timer armed from another thread. */
    double remote_armed_at, remote_fired_late;
    int remote_fired;
} host;

typedef struct timer_ref { host *h; int index; } timer_ref;
static timer_ref refs[MAX_TIMERS + ORDERED];

static void check_host_callback(host *h, const cadence_tick *tick) {
    if (!pthread_equal(pthread_self(), h->thread)) h->off_thread++;
    if (loop_now(h->loop) < tick->fire_date) h->early++;
}

static void on_ordered(const cadence_tick *tick, void *userdata) {
    timer_ref *ref = userdata;
    host *h = ref->h;
    check_host_callback(h, tick);
    h->ordered_dates[h->ordered_count] = tick->fire_date;
    h->ordered_seen[h->ordered_count++] = ref->index;
    /* The last one-shot's wake-up, at 0.18 s, is counted after this callback returns. */
    if (h->ordered_count == ORDERED) CHECK_OK(cadence_loop_wakeups(h->loop, &h->wakeups_before));
}

static void on_coalesced(const cadence_tick *tick, void *userdata) {
    timer_ref *ref = userdata;
    host *h = ref->h;
    check_host_callback(h, tick);
    double late = loop_now(h->loop) - tick->fire_date;
    if (late > h->late_max) h->late_max = late;
    if (h->fires_of[ref->index]++ == 0) h->first_fire[ref->index] = tick->fire_date;
    double steps = tick->fire_date - h->first_fire[ref->index];  /* 1 s interval */
    if (fabs(steps - round(steps)) > 1e-5) h->off_grid++;
    if (h->fire_count < MAX_FIRES) h->fires[h->fire_count++] = tick->fire_date;
}

static void on_remote(const cadence_tick *tick, void *userdata) {
    host *h = userdata;
    check_host_callback(h, tick);
    h->remote_fired++;
    h->remote_fired_late = loop_now(h->loop) - tick->fire_date;
}

static void *arm_from_thread(void *userdata) {
    host *h = userdata;
    cadence_cancellable once;
    h->remote_armed_at = loop_now(h->loop);
    CHECK_OK(cadence_loop_schedule(h->loop, 0.05, 0, "default", on_remote, h, &once));
    CHECK_OK(cadence_cancellable_release(once));
    return NULL;
}

static void on_alloc(uv_handle_t *handle, size_t size, uv_buf_t *buf) {
    (void)handle; (void)size;
    static char byte[16];
    *buf = uv_buf_init(byte, sizeof byte);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
    (void)buf;
    host *h = stream->data;
    if (nread > 0) h->bytes_read += (int)nread;
}

static pthread_t remote;

/* Every 100 ms: one byte into the host's pipe; at 0.5 s a thread arms a Cadence timer; at 2.4 s
 * the host ends: it destroys the Cadence loop and closes its own handles, from this callback. */
static void on_heartbeat(uv_timer_t *timer) {
    host *h = timer->data;
    h->beats++;
    CHECK_EQ(write(h->write_fd, "x", 1), 1);
    if (h->beats == 5) CHECK_EQ(pthread_create(&remote, NULL, arm_from_thread, h), 0);
    if (h->beats < 24) return;
    CHECK_OK(cadence_loop_wakeups(h->loop, &h->wakeups_after));
    CHECK_OK(cadence_loop_close(h->loop));
    uv_close((uv_handle_t *)&h->heartbeat, NULL);
    uv_close((uv_handle_t *)&h->reader, NULL);
    close(h->write_fd);
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The fewest wake-ups that serve every window [F, F + width] (the interval-stabbing greedy). */
static int optimum_wakeups(const double *sorted, int count, double width) {
    int stabs = 0;
    for (int i = 0; i < count;) {
        double stab = sorted[i] + width + 1e-7;
        while (i < count && sorted[i] <= stab) i++;
        stabs++;
    }
    return stabs;
}

static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

int main(void) {
    static host h;
    const char *slow = getenv("CADENCE_TEST_SLOW");
    h.n = slow != NULL && slow[0] == '1' ? SLOW_TIMERS : MAX_TIMERS;
    h.thread = pthread_self();
    CHECK_EQ(uv_loop_init(&h.uv), 0);

    /* The host's own pipe and timer. */
    uv_file fds[2];
    CHECK_EQ(uv_pipe(fds, 0, 0), 0);
    h.write_fd = fds[1];
    CHECK_EQ(uv_pipe_init(&h.uv, &h.reader, 0), 0);
    CHECK_EQ(uv_pipe_open(&h.reader, fds[0]), 0);
    h.reader.data = &h;
    CHECK_EQ(uv_read_start((uv_stream_t *)&h.reader, on_alloc, on_read), 0);
    CHECK_EQ(uv_timer_init(&h.uv, &h.heartbeat), 0);
    h.heartbeat.data = &h;
    CHECK_EQ(uv_timer_start(&h.heartbeat, on_heartbeat, 100, 100), 0);

    /* Bad arguments, then the Cadence loop on the host's loop. */
    CHECK_ERR(cadence_loop_create_on_uv(NULL, "default", &h.loop), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_create_on_uv(&h.uv, "common", &h.loop), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_create_on_uv(&h.uv, NULL, &h.loop), CADENCE_EINVAL);
    CHECK_ERR(cadence_loop_create_on_uv(&h.uv, "default", NULL), CADENCE_EINVAL);
    CHECK_OK(cadence_loop_create_on_uv(&h.uv, "default", &h.loop));
    int fd = -1;
    CHECK_ERR(cadence_loop_fd(h.loop, &fd), CADENCE_ENOTSUP);   /* the host's loop watches it */
    CHECK_ERR(cadence_loop_run_pass(h.loop, "default"), CADENCE_ENOTSUP);
    CHECK_ERR(cadence_loop_run(h.loop, "default", 0), CADENCE_ENOTSUP);
    CHECK_ERR(cadence_loop_run_until_idle(h.loop, "default"), CADENCE_ENOTSUP);
    CHECK_ERR(cadence_loop_start_thread(h.loop, "default"), CADENCE_ENOTSUP);
    double timeout = 0;
    CHECK_OK(cadence_loop_timeout(h.loop, &timeout));
    CHECK(isinf(timeout));                     /* nothing armed */

    /* One-shots armed out of order fire in fire-date order. Each fire date is the clock read
     * inside its call plus its delay: the clock around each call bounds it (under valgrind on a
     * loaded machine the first call alone has taken 140 ms, more than the delays' spacing). */
    static const double delays[ORDERED] = {0.09, 0.03, 0.15, 0.06, 0.12, 0.18};
    static const int order[ORDERED] = {1, 3, 0, 4, 2, 5};
    double armed_before[ORDERED], armed_after[ORDERED];
    for (int i = 0; i < ORDERED; i++) {
        refs[MAX_TIMERS + i] = (timer_ref){&h, i};
        cadence_cancellable once;
        armed_before[i] = loop_now(h.loop);
        CHECK_OK(cadence_loop_schedule(h.loop, delays[i], 0, "default", on_ordered, &refs[MAX_TIMERS + i], &once));
        armed_after[i] = loop_now(h.loop);
        CHECK_OK(cadence_cancellable_release(once));
    }
    CHECK_OK(cadence_loop_timeout(h.loop, &timeout));
    CHECK_RANGE(timeout, 0, 0.03);

    /* The coalescing schedule: first fires at pseudo-random phases in [0.2, 1.2) s. */
    uint64_t seed = 20261202;
    for (int i = 0; i < h.n; i++) {
        refs[i] = (timer_ref){&h, i};
        double phase = 0.2 + (double)(next_random(&seed) % 1000000) / 1e6;
        cadence_cancellable t;
        CHECK_OK(cadence_loop_schedule_repeating(h.loop, phase, 1.0, TOLERANCE, CADENCE_MISSED_TICKS_SKIP,
                                                 "default", on_coalesced, &refs[i], &t));
        CHECK_OK(cadence_cancellable_detach(t));  /* runs until the loop is destroyed */
        CHECK_OK(cadence_cancellable_release(t));
    }

    CHECK_EQ(uv_run(&h.uv, UV_RUN_DEFAULT), 0);  /* returns once every handle is closed */
    CHECK_EQ(pthread_join(remote, NULL), 0);
    CHECK_EQ(uv_loop_close(&h.uv), 0);         /* Cadence's handles are gone too */

    CHECK_EQ(h.off_thread, 0);
    CHECK_EQ(h.early, 0);
    CHECK_EQ(h.ordered_count, ORDERED);
    int seen_once[ORDERED] = {0};
    for (int i = 0; i < ORDERED; i++) {
        int index = h.ordered_seen[i];
        CHECK_RANGE(index, 0, ORDERED - 1);
        CHECK_EQ(seen_once[index]++, 0);
        CHECK_RANGE(h.ordered_dates[i] - delays[index], armed_before[index] - 1e-6, armed_after[index] + 1e-6);
        if (i > 0) CHECK(h.ordered_dates[i] > h.ordered_dates[i - 1]);
    }
    /* Armed within the delays' spacing (as always but on a starved machine): the delays' order. */
    if (armed_after[ORDERED - 1] - armed_before[0] < 0.03) {
        for (int i = 0; i < ORDERED; i++) CHECK_EQ(h.ordered_seen[i], order[i]);
    }
    CHECK_EQ(h.remote_fired, 1);
    CHECK_RANGE(h.remote_fired_late, 0, 0.2 + timing_slack());
    CHECK_RANGE(h.beats, 24, 24);
    CHECK_RANGE(h.bytes_read, 20, 24);         /* the last bytes may be in the pipe at the end */

    /* Each timer fired on its own 1 s grid, within its tolerance but for a loaded machine's
     * lateness, and the wake-ups came within 1.1 times the fewest that serve every window. */
    CHECK_EQ(h.off_grid, 0);
    CHECK_RANGE(h.late_max, 0, TOLERANCE + 0.25 + timing_slack());
    for (int i = 0; i < h.n; i++) CHECK_RANGE(h.fires_of[i], 1, 4);
    CHECK(h.fire_count < MAX_FIRES);
    qsort(h.fires, (size_t)h.fire_count, sizeof h.fires[0], compare_double);
    int optimum = optimum_wakeups(h.fires, h.fire_count, TOLERANCE);
    CHECK_RANGE(optimum, 15, 25);              /* about 10 per second over 2.2 s */
    /* Less the last one-shot's wake-up, and the remote timer's, which may have had its own. A
     * late (loaded) loop may serve more windows per wake-up than the optimum, never fewer. */
    long long wakeups = (long long)(h.wakeups_after - h.wakeups_before) - 1;
    CHECK_RANGE(wakeups, 1, 1.1 * optimum + 1);
    printf("%d timers, %d fires: %lld wake-ups (optimum %d)\n", h.n, h.fire_count, wakeups, optimum);
    return 0;
}
