/* floors.c - what three primitives cost on this machine, for the tables' "floors" section: a
 * fresh CLOCK_MONOTONIC read (which every Cadence start makes, where libuv's uv_timer_start uses
 * the loop's cached time), an uncontended pthread mutex lock + unlock (Cadence's start and stop
 * take one through Swift, two through C; libuv takes none, being single-threaded), and an atomic
 * read-modify-write (what a Swift retain or release costs at least).
 * The mutex is measured twice: glibc skips the atomic instructions while a process has never
 * started a thread (as the benchmark programs), and pays them once one has (a loop on its own
 * thread, the Python bindings' signal watcher).
 * Each figure: median of 7 batches of 10^6 calls, ns per call, as the peers' JSON lines.
 * Also the least a stop in random order can cost at 10^3 and at 10^7 timers, whatever the
 * structure: read the program's 8-byte handle, clear a flag in the timer's 40-byte record (its
 * table on 2 MB pages, as Cadence's), push the record on a free list; ns per stop over all N,
 * as `bench scale` orders its stops (median of 7 rounds at 10^3, of 3 at 10^7).
 * Build: gcc -O2 floors.c -lpthread      Run: floors */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <sys/mman.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { BATCHES = 7, CALLS = 1000000 };

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
static int cmp_d(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static void emit(const char *metric, double *batches) {
  qsort(batches, BATCHES, sizeof *batches, cmp_d);
  printf("{\"impl\": \"machine\", \"metric\": \"%s\", \"n\": %d, \"value\": %.3g, \"unit\": \"ns/op\"}\n",
         metric, CALLS, batches[BATCHES / 2]);
}

static volatile uint64_t sink; /* keeps the loops from being optimized away */

static void mutex_pairs(double *batches) {
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  for (int b = 0; b < BATCHES; b++) {
    uint64_t a = now_ns();
    for (int i = 0; i < CALLS; i++) {
      pthread_mutex_lock(&mutex);
      pthread_mutex_unlock(&mutex);
    }
    batches[b] = (double)(now_ns() - a) / CALLS;
  }
}

static void *idle_thread(void *unused) { return unused; }

typedef struct { uint64_t words[4]; uint32_t flags, next; } record; /* 40 bytes */

/* The stop floor at n timers (see the header): ns per stop, median of `rounds`. */
static double stop_floor(long n, int rounds) {
  size_t bytes = (size_t)n * sizeof(record);
  record *table = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint64_t *handles = malloc(n * sizeof *handles);
  uint32_t *order = malloc(n * sizeof *order), *freed = malloc(n * sizeof *freed);
  if (table == MAP_FAILED || !handles || !order || !freed) { perror("floors"); exit(2); }
  madvise(table, bytes, MADV_HUGEPAGE);
  uint64_t x = 88172645463325252u;
  for (long i = 0; i < n; i++) { handles[i] = (uint64_t)i; order[i] = (uint32_t)i; table[i].flags = 1; }
  for (long i = n - 1; i > 0; i--) {  /* xorshift64 shuffle */
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    long j = (long)(x % (uint64_t)(i + 1));
    uint32_t t = order[i]; order[i] = order[j]; order[j] = t;
  }
  double v[BATCHES];
  long repeat = n < CALLS ? CALLS / n : 1;
  for (int r = 0; r < rounds; r++) {
    uint64_t spent = 0;
    for (long k = 0; k < repeat; k++) {
      long top = 0;
      uint64_t a = now_ns();
      for (long i = 0; i < n; i++) {
        record *rec = &table[handles[order[i]]];
        rec->flags = 0;
        rec->next = (uint32_t)top;
        freed[top++] = order[i];
      }
      spent += now_ns() - a;
      for (long i = 0; i < n; i++) table[i].flags = 1;  /* armed again, not timed */
    }
    v[r] = (double)spent / ((double)n * repeat);
  }
  sink = freed[n / 2];
  qsort(v, rounds, sizeof *v, cmp_d);
  munmap(table, bytes); free(handles); free(order); free(freed);
  return v[rounds / 2];
}

int main(void) {
  double v[BATCHES];
  for (int b = 0; b < BATCHES; b++) {
    uint64_t sum = 0, a = now_ns();
    for (int i = 0; i < CALLS; i++) sum += now_ns();
    v[b] = (double)(now_ns() - a) / CALLS;
    sink = sum;
  }
  emit("clock_read_ns", v);

  mutex_pairs(v);
  emit("mutex_pair_ns", v);
  pthread_t thread;
  if (pthread_create(&thread, NULL, idle_thread, NULL) != 0 || pthread_join(thread, NULL) != 0) return 1;
  mutex_pairs(v);
  emit("mutex_pair_threaded_ns", v);

  _Atomic uint64_t counter = 0;
  for (int b = 0; b < BATCHES; b++) {
    uint64_t a = now_ns();
    for (int i = 0; i < CALLS; i++) atomic_fetch_add(&counter, 1);
    v[b] = (double)(now_ns() - a) / CALLS;
  }
  sink = atomic_load(&counter);
  emit("atomic_rmw_ns", v);

  double small = stop_floor(1000, BATCHES), large = stop_floor(10000000, 3);
  printf("{\"impl\": \"machine\", \"metric\": \"stop_floor_1e3_ns\", \"n\": 1000, \"value\": %.3g, \"unit\": \"ns/op\"}\n", small);
  printf("{\"impl\": \"machine\", \"metric\": \"stop_floor_1e7_ns\", \"n\": 10000000, \"value\": %.3g, \"unit\": \"ns/op\"}\n", large);
  return 0;
}
