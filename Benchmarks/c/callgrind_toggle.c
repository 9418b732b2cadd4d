/* callgrind_toggle.c - callgrind's collection switched on and off from another language, for
 * Benchmarks/python/wakeup.py (through ctypes); Benchmarks/profile.py builds it as a shared
 * library. Outside valgrind both functions do nothing.
 */
#include <valgrind/callgrind.h>

void cadence_profile_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void cadence_profile_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
