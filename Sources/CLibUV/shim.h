// libuv, the Linux timerfd that the loop watches for nanosecond deadlines, and glibc's
// malloc_trim, as the Cadence engine sees them. Only Sources/Cadence/Internals/UVBackend.swift
// and FreedMemory.swift use this module.
#include <uv.h>
#include <malloc.h>
#include <sys/timerfd.h>
#include <unistd.h>
