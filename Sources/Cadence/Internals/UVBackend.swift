import CLibUV
import Glibc

/// The real clock: a libuv loop with one `uv_timer_t` for the next wake-up and one `uv_async_t`
/// for wake-ups from other threads. Every libuv call in Cadence is in this file.
final class UVBackend: LoopClock {
    private let loop: UnsafeMutablePointer<uv_loop_t>
    private let timer: UnsafeMutablePointer<uv_timer_t>
    private let async: UnsafeMutablePointer<uv_async_t>
    let epochOffset: Int64

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
        var realtime = timespec()
        clock_gettime(CLOCK_REALTIME, &realtime)
        let wall = Int64(realtime.tv_sec) * 1_000_000_000 + Int64(realtime.tv_nsec)
        epochOffset = wall - Int64(bitPattern: uv_hrtime())
    }

    func now() -> Nanoseconds { uv_hrtime() }

    /// libuv's loop time is whole milliseconds rounded down, so the delay is rounded up from the
    /// loop time: the timer can then only fire at or after `deadline`. The caller re-checks with
    /// a fresh clock read anyway (libuv issue 4773).
    func sleep(until deadline: Nanoseconds) {
        uv_update_time(loop)
        guard deadline > uv_hrtime() else { return }
        if deadline != .max {
            let loopTime = uv_now(loop).saturatingMultiply(1_000_000)
            let delay = deadline > loopTime ? deadline - loopTime : 0
            uv_timer_start(timer, { _ in }, (delay / 1_000_000) + (delay % 1_000_000 == 0 ? 0 : 1), 0)
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
