import Glibc
import CLibUV
import Synchronization

/// The real clock: a libuv loop that watches one timerfd for the next wake-up and one
/// `uv_async_t` for wake-ups from other threads. Every libuv and timerfd call in Cadence is here.
///
/// Why a timerfd rather than a `uv_timer_t`: libuv's timeouts are whole milliseconds of a cached
/// clock, so a `uv_timer_t` wakes 0 to 1 ms after the deadline (about 0.6 ms on average here). A
/// timerfd armed with an absolute CLOCK_MONOTONIC deadline (the clock `uv_hrtime` reads) wakes the
/// same epoll that libuv sleeps in at the nanosecond deadline, without busy-waiting, and never before
/// it. libuv stays the event loop.
///
/// Two forms: on a `uv_loop_t` of its own, which ``sleep(until:)`` waits on and whose epoll descriptor
/// (`uv_backend_fd`) a host can watch; or on a host's `uv_loop_t`, where the two handles call
/// `onReady` from the host's `uv_run` and nothing here runs the loop.
final class UVBackend: TimeSource {
    private let loop: UnsafeMutablePointer<uv_loop_t>
    private let poll: UnsafeMutablePointer<uv_poll_t>
    private let async: UnsafeMutablePointer<uv_async_t>
    private let timerFD: Int32
    /// Whether `loop` is the host's (not ours to run or close).
    let isHosted: Bool
    /// Called on the host's thread when the timerfd is readable or a wake-up arrived (hosted form).
    var onReady: () -> Void = {}
    /// Whether a wake-up may be waiting in the async handle: set before each `uv_async_send`,
    /// cleared by the `uv_run` of ``drainWakeups()`` that takes it in. A pass whose host saw only
    /// the timerfd then needs no `uv_run` (an `epoll_wait` and libuv's phases: about half of a
    /// cold pass), since the pass's re-arm of the timerfd is what clears that.
    private let wakeSent = Atomic<Bool>(false)

    /// A backend on a libuv loop of its own.
    convenience init() throws(CadenceError) {
        try self.init(host: nil)
    }

    /// A backend on `host`, or on a loop of its own when `host` is nil. The handles on a host's
    /// loop must be made on the thread that runs it (libuv's rule). They start unreferenced, so
    /// they keep the host's `uv_run(UV_RUN_DEFAULT)` going only while ``keepHostAlive(_:)`` says.
    init(host: UnsafeMutablePointer<uv_loop_t>?) throws(CadenceError) {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { throw .ioError.with("timerfd_create failed: \(String(cString: uv_strerror(-errno)))") }
        loop = host ?? .allocate(capacity: 1)
        isHosted = host != nil
        poll = .allocate(capacity: 1)
        async = .allocate(capacity: 1)
        let status = isHosted ? 0 : uv_loop_init(loop)
        guard status == 0 else {
            CLibUV.close(fd)
            loop.deallocate(); poll.deallocate(); async.deallocate()
            throw .ioError.with("uv_loop_init failed: \(String(cString: uv_strerror(status)))")
        }
        timerFD = fd
        let pollStatus = uv_poll_init(loop, poll, fd)
        guard pollStatus == 0 else {
            // Only a host's loop can refuse (one that is closing): ours is fresh.
            CLibUV.close(fd)
            poll.deallocate(); async.deallocate()
            throw .ioError.with("uv_poll_init on the host's uv_loop_t failed: \(String(cString: uv_strerror(pollStatus)))")
        }
        uv_async_init(loop, async) { handle in
            guard let data = handle!.pointee.data else { return }
            Unmanaged<UVBackend>.fromOpaque(data).takeUnretainedValue().onReady()
        }
        if isHosted {
            // Readable at the deadline: run a pass. The handles point at this backend, which
            // outlives them (`close` ends them before the loop lets go of it).
            let me = Unmanaged.passUnretained(self).toOpaque()
            poll.pointee.data = me
            async.pointee.data = me
            uv_poll_start(poll, Int32(UV_READABLE.rawValue)) { handle, _, _ in
                Unmanaged<UVBackend>.fromOpaque(handle!.pointee.data).takeUnretainedValue().onReady()
            }
            // An unreferenced handle still wakes the host's loop while it runs; it only does not
            // keep it running (libuv's `uv_unref`).
            uv_unref(UnsafeMutableRawPointer(poll).assumingMemoryBound(to: uv_handle_t.self))
            uv_unref(UnsafeMutableRawPointer(async).assumingMemoryBound(to: uv_handle_t.self))
        } else {
            // Readable when the deadline has passed: end the loop's turn. The expiry count is not
            // read: arming the timerfd resets it (so the fd is no longer readable), and `sleep`
            // and `arm` arm it before every wait, which saves a read(2) per wake-up.
            async.pointee.data = nil
            uv_poll_start(poll, Int32(UV_READABLE.rawValue)) { handle, _, _ in
                uv_stop(handle!.pointee.loop)
            }
            // libuv adds watchers to its epoll on its next turn: take one now, so that the
            // descriptor shows the timerfd and the async from the start.
            uv_run(loop, UV_RUN_NOWAIT)
        }
    }

    var epochOffset: Int64 { MonotonicClock.epochOffset }

    /// CLOCK_MONOTONIC, the clock `uv_hrtime` reads, without the call through libuv.
    func now() -> Nanoseconds { MonotonicClock.now() }

    /// Arms the timerfd at `deadline` (absolute, so never early; `.max` disarms it; a deadline
    /// that has passed makes it readable at once; arming also clears an expiry of the last one).
    func arm(at deadline: Nanoseconds) {
        var spec = itimerspec()
        if deadline != .max {
            let at = max(deadline, 1)  // an all-zero it_value would disarm
            spec.it_value.tv_sec = Int(at / 1_000_000_000)
            spec.it_value.tv_nsec = Int(at % 1_000_000_000)
        }
        timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// Arms the timerfd at `deadline` and waits for it or for a wake-up. The caller re-checks
    /// with a fresh clock read (libuv issues 4773 and 1068).
    ///
    /// The wait is one `poll(2)` on libuv's epoll descriptor, which is readable when any of the
    /// loop's handles is: a wake-up at the deadline needs nothing of libuv, whose phases
    /// (`uv_run`) run only when something else woke the loop (a wake-up from another thread, a
    /// signal). Measured (`make bench`'s idle group through C, CPU over five 1 s wake-ups,
    /// medians of three sets of interleaved runs): 431, 390 and 491 µs, where `uv_run` took
    /// 492, 449 and 529, and libuv's own program 352 and 421 in the last two; each wake-up after
    /// a second asleep runs on cold caches, where less code is less time.
    func sleep(until deadline: Nanoseconds) -> Nanoseconds? {
        guard !isHosted, deadline > now() else { return nil }
        arm(at: deadline)
        var ready = pollfd(fd: uv_backend_fd(loop), events: Int16(POLLIN), revents: 0)
        _ = Glibc.poll(&ready, 1, -1)
        let after = now()
        if after < deadline {
            // Woken early: libuv takes in whatever did it, also a wake-up whose flag an earlier
            // drain cleared before its write came, which would keep the descriptor readable.
            _ = wakeSent.exchange(false, ordering: .acquiring)
            uv_run(loop, UV_RUN_NOWAIT)
        } else {
            drainWakeups()  // the timerfd needs nothing: the next `arm` resets it
        }
        return after
    }

    /// Takes in the wake-ups already delivered to a loop of our own (`uv_run` without waiting),
    /// so that its descriptor is readable again only for new ones.
    func drainWakeups() {
        if !isHosted && wakeSent.exchange(false, ordering: .acquiring) { uv_run(loop, UV_RUN_NOWAIT) }
    }

    /// Makes the handles on a host's loop keep its `uv_run(UV_RUN_DEFAULT)` going or not, as a
    /// started `uv_timer_t` does while it is referenced (`uv_ref` / `uv_unref`). Only the timerfd's
    /// handle is ever referenced: the async one only carries calls from other threads. Call on
    /// the thread that runs the host's loop (libuv's handles are not thread-safe).
    func keepHostAlive(_ alive: Bool) {
        guard isHosted else { return }
        let handle = UnsafeMutableRawPointer(poll).assumingMemoryBound(to: uv_handle_t.self)
        if alive { uv_ref(handle) } else { uv_unref(handle) }
    }

    /// The descriptor of our own loop (its epoll, `uv_backend_fd`); nil on a host's loop.
    var descriptor: Int32? { isHosted ? nil : uv_backend_fd(loop) }

    func wake() {
        wakeSent.store(true, ordering: .releasing)
        uv_async_send(async)
    }

    func close() {
        let pollHandle = UnsafeMutableRawPointer(poll).assumingMemoryBound(to: uv_handle_t.self)
        let asyncHandle = UnsafeMutableRawPointer(async).assumingMemoryBound(to: uv_handle_t.self)
        if isHosted {
            // Closed on the host's loop, freed by their close callbacks in the host's uv_run. A
            // handle the host closed itself (a uv_walk) is left to it: closing twice aborts libuv.
            uv_poll_stop(poll)  // also removes the fd from the host's epoll, so it can be closed now
            CLibUV.close(timerFD)
            for handle in [pollHandle, asyncHandle] where uv_is_closing(handle) == 0 {
                handle.pointee.data = nil
                uv_close(handle) { handle in handle!.deallocate() }
            }
            return
        }
        uv_close(pollHandle, nil)
        uv_close(asyncHandle, nil)
        uv_run(loop, UV_RUN_DEFAULT)
        uv_loop_close(loop)
        CLibUV.close(timerFD)
        loop.deallocate()
        poll.deallocate()
        async.deallocate()
    }
}
