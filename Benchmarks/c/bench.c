/* bench.c - Cadence's C API (include/cadence.h, libcadence.so) measured with the peers' metric
 * definitions (docs/BENCHMARKS.md, "What each figure means"): one JSON line per metric, one group
 * per process.
 * Build: gcc -O2 -I include Benchmarks/c/bench.c -L build -lcadence -Wl,-rpath,$PWD/build -lm
 * Run:   bench {ops|lat|idle|wake|mem}, bench scale N (start/stop/fire at N timers, with batch
 *        percentiles) and bench timeout N (the timeout pattern at N live timers)
 *
 * One-shots are cadence_loop_schedule (a handle per timer, kept in a preallocated array) and
 * cadence_cancel. Deadlines are seconds as doubles with ns resolution, so random delays are drawn
 * in ns. A repeating timer is cadence_loop_schedule_repeating (as Swift's
 * schedule(after:interval:)): Cadence keeps its grid, nothing is re-armed from a callback. */
#include <cadence.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#define IMPL "cadence-c"
static cadence_loop loop;
static uint64_t rs = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static double unit(void) { return (double)(rnd() >> 11) / (double)(1ULL << 53); } /* [0, 1) */

static uint64_t mono_ns(void) {
  struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
static void emit(const char *m, long n, double v, const char *unit) {
  printf("{\"impl\": \"%s\", \"metric\": \"%s\", \"n\": %ld, \"value\": %.6g, \"unit\": \"%s\"}\n",
         IMPL, m, n, v, unit);
  fflush(stdout);
}
static double cpu_ns(void) {
  struct rusage r; getrusage(RUSAGE_SELF, &r);
  return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e9 + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e3;
}
static long nvcsw(void) { struct rusage r; getrusage(RUSAGE_SELF, &r); return r.ru_nvcsw; }
static long rss_bytes(void) {
  long size = 0, res = 0; FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld %ld", &size, &res) != 2) { perror("statm"); exit(2); }
  fclose(f); return res * sysconf(_SC_PAGESIZE);
}
static int cmp_d(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double median(double *v, int n) { qsort(v, n, sizeof *v, cmp_d); return v[n / 2]; }
/* nearest rank: index = ceil(P*n/100) - 1, in integers */
static double pct(const double *sorted, long n, long p) { long r = (p * n + 99) / 100; return sorted[r < 1 ? 0 : r - 1]; }
static void check(int rc, const char *what) {
  if (rc < 0) { fprintf(stderr, "%s: %s (%s)\n", what, cadence_err_name(rc), cadence_strerror(rc)); exit(1); }
}

static void report_lateness(const uint64_t *ts, long n, uint64_t t0, uint64_t period) {
  double *l = malloc(n * sizeof *l); long early = 0;
  for (long k = 0; k < n; k++) {
    l[k] = ((double)ts[k] - (double)(t0 + (k + 1) * period)) / 1e3;
    if (l[k] < 0) early++;
  }
  qsort(l, n, sizeof *l, cmp_d);
  emit("lateness_us_p50", n, pct(l, n, 50), "us");
  emit("lateness_us_p99", n, pct(l, n, 99), "us");
  emit("lateness_us_max", n, l[n - 1], "us");
  emit("early_count", n, early, "count");
  emit("interval_us_mean", n, (double)(ts[n - 1] - ts[0]) / (n - 1) / 1e3, "us");
  free(l);
}

/* ops rounds: at most PEER_ROUNDS (default 3); no new round once PEER_BUDGET_S (default 8) has passed */
static uint64_t budget_ns = 8000000000ULL;
static long fired, target;
/* cadence_loop_schedule_default with its handle in `*h`, as the other starts give theirs: returns 0
 * or the error code. */
static inline int start_default(cadence_loop loop, double delay, cadence_cancellable *h) {
  int64_t result = cadence_loop_schedule_default(loop, delay, NULL);
  if (result < 0) return (int)result;
  h->id = (uint64_t)result;
  return 0;
}

/* The loop's fire function (cadence_loop_set_callbacks), which cadence_loop_schedule_default
 * calls: the C API's one-shot in the default mode, as Swift's schedule(after:) is. */
static void on_fire(void *u, double fire_date, uint64_t skipped, int final) {
  (void)u; (void)fire_date; (void)skipped; (void)final;
  if (++fired == target) cadence_loop_stop(loop);
}
static void release_all(cadence_cancellable *h, long n) {
  for (long i = 0; i < n; i++) check(cadence_cancellable_release(h[i]), "release");
}

/* start, stop and fire for n one-shots; with `settle`, 200 ms before each CPU reading (the
 * contract's *_cpu_ns); returns the number of rounds run */
static int ops_rounds(long n, int rounds, int settle, double *st, double *sp, double *stc, double *spc, double *fi) {
  cadence_cancellable *h = malloc(n * sizeof *h); /* handles: preallocated */
  double *delay = malloc(n * sizeof *delay);
  long *perm = malloc(n * sizeof *perm);
  uint64_t began = mono_ns(); int r;
  for (r = 0; r < rounds && (r == 0 || mono_ns() - began < budget_ns); r++) {
    for (long i = 0; i < n; i++) { delay[i] = 1.0 + unit(); perm[i] = i; } /* [1 s, 2 s), ns resolution */
    for (long i = n - 1; i > 0; i--) { long j = rnd() % (i + 1), x = perm[i]; perm[i] = perm[j]; perm[j] = x; }
    fired = 0; target = -1;
    double c0 = cpu_ns(); uint64_t a = mono_ns();
    for (long i = 0; i < n; i++) start_default(loop, delay[i], &h[i]);
    uint64_t b = mono_ns(); if (settle) usleep(200000); double c1 = cpu_ns();
    st[r] = (double)(b - a) / n; stc[r] = (c1 - c0) / n;
    c0 = cpu_ns(); a = mono_ns();
    for (long i = 0; i < n; i++) cadence_cancel(h[perm[i]]);
    cadence_loop_run(loop, "default", 0); /* one non-blocking pass, so lazy clean-up is paid for */
    b = mono_ns(); if (settle) usleep(200000); c1 = cpu_ns();
    sp[r] = (double)(b - a) / n; spc[r] = (c1 - c0) / n;
    if (fired) { fprintf(stderr, "a stopped timer fired\n"); exit(1); }
    release_all(h, n);
    /* fire: every timer due within the first millisecond; the clock starts with the run */
    for (long i = 0; i < n; i++) delay[i] = unit() * 1e-3;
    fired = 0; target = n;
    for (long i = 0; i < n; i++) check(start_default(loop, delay[i], &h[i]), "schedule");
    a = mono_ns(); check(cadence_loop_run(loop, "default", 60), "run"); b = mono_ns();
    if (fired != n) { fprintf(stderr, "fired %ld of %ld\n", fired, n); exit(1); }
    fi[r] = (double)(b - a) / n;
    release_all(h, n);
    fprintf(stderr, "round %d: start %.1f stop %.1f fire %.1f ns\n", r, st[r], sp[r], fi[r]);
  }
  free(h); free(delay); free(perm);
  return r;
}

static void ops(int rounds) {
  enum { N = 100000 };
  double st[16], sp[16], stc[16], spc[16], fi[16];
  rounds = ops_rounds(N, rounds, 1, st, sp, stc, spc, fi);
  emit("start_ns", N, median(st, rounds), "ns/op");
  emit("stop_ns", N, median(sp, rounds), "ns/op");
  emit("start_cpu_ns", N, median(stc, rounds), "ns/op");
  emit("stop_cpu_ns", N, median(spc, rounds), "ns/op");
  emit("fire_ns", N, median(fi, rounds), "ns/fire");
}

/* scale N: start, stop and fire at N timers; max(3, min(25, 1e6/N)) rounds, none begun after the
 * budget (the first always). Prints each operation's median over the rounds of its mean (wall
 * clock; the stop's includes the non-blocking pass after the cancels), and p50, p99 and p99.9 of
 * its batches of SCALE_BATCH operations in the thread's CPU time (CLOCK_THREAD_CPUTIME_ID): what
 * the operations themselves cost, page faults and cache misses included, with the time the thread
 * was preempted left out (on a shared machine that would be most of the tail). */
enum { SCALE_BATCH = 1000 };
static uint64_t thread_ns(void) {
  struct timespec ts; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
static uint64_t *fire_stamps; static long stamp_k;
static void on_fire_stamped(void *u, double fire_date, uint64_t skipped, int final) {
  (void)u; (void)fire_date; (void)skipped; (void)final;
  if (++fired % SCALE_BATCH == 0) fire_stamps[stamp_k++] = thread_ns();
  if (fired == target) cadence_loop_stop(loop);
}
static void emit_batches(const char *op, long n, double *v, long count, double mean) {
  char name[32];
  qsort(v, count, sizeof *v, cmp_d);
  snprintf(name, sizeof name, "%s_ns", op); emit(name, n, mean, "ns/op");
  snprintf(name, sizeof name, "%s_p50_ns", op); emit(name, n, pct(v, count, 50), "ns/op");
  snprintf(name, sizeof name, "%s_p99_ns", op); emit(name, n, pct(v, count, 99), "ns/op");
  /* nearest rank of 99.9 %: index ceil(999 n / 1000) - 1 */
  long r = (999 * count + 999) / 1000;
  snprintf(name, sizeof name, "%s_p999_ns", op); emit(name, n, v[r < 1 ? 0 : r - 1], "ns/op");
}
static void scale(long n) {
  long rounds = 1000000 / n; rounds = rounds < 3 ? 3 : rounds > 25 ? 25 : rounds;
  long per = (n + SCALE_BATCH - 1) / SCALE_BATCH, cap = per * rounds;
  cadence_cancellable *h = malloc(n * sizeof *h);
  double *delay = malloc(n * sizeof *delay), *bs = malloc(cap * sizeof *bs), *bp = malloc(cap * sizeof *bp);
  double *bf = malloc(cap * sizeof *bf);
  long *perm = malloc(n * sizeof *perm), ks = 0, kp = 0, kf = 0;
  fire_stamps = malloc((per + 1) * sizeof *fire_stamps);
  if (!h || !delay || !bs || !bp || !bf || !perm || !fire_stamps) { perror("malloc"); exit(2); }
  check(cadence_loop_set_callbacks(loop, on_fire_stamped, NULL), "callbacks");
  double st[25], sp[25], fi[25]; uint64_t began = mono_ns(); long r;
  for (r = 0; r < rounds && (r == 0 || mono_ns() - began < budget_ns); r++) {
    for (long i = 0; i < n; i++) { delay[i] = 1.0 + unit(); perm[i] = i; }
    for (long i = n - 1; i > 0; i--) { long j = rnd() % (i + 1), x = perm[i]; perm[i] = perm[j]; perm[j] = x; }
    fired = 0; target = -1;
    long rss0 = r == 0 ? rss_bytes() : 0;
    uint64_t a0 = mono_ns();
    for (long i = 0; i < n; i += SCALE_BATCH) {
      long end = i + SCALE_BATCH < n ? i + SCALE_BATCH : n; uint64_t a = thread_ns();
      for (long j = i; j < end; j++) start_default(loop, delay[j], &h[j]);
      bs[ks++] = (double)(thread_ns() - a) / (end - i);
    }
    st[r] = (double)(mono_ns() - a0) / n; a0 = mono_ns();
    /* the first round's starts on a fresh loop: resident bytes per armed timer, its handle's 8
     * included */
    if (r == 0) emit("armed_bytes_per_timer", n, (double)(rss_bytes() - rss0) / n, "B/timer");
    for (long i = 0; i < n; i += SCALE_BATCH) {
      long end = i + SCALE_BATCH < n ? i + SCALE_BATCH : n; uint64_t a = thread_ns();
      for (long j = i; j < end; j++) cadence_cancel(h[perm[j]]);
      bp[kp++] = (double)(thread_ns() - a) / (end - i);
    }
    cadence_loop_run(loop, "default", 0); /* one non-blocking pass, so lazy clean-up is paid for */
    sp[r] = (double)(mono_ns() - a0) / n;
    if (fired) { fprintf(stderr, "a stopped timer fired\n"); exit(1); }
    release_all(h, n);
    for (long i = 0; i < n; i++) delay[i] = unit() * 1e-3;
    fired = 0; target = n; stamp_k = 0;
    for (long i = 0; i < n; i++) check(start_default(loop, delay[i], &h[i]), "schedule");
    uint64_t c0 = thread_ns(); a0 = mono_ns();
    check(cadence_loop_run(loop, "default", 60), "run");
    fi[r] = (double)(mono_ns() - a0) / n;
    if (fired != n) { fprintf(stderr, "fired %ld of %ld\n", fired, n); exit(1); }
    for (long k = 0; k < stamp_k; k++) bf[kf++] = (double)(fire_stamps[k] - (k ? fire_stamps[k - 1] : c0)) / SCALE_BATCH;
    release_all(h, n);
    fprintf(stderr, "round %ld at N=%ld: start %.1f stop %.1f fire %.1f ns\n", r, n, st[r], sp[r], fi[r]);
  }
  emit_batches("start", n, bs, ks, median(st, (int)r));
  emit_batches("stop", n, bp, kp, median(sp, (int)r));
  if (kf) emit_batches("fire", n, bf, kf, median(fi, (int)r));
  else emit("fire_ns", n, median(fi, (int)r), "ns/op"); /* fewer fires than a batch */
  free(h); free(delay); free(bs); free(bp); free(bf); free(perm); free(fire_stamps);
}

/* timeout N: the timeout pattern of a server. N one-shots live, due 10 to 20 s ahead; then 2N
 * steps, each cancelling the oldest live timer before it fires and starting a new one (a request
 * that ended in time and the next one): ns per step (a cancel, a release and a start), batches of
 * SCALE_BATCH steps with a non-blocking pass after each (the loop's turn a server makes). */
static void timeout_pattern(long n) {
  long steps = 2 * n, per = steps / SCALE_BATCH, k = 0;
  cadence_cancellable *h = malloc(n * sizeof *h); double *bt = malloc(per * sizeof *bt);
  if (!h || !bt) { perror("malloc"); exit(2); }
  fired = 0; target = -1;
  for (long i = 0; i < n; i++) check(start_default(loop, 10.0 + 10.0 * unit(), &h[i]), "schedule");
  uint64_t a0 = mono_ns();
  for (long s = 0; s < steps; s += SCALE_BATCH) {
    uint64_t a = thread_ns();
    for (long j = s; j < s + SCALE_BATCH; j++) {
      long i = j % n;
      cadence_cancel(h[i]); cadence_cancellable_release(h[i]);
      start_default(loop, 10.0 + 10.0 * unit(), &h[i]);
    }
    cadence_loop_run(loop, "default", 0);
    bt[k++] = (double)(thread_ns() - a) / SCALE_BATCH;
  }
  double mean = (double)(mono_ns() - a0) / (k * SCALE_BATCH);
  if (fired) { fprintf(stderr, "a cancelled timer fired\n"); exit(1); }
  emit_batches("timeout", n, bt, k, mean);
  release_all(h, n); free(h); free(bt);
}

enum { LAT_N = 300 };
static uint64_t lat_ts[LAT_N]; static long lat_k;
static cadence_cancellable lat_timer;
static void on_lat(const cadence_tick *t, void *u) {
  (void)t; (void)u;
  lat_ts[lat_k++] = mono_ns();
  if (lat_k == LAT_N) { cadence_cancel(lat_timer); cadence_loop_stop(loop); }
}
static void lat(void) {
  uint64_t t0 = mono_ns();
  check(cadence_loop_schedule_repeating(loop, 0.010, 0.010, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                        on_lat, NULL, &lat_timer), "schedule_repeating");
  check(cadence_loop_run(loop, "default", 10), "run");
  if (lat_k != LAT_N) { fprintf(stderr, "%ld fires\n", lat_k); exit(1); }
  report_lateness(lat_ts, LAT_N, t0, 10000000ULL);
}

static long idle_k; static cadence_cancellable idle_timer;
static void on_idle(const cadence_tick *t, void *u) {
  (void)t; (void)u;
  if (++idle_k == 5) { cadence_cancel(idle_timer); cadence_loop_stop(loop); }
}
static void idle(void) {
  double c0 = cpu_ns();
  check(cadence_loop_schedule_repeating(loop, 1.0, 1.0, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                        on_idle, NULL, &idle_timer), "schedule_repeating");
  check(cadence_loop_run(loop, "default", 10), "run");
  emit("idle_cpu_ms", 5, (cpu_ns() - c0) / 1e6, "ms");
}

enum { W_N = 1000 };
static cadence_cancellable w_timer[W_N];
static long wfires;
static void on_w(const cadence_tick *t, void *u) { (void)t; (void)u; wfires++; }
static void wake(void) {
  uint64_t w0, w1;
  long s0 = nvcsw();
  uint64_t t0 = mono_ns();
  check(cadence_loop_wakeups(loop, &w0), "wakeups");
  for (long i = 0; i < W_N; i++)  /* first due at a random phase in [0, 1 s), then every 1 s */
    check(cadence_loop_schedule_repeating(loop, unit(), 1.0, 0.1, CADENCE_MISSED_TICKS_SKIP, "default",
                                          on_w, NULL, &w_timer[i]), "schedule_repeating");
  double left = 5.0 - (double)(mono_ns() - t0) / 1e9;
  check(cadence_loop_run(loop, "default", left > 0 ? left : 0), "run");
  for (long i = 0; i < W_N; i++) cadence_cancel(w_timer[i]);
  double secs = (double)(mono_ns() - t0) / 1e9;
  check(cadence_loop_wakeups(loop, &w1), "wakeups");
  emit("wakeups_per_s", W_N, (nvcsw() - s0) / secs, "1/s");
  emit("wake_fires", W_N, wfires, "count");
  emit("wakeups_counted_per_s", W_N, (double)(w1 - w0) / secs, "1/s");
}

static void mem(void) {
  enum { N = 1000000 };
  /* A program that arms a million timers and watches its memory opts in to the trim that hands a
   * grown table's old buffers back (off by default since 0.4; 0.3 always trimmed). */
  if (!getenv("CADENCE_BENCH_NO_TRIM")) check(cadence_set_trim_memory(1), "trim");
  long r0 = rss_bytes();
  cadence_cancellable *h = malloc(N * sizeof *h);
  for (long i = 0; i < N; i++) check(start_default(loop, 3600, &h[i]), "schedule");
  long r1 = rss_bytes();
  emit("bytes_per_timer", N, (double)(r1 - r0) / N, "B/timer");
}

/* warm-up before lat/idle/wake: one 1 ms one-shot timer run to completion */
static void on_warm(const cadence_tick *t, void *u) { (void)t; (void)u; cadence_loop_stop(loop); }
static void warm_up(void) {
  cadence_cancellable h;
  check(cadence_loop_schedule(loop, 0.001, 0, "default", on_warm, NULL, &h), "schedule");
  check(cadence_loop_run(loop, "default", 1), "run");
  check(cadence_cancellable_release(h), "release");
}

int main(int argc, char **argv) {
  const char *g = argc > 1 ? argv[1] : "ops";
  int rounds = getenv("PEER_ROUNDS") ? atoi(getenv("PEER_ROUNDS")) : 3;
  if (rounds < 1 || rounds > 16) rounds = 3;
  if (getenv("PEER_BUDGET_S")) budget_ns = (uint64_t)(atof(getenv("PEER_BUDGET_S")) * 1e9);
  check(cadence_loop_create(&loop), "loop");
  check(cadence_loop_set_callbacks(loop, on_fire, NULL), "callbacks");
  if (!strcmp(g, "lat") || !strcmp(g, "idle") || !strcmp(g, "wake")) warm_up();
  if (!strcmp(g, "ops")) ops(rounds);
  else if (!strcmp(g, "lat")) lat();
  else if (!strcmp(g, "idle")) idle();
  else if (!strcmp(g, "wake")) wake();
  else if (!strcmp(g, "mem")) mem();
  else if (!strcmp(g, "scale")) scale(argc > 2 ? atol(argv[2]) : 100000);
  else if (!strcmp(g, "timeout")) timeout_pattern(argc > 2 ? atol(argv[2]) : 1000000);
  else { fprintf(stderr, "unknown group %s\n", g); return 2; }
  return 0;
}
