import CLibUV

/// The real clock: a libuv loop with one `uv_timer_t` for the next wake-up and one `uv_async_t`
/// for wake-ups from other threads. Every libuv call in Cadence is in this file.
final class UVBackend: LoopClock {
    private let loop: UnsafeMutablePointer<uv_loop_t>
    private let timer: UnsafeMutablePointer<uv_timer_t>
    private let async: UnsafeMutablePointer<uv_async_t>

    init() throws(CadenceError) {
        loop = .allocate(capacity: 1)
        timer = .allocate(capacity: 1)
        async = .allocate(capacity: 1)
        guard uv_loop_init(loop) == 0 else {
            loop.deallocate(); timer.deallocate(); async.deallocate()
            throw .ioError
        }
        uv_timer_init(loop, timer)
        uv_async_init(loop, async) { _ in }
    }

    var epochOffset: Int64 { MonotonicClock.epochOffset }

    func now() -> Nanoseconds { uv_hrtime() }

    /// libuv's timeouts are whole milliseconds, so the delay from a fresh clock read is rounded
    /// up: epoll then cannot return before `deadline`, and libuv's timer, due at its cached loop
    /// time (rounded down) plus that delay, is due by then. The caller re-checks with a fresh
    /// clock read anyway (libuv issues 4773 and 1068).
    func sleep(until deadline: Nanoseconds) {
        uv_update_time(loop)
        let now = uv_hrtime()
        guard deadline > now else { return }
        if deadline != .max {
            let delay = deadline - now
            // The callback stops the loop: libuv 1.44 runs due timers before it polls, and a poll
            // after the only timer fired would otherwise block until the next async wake-up.
            uv_timer_start(timer, { uv_stop($0!.pointee.loop) },
                           delay / 1_000_000 + (delay % 1_000_000 == 0 ? 0 : 1), 0)
        }
        uv_run(loop, UV_RUN_ONCE)
        uv_timer_stop(timer)
    }

    func wake() { uv_async_send(async) }

    func close() {
        uv_close(UnsafeMutableRawPointer(timer).assumingMemoryBound(to: uv_handle_t.self), nil)
        uv_close(UnsafeMutableRawPointer(async).assumingMemoryBound(to: uv_handle_t.self), nil)
        uv_run(loop, UV_RUN_DEFAULT)
        uv_loop_close(loop)
        loop.deallocate()
        timer.deallocate()
        async.deallocate()
    }
}
