// libuv, as the Cadence engine sees it. Only Sources/Cadence/Internals/UVBackend.swift uses it.
#include <uv.h>
