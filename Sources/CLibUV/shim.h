// libuv, the Linux timerfd that the loop watches for nanosecond deadlines, glibc's malloc_trim
// and a cache prefetch, as the Cadence engine sees them: used by Internals/UVBackend.swift,
// FreedMemory.swift and TimerQueues+Pass.swift, and by Loop+Host.swift (a host's uv_loop_t).
#include <uv.h>
#include <malloc.h>
#include <sys/timerfd.h>
#include <unistd.h>

// A hint that the cache line at `address` is about to be read and written: a pass that took
// many due timers at once reads their slots in fire-date order, from anywhere in a table of
// millions, and asks for the next ones while it fires the current one. Does nothing else.
static inline void prefetch_for_write(const void *address) { __builtin_prefetch(address, 1, 3); }
