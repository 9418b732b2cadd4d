/* uv_host: a libuv program with a pipe and a timer of its own runs a Cadence loop on its
 * uv_loop_t: Cadence's timers fire from the program's uv_run, on its thread, beside its handles.
 *
 * Build against an installed Cadence and libuv:
 *     cc uv_host.c $(pkg-config --cflags --libs cadence libuv) -o uv_host
 * Every 0.1 s the program's own uv_timer_t writes a line into its pipe, which its uv_pipe_t
 * reads; a Cadence repeating timer ticks every 0.25 s (tolerance 0.05 s) and a Cadence one-shot
 * says goodbye at 0.9 s. The tenth heartbeat ends the program: it destroys the Cadence loop and
 * closes the program's handles, so uv_run returns and uv_loop_close succeeds. Exits 0 if
 * everything ran as said. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cadence/uv.h>

typedef struct program {
    uv_loop_t uv;
    uv_timer_t heartbeat;     /* the program's own timer */
    uv_pipe_t reader;         /* the program's own pipe (read end) */
    int write_fd;
    int beats, lines_read, ticks, goodbyes;
    cadence_loop cadence;
} program;

static void check(int err, const char *what) {
    if (err != 0) {
        fprintf(stderr, "uv_host: %s: %s (%s)\n", what, cadence_strerror(err), cadence_err_name(err));
        exit(1);
    }
}

static void check_uv(int err, const char *what) {
    if (err != 0) {
        fprintf(stderr, "uv_host: %s: %s\n", what, uv_strerror(err));
        exit(1);
    }
}

/* The program's own work: a line into the pipe every 0.1 s, and reading it back. */
static void on_heartbeat(uv_timer_t *timer) {
    program *p = timer->data;
    char line[32];
    int n = snprintf(line, sizeof line, "beat %d\n", ++p->beats);
    if (write(p->write_fd, line, (size_t)n) != n) exit(1);
    if (p->beats < 10) return;
    /* From a callback of uv_run, destroying the Cadence loop needs nothing more: its handles'
     * close callbacks run in this same turn of the loop. (Not from a Cadence callback: the loop
     * is running then, CADENCE_EBUSY.) */
    check(cadence_loop_close(p->cadence), "destroy the Cadence loop");
    uv_close((uv_handle_t *)&p->heartbeat, NULL);
    uv_close((uv_handle_t *)&p->reader, NULL);
    close(p->write_fd);
}

static void on_alloc(uv_handle_t *handle, size_t size, uv_buf_t *buf) {
    (void)handle; (void)size;
    static char buffer[256];
    *buf = uv_buf_init(buffer, sizeof buffer);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
    program *p = stream->data;
    for (ssize_t i = 0; i < nread; i++) p->lines_read += buf->base[i] == '\n';
}

/* Cadence's timers, called from the program's uv_run. */
static void on_tick(const cadence_tick *tick, void *userdata) {
    program *p = userdata;
    printf("cadence tick %d: fire date %.6f (%d lines read so far)\n", ++p->ticks, tick->fire_date,
           p->lines_read);
}

static void on_goodbye(const cadence_tick *tick, void *userdata) {
    program *p = userdata;
    printf("cadence one-shot: goodbye at %.6f, after %d heartbeats\n", tick->fire_date, p->beats);
    p->goodbyes++;
}

int main(void) {
    static program p;
    check_uv(uv_loop_init(&p.uv), "uv_loop_init");

    uv_file fds[2];
    check_uv(uv_pipe(fds, 0, 0), "uv_pipe");
    p.write_fd = fds[1];
    check_uv(uv_pipe_init(&p.uv, &p.reader, 0), "uv_pipe_init");
    check_uv(uv_pipe_open(&p.reader, fds[0]), "uv_pipe_open");
    p.reader.data = &p;
    check_uv(uv_read_start((uv_stream_t *)&p.reader, on_alloc, on_read), "uv_read_start");
    check_uv(uv_timer_init(&p.uv, &p.heartbeat), "uv_timer_init");
    p.heartbeat.data = &p;
    check_uv(uv_timer_start(&p.heartbeat, on_heartbeat, 100, 100), "uv_timer_start");

    check(cadence_loop_create_on_uv(&p.uv, "default", &p.cadence), "create a Cadence loop on the uv_loop_t");
    cadence_cancellable ticker, end;
    check(cadence_loop_schedule_repeating(p.cadence, 0.25, 0.25, 0.05, CADENCE_MISSED_TICKS_SKIP, "default",
                                          on_tick, &p, &ticker), "schedule the ticker");
    check(cadence_loop_schedule(p.cadence, 0.9, 0, "default", on_goodbye, &p, &end), "schedule the goodbye");
    /* The handles are not needed to keep the timers: a one-shot is fire-and-forget, the detached
     * ticker runs on without its handle, and cadence_loop_close ends them. */
    check(cadence_cancellable_detach(ticker), "detach the ticker");
    check(cadence_cancellable_release(ticker), "release the ticker");
    check(cadence_cancellable_release(end), "release the goodbye");

    check_uv(uv_run(&p.uv, UV_RUN_DEFAULT), "uv_run");  /* returns once every handle is closed */
    check_uv(uv_loop_close(&p.uv), "uv_loop_close");

    printf("%d heartbeats, %d lines read, %d Cadence ticks\n", p.beats, p.lines_read, p.ticks);
    return p.ticks >= 3 && p.ticks <= 4 && p.goodbyes == 1 && p.beats == 10 && p.lines_read >= 8 ? 0 : 1;
}
