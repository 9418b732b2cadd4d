/* scale_libuv.c - raw libuv uv_timer_t start/stop/fire cost at N timers, for the scaling table.
 * The ops group of shared/peers/peer_libuv.c with N as an argument (that peer fixes N = 100000):
 * same delays (whole ms in [1 s, 2 s]; 0 ms for fire), same random stop order, one UV_RUN_NOWAIT
 * turn after the stops. Median of max(3, min(25, 1e6/N)) rounds (no new round after
 * PEER_BUDGET_S, default 8 s), without the 200 ms CPU settle of the ops group.
 * Build: gcc -O2 scale_libuv.c -luv -lm      Run: scale_libuv N */
#include <uv.h>
#include <stdio.h>
#include <stdlib.h>

#define IMPL "libuv"
static uv_loop_t *loop;
static uint64_t rs = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }

static void emit(const char *m, long n, double v, const char *unit) {
  printf("{\"impl\": \"%s\", \"metric\": \"%s\", \"n\": %ld, \"value\": %.6g, \"unit\": \"%s\"}\n",
         IMPL, m, n, v, unit);
  fflush(stdout);
}
static int cmp_d(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double median(double *v, int n) { qsort(v, n, sizeof *v, cmp_d); return v[n / 2]; }

static long fired;
static void on_fire(uv_timer_t *t) { (void)t; fired++; }
static void close_all(uv_timer_t *t, long n) {
  for (long i = 0; i < n; i++) uv_close((uv_handle_t *)&t[i], NULL);
  uv_run(loop, UV_RUN_DEFAULT);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  if (n < 1) { fprintf(stderr, "usage: scale_libuv N\n"); return 2; }
  uint64_t budget_ns = getenv("PEER_BUDGET_S") ? (uint64_t)(atof(getenv("PEER_BUDGET_S")) * 1e9) : 8000000000ULL;
  long rounds = 1000000 / n; rounds = rounds < 3 ? 3 : rounds > 25 ? 25 : rounds;
  loop = uv_default_loop();
  uv_timer_t *t = malloc(n * sizeof *t);
  uint64_t *delay = malloc(n * sizeof *delay);
  long *perm = malloc(n * sizeof *perm);
  double st[25], sp[25], fi[25];
  uint64_t began = uv_hrtime(); int r;
  for (r = 0; r < rounds && (r == 0 || uv_hrtime() - began < budget_ns); r++) {
    for (long i = 0; i < n; i++) { delay[i] = 1000 + rnd() % 1001; perm[i] = i; }
    for (long i = n - 1; i > 0; i--) { long j = rnd() % (i + 1), x = perm[i]; perm[i] = perm[j]; perm[j] = x; }
    uv_update_time(loop);
    uint64_t a = uv_hrtime();
    for (long i = 0; i < n; i++) { uv_timer_init(loop, &t[i]); uv_timer_start(&t[i], on_fire, delay[i], 0); }
    uint64_t b = uv_hrtime();
    st[r] = (double)(b - a) / n;
    a = uv_hrtime();
    for (long i = 0; i < n; i++) uv_timer_stop(&t[perm[i]]);
    uv_run(loop, UV_RUN_NOWAIT);
    b = uv_hrtime();
    sp[r] = (double)(b - a) / n;
    close_all(t, n);
    fired = 0; uv_update_time(loop);
    for (long i = 0; i < n; i++) { uv_timer_init(loop, &t[i]); uv_timer_start(&t[i], on_fire, 0, 0); }
    a = uv_hrtime(); uv_run(loop, UV_RUN_DEFAULT); b = uv_hrtime();
    if (fired != n) { fprintf(stderr, "fired %ld of %ld\n", fired, n); return 1; }
    fi[r] = (double)(b - a) / n;
    close_all(t, n);
    fprintf(stderr, "round %d: start %.1f stop %.1f fire %.1f ns\n", r, st[r], sp[r], fi[r]);
  }
  emit("start_ns", n, median(st, r), "ns/op");
  emit("stop_ns", n, median(sp, r), "ns/op");
  emit("fire_ns", n, median(fi, r), "ns/fire");
  return 0;
}
