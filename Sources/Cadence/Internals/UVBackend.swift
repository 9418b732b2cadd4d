import Glibc
import CLibUV

/// The real clock: a libuv loop that watches one timerfd for the next wake-up and one
/// `uv_async_t` for wake-ups from other threads. Every libuv and timerfd call in Cadence is here.
///
/// Why a timerfd rather than a `uv_timer_t`: libuv's timeouts are whole milliseconds of a cached
/// clock, so a `uv_timer_t` wakes 0 to 1 ms after the deadline (about 0.6 ms on average here). A
/// timerfd armed with an absolute CLOCK_MONOTONIC deadline (the clock `uv_hrtime` reads) wakes the
/// same epoll that libuv sleeps in at the nanosecond deadline, without busy-waiting, and never before
/// it. libuv stays the event loop.
final class UVBackend: LoopClock {
    private let loop: UnsafeMutablePointer<uv_loop_t>
    private let poll: UnsafeMutablePointer<uv_poll_t>
    private let async: UnsafeMutablePointer<uv_async_t>
    private let timerFD: Int32

    init() throws(CadenceError) {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { throw .ioError.with("timerfd_create failed: \(String(cString: uv_strerror(-errno)))") }
        loop = .allocate(capacity: 1)
        poll = .allocate(capacity: 1)
        async = .allocate(capacity: 1)
        let status = uv_loop_init(loop)
        guard status == 0 else {
            CLibUV.close(fd)
            loop.deallocate(); poll.deallocate(); async.deallocate()
            throw .ioError.with("uv_loop_init failed: \(String(cString: uv_strerror(status)))")
        }
        timerFD = fd
        uv_poll_init(loop, poll, fd)
        // Readable when the deadline has passed: end the loop's turn. The expiry count is not read:
        // `sleep` re-arms the timerfd before every wait, and arming resets the count (so the fd is
        // no longer readable), which saves a read(2) per wake-up.
        uv_poll_start(poll, Int32(UV_READABLE.rawValue)) { handle, _, _ in
            uv_stop(handle!.pointee.loop)
        }
        uv_async_init(loop, async) { _ in }
    }

    var epochOffset: Int64 { MonotonicClock.epochOffset }

    /// CLOCK_MONOTONIC, the clock `uv_hrtime` reads, without the call through libuv.
    func now() -> Nanoseconds { MonotonicClock.now() }

    /// Arms the timerfd at `deadline` (absolute, so never early; arming also clears an expiry of the
    /// last deadline) and lets libuv wait for it or for a wake-up. The caller re-checks with a
    /// fresh clock read (libuv issues 4773 and 1068).
    func sleep(until deadline: Nanoseconds) {
        guard deadline > now() else { return }
        var spec = itimerspec()
        if deadline != .max {
            spec.it_value.tv_sec = Int(deadline / 1_000_000_000)
            spec.it_value.tv_nsec = Int(deadline % 1_000_000_000)
        }
        timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &spec, nil)
        uv_run(loop, UV_RUN_ONCE)
    }

    func wake() { uv_async_send(async) }

    func close() {
        uv_close(UnsafeMutableRawPointer(poll).assumingMemoryBound(to: uv_handle_t.self), nil)
        uv_close(UnsafeMutableRawPointer(async).assumingMemoryBound(to: uv_handle_t.self), nil)
        uv_run(loop, UV_RUN_DEFAULT)
        uv_loop_close(loop)
        CLibUV.close(timerFD)
        loop.deallocate()
        poll.deallocate()
        async.deallocate()
    }
}
