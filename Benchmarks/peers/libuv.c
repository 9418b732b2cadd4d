/* libuv.c - the raw libuv peer: uv_timer_t measured with the metric definitions of
 * docs/BENCHMARKS.md ("What each figure means"). One group per process, one JSON line per metric.
 * Build: gcc -O2 libuv.c -luv -lm
 * Run:   libuv ops|lat|idle|wake|mem, libuv scale N (start/stop/fire at N timers, with batch
 *        percentiles) and libuv timeout N (the timeout pattern at N live timers)
 * libuv's timers take whole milliseconds, so random delays are drawn in whole milliseconds.
 * The caller owns every uv_timer_t: they sit in arrays allocated before the clock starts. */
#include <uv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static uv_loop_t *loop;

static void emit(const char *metric, long n, double value, const char *unit) {
  printf("{\"impl\": \"libuv\", \"metric\": \"%s\", \"n\": %ld, \"value\": %.6g, \"unit\": \"%s\"}\n",
         metric, n, value, unit);
  fflush(stdout);
}

/* splitmix64: seeded, so every run draws the same delays and stop order */
static uint64_t seed = 42;
static uint64_t draw(void) {
  uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static struct rusage usage(void) { struct rusage r; getrusage(RUSAGE_SELF, &r); return r; }
static double cpu_ns(void) { /* user + sys, all threads */
  struct rusage r = usage();
  return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e9
       + (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e3;
}
static long rss_bytes(void) { /* 2nd field of /proc/self/statm, in pages */
  long pages_total, pages_resident;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2) { perror("statm"); exit(2); }
  fclose(f);
  return pages_resident * sysconf(_SC_PAGESIZE);
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
/* element floor(n/2) of the sorted values, the rounds' median */
static double median(double *v, int n) { qsort(v, (size_t)n, sizeof *v, by_value); return v[n / 2]; }
/* nearest rank on sorted values: index ceil(p*n/100) - 1 */
static double rank(const double *sorted, long n, long p) {
  long r = (p * n + 99) / 100;
  return sorted[r > 0 ? r - 1 : 0];
}

/* scale's batch samples: ns of the thread's CPU time per operation in each batch of BATCH (see
 * Cadence's Benchmarks/c/bench.c, "scale N"); NULL outside scale. */
enum { BATCH = 1000 };
typedef struct { double *start, *stop, *fire; long ks, kp, kf; } samples_t;
static samples_t *samples;
static uint64_t thread_ns(void) {
  struct timespec ts; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
static uint64_t last_stamp;

static long fired;
static void count_fire(uv_timer_t *t) {
  (void)t;
  if (++fired % BATCH == 0 && samples) {
    uint64_t now = thread_ns();
    samples->fire[samples->kf++] = (double)(now - last_stamp) / BATCH;
    last_stamp = now;
  }
}

/* Closes n handles and runs the loop until the closes are done, so the memory can be reused. */
static void close_timers(uv_timer_t *t, long n) {
  for (long i = 0; i < n; i++) uv_close((uv_handle_t *)&t[i], NULL);
  uv_run(loop, UV_RUN_DEFAULT);
}

/* One round of start, stop and fire at n timers, in ns per operation. With settle, the CPU time
 * of start and stop is read 200 ms after the phase ends, so deferred work is counted. */
typedef struct { double start, stop, start_cpu, stop_cpu, fire; } round_t;
static round_t one_round(uv_timer_t *t, uint64_t *delay_ms, long *order, long n, int settle) {
  round_t r;
  for (long i = 0; i < n; i++) { delay_ms[i] = 1000 + draw() % 1001; order[i] = i; }
  for (long i = n - 1; i > 0; i--) { /* Fisher-Yates: the stop order */
    long j = (long)(draw() % (uint64_t)(i + 1)), x = order[i];
    order[i] = order[j]; order[j] = x;
  }
  uv_update_time(loop);
  double cpu0 = cpu_ns();
  uint64_t t0 = uv_hrtime();
  for (long b = 0; b < n; b += BATCH) {
    long end = b + BATCH < n ? b + BATCH : n; uint64_t c = samples ? thread_ns() : 0;
    for (long i = b; i < end; i++) { uv_timer_init(loop, &t[i]); uv_timer_start(&t[i], count_fire, delay_ms[i], 0); }
    if (samples) samples->start[samples->ks++] = (double)(thread_ns() - c) / (end - b);
  }
  uint64_t t1 = uv_hrtime();
  if (settle) usleep(200000);
  r.start = (double)(t1 - t0) / n; r.start_cpu = (cpu_ns() - cpu0) / n;

  cpu0 = cpu_ns(); t0 = uv_hrtime();
  for (long b = 0; b < n; b += BATCH) {
    long end = b + BATCH < n ? b + BATCH : n; uint64_t c = samples ? thread_ns() : 0;
    for (long i = b; i < end; i++) uv_timer_stop(&t[order[i]]);
    if (samples) samples->stop[samples->kp++] = (double)(thread_ns() - c) / (end - b);
  }
  uv_run(loop, UV_RUN_NOWAIT); /* the one non-blocking loop turn of the definition */
  t1 = uv_hrtime();
  if (settle) usleep(200000);
  r.stop = (double)(t1 - t0) / n; r.stop_cpu = (cpu_ns() - cpu0) / n;
  close_timers(t, n);

  /* fire: every timer due at once (0 ms, the API's resolution is 1 ms) */
  fired = 0;
  uv_update_time(loop);
  for (long i = 0; i < n; i++) { uv_timer_init(loop, &t[i]); uv_timer_start(&t[i], count_fire, 0, 0); }
  t0 = uv_hrtime(); last_stamp = thread_ns();
  uv_run(loop, UV_RUN_DEFAULT); /* returns once every one-shot has fired */
  t1 = uv_hrtime();
  if (fired != n) { fprintf(stderr, "fired %ld of %ld timers\n", fired, n); exit(1); }
  r.fire = (double)(t1 - t0) / n;
  close_timers(t, n);
  return r;
}

static uint64_t budget_ns(void) {
  const char *s = getenv("PEER_BUDGET_S");
  return s ? (uint64_t)(atof(s) * 1e9) : 8000000000ULL;
}

/* ops: N = 100000, up to PEER_ROUNDS rounds, none begun after PEER_BUDGET_S.
 * scale: N given, max(3, min(25, 1e6/N)) rounds, the first always, no settle. */
static void ops(long n, int max_rounds, int settle) {
  enum { MAX_ROUNDS = 25 };
  uv_timer_t *t = malloc((size_t)n * sizeof *t);
  uint64_t *delay_ms = malloc((size_t)n * sizeof *delay_ms);
  long *order = malloc((size_t)n * sizeof *order);
  if (!t || !delay_ms || !order) { perror("malloc"); exit(2); }
  double start[MAX_ROUNDS], stop[MAX_ROUNDS], start_cpu[MAX_ROUNDS], stop_cpu[MAX_ROUNDS], fire[MAX_ROUNDS];
  uint64_t began = uv_hrtime(), budget = budget_ns();
  int k = 0;
  while (k < max_rounds && k < MAX_ROUNDS && (k == 0 || uv_hrtime() - began < budget)) {
    round_t r = one_round(t, delay_ms, order, n, settle);
    start[k] = r.start; stop[k] = r.stop; start_cpu[k] = r.start_cpu; stop_cpu[k] = r.stop_cpu; fire[k] = r.fire;
    fprintf(stderr, "round %d at N=%ld: start %.1f, stop %.1f, fire %.1f ns\n", k, n, r.start, r.stop, r.fire);
    k++;
  }
  emit("start_ns", n, median(start, k), "ns/op");
  emit("stop_ns", n, median(stop, k), "ns/op");
  if (settle) {
    emit("start_cpu_ns", n, median(start_cpu, k), "ns/op");
    emit("stop_cpu_ns", n, median(stop_cpu, k), "ns/op");
  }
  emit("fire_ns", n, median(fire, k), "ns/fire");
  free(t); free(delay_ms); free(order);
}

/* p50, p99 and p99.9 (nearest rank) of an operation's batches */
static void emit_batches(const char *op, long n, double *v, long count) {
  char name[32];
  if (count == 0) return;
  qsort(v, (size_t)count, sizeof *v, by_value);
  snprintf(name, sizeof name, "%s_p50_ns", op); emit(name, n, rank(v, count, 50), "ns/op");
  snprintf(name, sizeof name, "%s_p99_ns", op); emit(name, n, rank(v, count, 99), "ns/op");
  long r = (999 * count + 999) / 1000;
  snprintf(name, sizeof name, "%s_p999_ns", op); emit(name, n, v[r > 0 ? r - 1 : 0], "ns/op");
}

/* scale N: ops at N timers, and the percentiles of their batches */
static void scale(long n) {
  long k = 1000000 / n, rounds = k < 3 ? 3 : k > 25 ? 25 : k, cap = (n / BATCH + 1) * rounds;
  samples_t s = { malloc(cap * sizeof(double)), malloc(cap * sizeof(double)), malloc(cap * sizeof(double)), 0, 0, 0 };
  if (!s.start || !s.stop || !s.fire) { perror("malloc"); exit(2); }
  samples = &s;
  ops(n, (int)rounds, 0);
  samples = NULL;
  emit_batches("start", n, s.start, s.ks);
  emit_batches("stop", n, s.stop, s.kp);
  emit_batches("fire", n, s.fire, s.kf);
  free(s.start); free(s.stop); free(s.fire);
}

/* timeout N: the timeout pattern (Cadence's Benchmarks/c/bench.c, "timeout N"): N timers due 10
 * to 20 s ahead, then 2N steps each stopping the oldest and starting it again (uv_timer_stop,
 * uv_timer_start on the same handle), batches of BATCH steps with a non-blocking turn after each. */
static void timeout_pattern(long n) {
  long steps = 2 * n, count = steps / BATCH, k = 0;
  uv_timer_t *t = malloc((size_t)n * sizeof *t); double *v = malloc((size_t)count * sizeof *v);
  if (!t || !v) { perror("malloc"); exit(2); }
  fired = 0;
  for (long i = 0; i < n; i++) { uv_timer_init(loop, &t[i]); uv_timer_start(&t[i], count_fire, 10000 + draw() % 10001, 0); }
  uint64_t a0 = uv_hrtime();
  for (long b = 0; b < steps; b += BATCH) {
    uint64_t c = thread_ns();
    for (long j = b; j < b + BATCH; j++) {
      uv_timer_t *timer = &t[j % n];
      uv_timer_stop(timer);
      uv_timer_start(timer, count_fire, 10000 + draw() % 10001, 0);
    }
    uv_run(loop, UV_RUN_NOWAIT);
    v[k++] = (double)(thread_ns() - c) / BATCH;
  }
  emit("timeout_ns", n, (double)(uv_hrtime() - a0) / (double)(k * BATCH), "ns/op");
  if (fired) { fprintf(stderr, "a stopped timer fired\n"); exit(1); }
  emit_batches("timeout", n, v, k);
  for (long i = 0; i < n; i++) uv_timer_stop(&t[i]);
  close_timers(t, n);
  free(t); free(v);
}

/* lat: libuv's own repeat, 10 ms, 300 fires; lateness against the grid start + k * 10 ms */
enum { LAT_FIRES = 300 };
static uint64_t fire_time[LAT_FIRES];
static long lat_fires;
static void on_tick(uv_timer_t *t) {
  fire_time[lat_fires++] = uv_hrtime();
  if (lat_fires == LAT_FIRES) uv_timer_stop(t);
}
static void lat(void) {
  const uint64_t period = 10000000;
  uv_timer_t t;
  uv_timer_init(loop, &t);
  uv_update_time(loop);
  uint64_t start = uv_hrtime();
  uv_timer_start(&t, on_tick, 10, 10);
  uv_run(loop, UV_RUN_DEFAULT);
  double late_us[LAT_FIRES];
  long early = 0;
  for (long k = 0; k < LAT_FIRES; k++) {
    late_us[k] = ((double)fire_time[k] - (double)(start + (uint64_t)(k + 1) * period)) / 1e3;
    early += late_us[k] < 0;
  }
  qsort(late_us, LAT_FIRES, sizeof late_us[0], by_value);
  emit("lateness_us_p50", LAT_FIRES, rank(late_us, LAT_FIRES, 50), "us");
  emit("lateness_us_p99", LAT_FIRES, rank(late_us, LAT_FIRES, 99), "us");
  emit("lateness_us_max", LAT_FIRES, late_us[LAT_FIRES - 1], "us");
  emit("early_count", LAT_FIRES, (double)early, "count");
  emit("interval_us_mean", LAT_FIRES,
       (double)(fire_time[LAT_FIRES - 1] - fire_time[0]) / (LAT_FIRES - 1) / 1e3, "us");
}

/* idle: a repeating 1 s timer; CPU time from just before arming to its 5th fire */
static void stop_at_fifth(uv_timer_t *t) { if (++fired == 5) uv_timer_stop(t); }
static void idle(void) {
  uv_timer_t t;
  uv_timer_init(loop, &t);
  fired = 0;
  double cpu0 = cpu_ns();
  uv_update_time(loop);
  uv_timer_start(&t, stop_at_fifth, 1000, 1000);
  uv_run(loop, UV_RUN_DEFAULT);
  emit("idle_cpu_ms", 5, (cpu_ns() - cpu0) / 1e6, "ms");
}

/* wake: 1000 repeating 1 s timers at random phases (libuv has no tolerance), stopped after 5 s */
enum { WAKE_TIMERS = 1000 };
static uv_timer_t wake_timer[WAKE_TIMERS], wake_end;
static void end_wake(uv_timer_t *t) {
  for (int i = 0; i < WAKE_TIMERS; i++) uv_timer_stop(&wake_timer[i]);
  uv_timer_stop(t);
}
static void wake(void) {
  fired = 0;
  long switches0 = usage().ru_nvcsw;
  uint64_t t0 = uv_hrtime();
  uv_update_time(loop);
  for (int i = 0; i < WAKE_TIMERS; i++) {
    uv_timer_init(loop, &wake_timer[i]);
    uv_timer_start(&wake_timer[i], count_fire, draw() % 1000, 1000);
  }
  uv_timer_init(loop, &wake_end);
  uv_timer_start(&wake_end, end_wake, 5000, 0);
  uv_run(loop, UV_RUN_DEFAULT);
  double seconds = (double)(uv_hrtime() - t0) / 1e9;
  emit("wakeups_per_s", WAKE_TIMERS, (double)(usage().ru_nvcsw - switches0) / seconds, "1/s");
  emit("wake_fires", WAKE_TIMERS, (double)fired, "count");
}

/* mem: 10^6 armed one-shots an hour away; the handles' array is part of the cost */
static void mem(void) {
  const long n = 1000000;
  long rss0 = rss_bytes();
  uv_timer_t *t = malloc((size_t)n * sizeof *t);
  if (!t) { perror("malloc"); exit(2); }
  uv_update_time(loop);
  for (long i = 0; i < n; i++) { uv_timer_init(loop, &t[i]); uv_timer_start(&t[i], count_fire, 3600 * 1000, 0); }
  emit("bytes_per_timer", n, (double)(rss_bytes() - rss0) / n, "B/timer");
}

/* Before lat, idle and wake: one 1 ms one-shot run to completion, so set-up is not measured. */
static void warm_up(void) {
  uv_timer_t t;
  uv_timer_init(loop, &t);
  uv_timer_start(&t, count_fire, 1, 0);
  uv_run(loop, UV_RUN_DEFAULT);
  close_timers(&t, 1);
}

int main(int argc, char **argv) {
  const char *group = argc > 1 ? argv[1] : "ops";
  const char *r = getenv("PEER_ROUNDS");
  int rounds = r ? atoi(r) : 3;
  if (rounds < 1 || rounds > 16) rounds = 3;
  loop = uv_default_loop();
  if (!strcmp(group, "ops")) ops(100000, rounds, 1);
  else if (!strcmp(group, "scale")) {
    long n = argc > 2 ? atol(argv[2]) : 100000;
    if (n < 1) { fprintf(stderr, "usage: libuv scale N (N >= 1)\n"); return 2; }
    scale(n);
  } else if (!strcmp(group, "timeout")) {
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    if (n < BATCH) { fprintf(stderr, "usage: libuv timeout N (N >= %d)\n", BATCH); return 2; }
    timeout_pattern(n);
  } else if (!strcmp(group, "lat")) { warm_up(); lat(); }
  else if (!strcmp(group, "idle")) { warm_up(); idle(); }
  else if (!strcmp(group, "wake")) { warm_up(); wake(); }
  else if (!strcmp(group, "mem")) mem();
  else { fprintf(stderr, "unknown group %s (ops, lat, idle, wake, mem, scale N, timeout N)\n", group); return 2; }
  return 0;
}
