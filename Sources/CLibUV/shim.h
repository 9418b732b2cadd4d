// libuv, and the Linux timerfd that the loop watches for nanosecond deadlines, as the Cadence
// engine sees them. Only Sources/Cadence/Internals/UVBackend.swift uses this module.
#include <uv.h>
#include <sys/timerfd.h>
#include <unistd.h>
