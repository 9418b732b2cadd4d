/* floors.c - what three primitives cost on this machine, for the tables' "floors" section: a
 * fresh CLOCK_MONOTONIC read (which every Cadence start makes, where libuv's uv_timer_start uses
 * the loop's cached time), an uncontended pthread mutex lock + unlock (Cadence's start and stop
 * take one through Swift, two through C; libuv takes none, being single-threaded), and an atomic
 * read-modify-write (what a Swift retain or release costs at least).
 * The mutex is measured twice: glibc skips the atomic instructions while a process has never
 * started a thread (as the benchmark programs), and pays them once one has (a loop on its own
 * thread, the Python bindings' signal watcher).
 * Each figure: median of 7 batches of 10^6 calls, ns per call, as the peers' JSON lines.
 * Build: gcc -O2 floors.c -lpthread      Run: floors */
#define _POSIX_C_SOURCE 200112L
#include <pthread.h>
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
  return 0;
}
