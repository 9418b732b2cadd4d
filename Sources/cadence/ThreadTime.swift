import Glibc

/// The calling thread's view of time, outside any Cadence loop.
enum ThreadTime {
    /// Blocks the calling thread for `seconds` with `nanosleep`, resuming after a signal until the
    /// whole span has passed. No loop runs meanwhile: this is the "busy main thread" of the seed.
    static func block(seconds: Double) {
        guard seconds > 0 else { return }
        let whole = seconds.rounded(.down)
        let nanoseconds = min(Int(((seconds - whole) * 1e9).rounded(.up)), 999_999_999)
        var request = timespec(tv_sec: Int(whole), tv_nsec: nanoseconds)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }

    /// A monotonic reading in seconds, for timing the tool's own work.
    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
