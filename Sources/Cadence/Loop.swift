import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// The library's version, "major.minor.patch", the same as `cadence_version_string()` in C.
public let cadenceVersion = "0.4.0"

/// An event loop that fires timers: Cadence's run loop.
///
/// A loop does nothing until someone runs it: ``run(mode:for:)-(_,Double)`` processes timers in one
/// ``RunLoopMode`` for a span of the loop's clock, sleeping between fires, then returns. A loop
/// that nobody runs fires nothing, as a `RunLoop` on a thread that never runs it.
///
/// The real loop is backed by libuv: one `uv_loop_t` that watches one timerfd for the next
/// wake-up (a nanosecond deadline) and one `uv_async_t` for wake-ups from other threads. A loop
/// can also live inside a loop the program already runs: a descriptor, a timeout and one pass at a
/// time (``fileDescriptor()``, ``timeout()``, ``runPass(mode:)``), or the program's own
/// `uv_loop_t` (``init(uvLoop:mode:)``).
///
/// Threads: a loop's timers run on the thread that runs it. Arming, cancelling, ``stop()`` and
/// the mode calls may be made from any thread; a call from another thread wakes a sleeping loop so
/// that it takes effect before the next pass.
// Unchecked: every `var` below is guarded by `lock`, a ``Lock`` rather than a `Mutex` because the
// loop also waits on its condition and takes it on every arm, cancel and fire (the hot path).
public final class Loop: @unchecked Sendable {
    let timeSource: any TimeSource
    let lock = Lock()
    // Guarded by `lock`; internal rather than private for the extensions in Loop+Timers.swift,
    // Loop+Thread.swift and Loop+Host.swift, and used nowhere else:
    @exclusivity(unchecked) var queues = TimerQueues()
    var isClosedFlag = false
    var isRunningFlag = false
    var stopRequested = false
    var runningThread = pthread_t()
    /// Whether the run in progress is a run until idle, and the index of its mode (Loop+Idle.swift).
    var runningUntilIdle = false
    var runningModeIndex = 0
    /// The mode of a host's run until idle, from its latest ``isAlive(mode:)`` that answered
    /// true: the loop wakes the host when a cancel or an unref leaves nothing referenced there.
    var hostIdleModeIndex: Int?
    var wakeUpCount: UInt64 = 0
    /// The timer whose callback is running, so that a cancel from another thread can wait for it,
    /// and how many threads wait.
    var firing: TimerID?
    var callbackWaiters = 0
    /// Counts callbacks started, so that a waiter waits for the callback running when it came, not
    /// for later ones of the same timer (which a busy repeating timer would start before the
    /// waiter's thread got to run again).
    var callbacksStarted: UInt64 = 0
    /// The host's functions for the timers armed from now on, as words the handlers it arms read
    /// (Loop+Functions.swift; in C, the fire function of ``scheduleDefault(after:_:)`` and the
    /// release function): (0, 0) when not set.
    var hostFunctions: LoopFunctionWords = (0, 0)
    /// The batch of one-shot fires handed to a binding in one call, if one is set (FireBatch.swift).
    @exclusivity(unchecked) var fireBatch: FireBatch?  // guarded by `lock`, as `queues`
    /// The registry's bits of the C handles of timers on this loop (Loop+Functions.swift).
    var handleSource: UInt64 = 0
    /// A C callback's release that a disarm left to the running callback of the same timer (a
    /// timer cancelling itself): run by the pass once that callback has returned.
    var deferredRelease = TimerAction.idle
    var hasDeferredRelease = false
    /// The thread started by `startThread`, and whether it has been asked to stop.
    var ownThread: LoopThread?
    var ownThreadStopping = false
    /// The mode a host drives the loop in (through its descriptor and passes, or from a host's
    /// `uv_loop_t`), nil until one does, the wake-up the clock is armed for meanwhile and the
    /// deadline that wake-up serves (the earliest end of a tolerance window; `.max` for none).
    var hostModeIndex: Int?
    var armedWake: Nanoseconds = .max
    var armedDeadline: Nanoseconds = .max
    /// Whether the run in progress is one pass for a host (``runPass(mode:)`` or a host's
    /// `uv_run`), which plans the host's wake-up as it ends: a timer armed meanwhile from another
    /// thread needs no wake-up of its own.
    var runningHostPass = false
    /// Whether the loop lives on a host's `uv_loop_t`, whose `uv_run` drives it.
    let isHosted: Bool
    /// On a host's `uv_loop_t`: whether Cadence's handles keep the host's `uv_run` going (a
    /// referenced timer is armed), and the thread that runs it, the only one that may change that
    /// (Loop+Host.swift).
    var keepsHostAlive = false
    var hostThread = pthread_self()
    /// Whether the loop's clock is virtual (read on every job queued, so stored).
    let hasVirtualClock: Bool
    /// Whether the thread marked running is running an idle virtual loop's jobs rather than a run,
    /// and whether a thread of the pool has been asked to (Loop+Settle.swift).
    var settlingJobs = false
    var idleJobsQueued = false
    /// Where an idle virtual loop's jobs are run (Loop+Settle.swift): a serial queue of its own,
    /// which gets a thread even while the system's pool is busy (on Linux the pool is also Swift
    /// concurrency's, which blocking code can fill); nil on a real loop.
    let idleJobsQueue: DispatchQueue?
    /// The jobs of tasks and actors waiting to run on the loop (Loop+Executor.swift).
    let jobs = JobQueue()
    /// The jobs queued with a deadline from a task, by the task's address, and their timers
    /// (Loop+DelayedJobs.swift).
    var sleepers: [UInt: (job: DelayedJob, timer: TimerID)] = [:]
    /// The tasks whose sleeps ended in a virtual run and that have not come back yet.
    var resuming: Set<UInt> = []
    /// On a virtual loop, when the job running now started (Loop+RealDeadlines.swift). A lock of
    /// its own, held for a copy: a job may start where the loop's lock is held.
    let jobStart = Mutex<JobStart?>(nil)

    /// Creates a loop on libuv's monotonic clock.
    ///
    /// - Throws: ``CadenceError/ioError`` if libuv cannot create its loop.
    public convenience init() throws(CadenceError) {
        do { self.init(timeSource: try UVBackend()) } catch { throw error.in("Loop()") }
    }

    init(timeSource: any TimeSource) {
        self.timeSource = timeSource
        isHosted = (timeSource as? UVBackend)?.isHosted ?? false
        hasVirtualClock = timeSource is VirtualClock
        idleJobsQueue = hasVirtualClock ? DispatchQueue(label: "cadence.virtual-loop.jobs") : nil
        jobs.loop = self
    }

    deinit {
        // Nothing can be running: a run and a loop thread both hold the loop.
        if let actions = closeLocked() {
            timeSource.close()
            Self.release(actions)
        }
    }

    // MARK: Running

    /// Runs the loop in `mode` for `seconds` of the loop's clock, firing every timer that is due in
    /// that mode, then returns (early if ``stop()`` is called).
    ///
    /// Within one pass, timers fire in fire-date order, ties in the order they were scheduled; a
    /// timer armed during a pass never fires in that pass. A timer never fires before its fire
    /// date, measured in nanoseconds on a fresh clock read.
    ///
    /// - Parameters:
    ///   - mode: a registered mode other than ``RunLoopMode/common`` (a pseudo-mode, not run).
    ///   - seconds: how long to run, ≥ 0; 0 fires what is due now and returns; `.infinity` runs
    ///     until ``stop()`` (as ``run(mode:)``).
    /// - Throws: ``CadenceError/invalidArgument`` for NaN or negative `seconds`, for `common`, or,
    ///   on a virtual loop, for `seconds` that would take the clock to its end (see
    ///   ``jumpClock(by:)-(Double)``; `.infinity` always would); ``CadenceError/unknownMode`` for an
    ///   unregistered mode; ``CadenceError/busy`` if the loop is already running (for example
    ///   when called from one of its own callbacks); ``CadenceError/notSupported`` for a loop on a
    ///   host's `uv_loop_t` (see ``init(uvLoop:mode:)``); ``CadenceError/badHandle`` after
    ///   ``close()``.
    public func run(mode: RunLoopMode = .default, for seconds: Double) throws(CadenceError) {
        do throws(CadenceError) {
            // Infinity is a run until stopped, so a bad value's message says it is allowed.
            guard seconds >= 0 else { throw .badRunSeconds(seconds) }
            let duration = seconds == .infinity
                ? Nanoseconds.max : try nanoseconds(fromSeconds: seconds, allowZero: true, argument: "seconds")
            // A finite span saturated to the clock's end is not a run until stopped: say what was given.
            if duration == .max, seconds != .infinity, timeSource is VirtualClock { throw .beyondClockEnd(seconds) }
            _ = try run(mode: mode, for: duration, onOwnThread: false)
        } catch { throw error.in("Loop.run(mode:for:)") }
    }

    /// Runs the loop in `mode` until ``stop()`` is called, from one of its callbacks or from
    /// another thread: `run(mode:for:)` with an infinite duration (`CFRunLoopRun`).
    ///
    /// - Throws: as ``run(mode:for:)-(_,Double)``; ``CadenceError/invalidArgument`` on a virtual loop, whose
    ///   clock would run to its end.
    public func run(mode: RunLoopMode = .default) throws(CadenceError) {
        do throws(CadenceError) {
            // This call has no `seconds` to name, so it says why a virtual loop cannot run forever.
            guard !isVirtual else {
                throw .invalidArgument.with("loop must be a real loop to run until stopped, got a virtual loop "
                                            + "(its clock would run to its end)")
            }
            _ = try run(mode: mode, for: .max, onOwnThread: false)
        } catch { throw error.in("Loop.run(mode:)") }
    }

    /// One run, until stopped, by the loop's own thread; returns false once the thread has been
    /// asked to stop.
    func runOnOwnThread(mode: RunLoopMode) throws(CadenceError) -> Bool {
        try run(mode: mode, for: .max, onOwnThread: true)
    }

    /// The run behind ``run(mode:for:)-(_,Double)``, ``run(mode:)`` and ``runUntilIdle(mode:)``: for
    /// `duration` of the loop's clock (`.max`: until ``stop()``), or, when `duration` is nil,
    /// until no referenced timer can fire in `mode` (see
    /// ``TimerQueues/hasReferencedTimers(runningIn:)``).
    func run(mode: RunLoopMode, for duration: Nanoseconds?, onOwnThread: Bool) throws(CadenceError) -> Bool {
        let virtualClock = timeSource as? VirtualClock
        if let virtualClock, let duration, !virtualClock.canAdvance(by: duration) {
            throw .beyondClockEnd(duration == .max ? .infinity : Double(duration) / 1e9)
        }
        guard !isHosted else { throw .hostDrivesLoop("run") }
        let untilIdle = duration == nil
        guard let modeIndex = try beginRun(mode: mode, onOwnThread: onOwnThread, untilIdle: untilIdle) else {
            return false
        }
        defer { endRun() }
        timeSource.drainWakeups()  // one made before this run (a stop of the idle loop) is seen now
        let end = duration.map { timeSource.now().saturatingAdd($0) } ?? .max
        var wokeForTimer = false
        var woke: Nanoseconds?  // the clock read when the last sleep ended: the next pass's
        while true {
            let now = woke ?? timeSource.now()
            let fired = fireLonePass(modeIndex: modeIndex, now: now) ?? firePass(modeIndex: modeIndex, now: now)
            if fired > 0 && virtualClock != nil { lock.withLock { waitForResumesLocked() } }
            // The tasks that the pass resumed (Loop+Executor.swift) run before the clock moves on;
            // a sleep they begin that is due already ends in this run, even at its end.
            let (jobsRan, jobsWaiting) = runJobs()
            // Once per pass, so the lock is taken directly: through `withLock`, an optional tuple
            // result had its metadata built at run time and `queues` was copied.
            lock.lock()
            // A wake-up counts when it was at a timer's wake time and fired something: not one
            // made early by another thread, nor one for a timer cancelled meanwhile.
            if fired > 0 && wokeForTimer { wakeUpCount &+= 1 }
            let next = queues.nextWake(runningIn: modeIndex) ?? .max
            let goOn = !stopRequested && (jobsWaiting || jobsRan && next <= now
                || now < end && (!untilIdle || queues.hasReferencedTimers(runningIn: modeIndex)))
            let wake = goOn && !jobsWaiting ? next : 0
            lock.unlock()
            guard goOn else { return true }
            let until = min(wake, end)
            // A run until idle whose timers can never fire (their fire dates saturated): a real
            // loop sleeps until stop(); a virtual clock cannot get there, so the run ends.
            if until == .max && virtualClock != nil { return true }
            woke = timeSource.sleep(until: until)
            wokeForTimer = woke.map { wake <= end && $0 >= until } ?? false
        }
    }

    /// Marks the loop running on this thread, after the checks every way of running makes, and
    /// returns the index of the mode to run in (`nil`: a host's pass, in its mode); nil when the
    /// loop's own thread has been asked to stop.
    func beginRun(mode: RunLoopMode?, onOwnThread: Bool = false, untilIdle: Bool = false,
                  hostPass: Bool = false) throws(CadenceError) -> Int? {
        runIdleJobs()  // a virtual loop's jobs that came before the run ran then, before it fires anything
        return try lock.withLock { () throws(CadenceError) -> Int? in
            waitForIdleJobsLocked()
            guard !isClosedFlag else { throw .loopClosed() }
            guard !isRunningFlag else { throw .alreadyRunning("run") }
            guard onOwnThread || ownThread == nil else { throw .hasOwnThread("run") }
            var index = hostModeIndex ?? TimerQueues.defaultIndex
            if let mode {
                guard mode != .common else { throw .commonModeNotAllowed("never run itself") }
                index = try queues.index(of: mode)
            }
            if onOwnThread && ownThreadStopping { return nil }
            isRunningFlag = true
            stopRequested = false
            runningThread = pthread_self()
            runningUntilIdle = untilIdle
            runningHostPass = hostPass
            runningModeIndex = index
            return index
        }
    }

    /// Ends a run; a loop that a host drives gets its wake-up armed again, under the same lock,
    /// so that a timer armed from another thread is either seen by this plan or plans itself.
    private func endRun() {
        lock.withLock {
            planHostWakeLocked(force: true)
            isRunningFlag = false
            runningUntilIdle = false
            runIdleJobsLaterLocked()  // one that came after the run's last look
        }
    }

    /// Makes a running ``run(mode:for:)-(_,Double)`` return after its current pass. Callable from
    /// any thread and from callbacks (as `CFRunLoopStop`). On a loop that is not running it stops
    /// nothing; once its ``fileDescriptor()`` was asked for or a ``runPass(mode:)`` made, it makes
    /// the descriptor readable until the next pass or run, so that a program's loop that waits on
    /// it wakes and can act on the stop it asked for. After ``close()`` it does nothing.
    public func stop() {
        lock.withLock {
            guard isRunningFlag else {
                if hostModeIndex != nil && !isHosted && !isClosedFlag { timeSource.wake() }
                return
            }
            stopRequested = true
            wakeIfRemote()
        }
    }

    /// Whether ``run(mode:for:)-(_,Double)`` is in progress (not the jobs that an idle virtual loop
    /// runs at once: see ``settle()``).
    public var isRunning: Bool { lock.withLock { isRunningFlag && !settlingJobs } }

    /// How many times the loop has woken from sleep at a timer's wake-up time and fired timers,
    /// since it was created (the end of a run, wake-ups from other threads, and a wake-up whose
    /// timers were all cancelled meanwhile are not counted).
    /// (`cadence_loop_wakeups` in C, `Loop.wakeups` in Python.)
    public var wakeups: UInt64 { lock.withLock { wakeUpCount } }

    /// The former name of ``wakeups``.
    @available(*, deprecated, renamed: "wakeups")
    public var wakeUps: UInt64 { wakeups }

    /// When the loop would next wake to fire timers while running in the default mode, if ever.
    func nextWake() -> Date? {
        lock.withLock { queues.nextWake(runningIn: TimerQueues.defaultIndex) }.map { date(monotonic: $0) }
    }

    /// How many timers are armed on this loop, in all modes.
    public var armedTimerCount: Int {
        lock.withLock {
            settleBatchLocked()  // FireBatch.swift
            return queues.count
        }
    }

    /// ``now`` in seconds since the Unix epoch, without `Date`'s rounding: for the C API.
    package var nowSeconds: Double { MonotonicClock.seconds(timeSource.now(), offset: timeSource.epochOffset) }

    /// A fresh read of the loop's clock, on the same scale as fire dates: wall-clock time for a
    /// real loop (derived from the monotonic clock), virtual seconds since 1970 for a virtual one.
    public var now: Date { date(monotonic: timeSource.now()) }

    // MARK: Modes

    /// Registers a custom mode, so that timers can be added to it and the loop run in it.
    ///
    /// Registering a mode twice is harmless.
    /// - Throws: ``CadenceError/invalidArgument`` for a malformed name or for `common`;
    ///   ``CadenceError/outOfMemory`` for one more than 65,536 modes (`default` and `common`
    ///   included); ``CadenceError/badHandle`` after ``close()``.
    public func addMode(_ mode: RunLoopMode) throws(CadenceError) {
        do { try register(mode, common: false) } catch { throw error.in("Loop.addMode(_:)") }
    }

    /// Registers `mode` (if needed) as a common mode: timers added to ``RunLoopMode/common``,
    /// existing ones included, then fire while the loop runs in it (as `CFRunLoopAddCommonMode`).
    ///
    /// - Throws: as ``addMode(_:)``.
    public func addCommonMode(_ mode: RunLoopMode) throws(CadenceError) {
        do { try register(mode, common: true) } catch { throw error.in("Loop.addCommonMode(_:)") }
    }

    private func register(_ mode: RunLoopMode, common: Bool) throws(CadenceError) {
        try lock.withLock { () throws(CadenceError) in
            guard !isClosedFlag else { throw .loopClosed() }
            try queues.register(mode, common: common)
            replanWakeLocked()  // a sleeping loop may now have more timers to fire
            updateHostLivenessLocked()
        }
    }

    // MARK: Lifetime

    /// Cancels every timer still on the loop and releases its libuv resources (its
    /// ``fileDescriptor()`` is closed: stop watching it first; a loop on a host's `uv_loop_t`
    /// closes its two handles there, on the thread that runs it: see ``init(uvLoop:mode:)``).
    /// Further calls on the loop throw ``CadenceError/badHandle``; closing twice does nothing
    /// (C's second `cadence_loop_close` returns `CADENCE_EBADF`, as for any stale handle).
    ///
    /// - Throws: ``CadenceError/busy`` while the loop is running or has a thread of its own
    ///   (libuv's `uv_loop_close` rule).
    public func close() throws(CadenceError) {
        runIdleJobs()  // a virtual loop's jobs that came before the close ran then, on the open loop
        // Checked and closed under one lock, so that no run can start in between.
        var sleeping: [UInt: (job: DelayedJob, timer: TimerID)] = [:]
        var batch: FireBatch?  // let go after the lock too: its function may hold the loop
        let actions = try lock.withLock { () throws(CadenceError) -> [TimerAction]? in
            waitForIdleJobsLocked()
            // The thread first: a loop with one is running, and stopping the thread is the remedy.
            guard ownThread == nil else { throw CadenceError.hasOwnThread("be closed").in("Loop.close()") }
            guard !isRunningFlag else { throw CadenceError.alreadyRunning("be closed").in("Loop.close()") }
            swap(&sleeping, &sleepers)  // released after the lock, with the timers' actions
            swap(&batch, &fireBatch)
            return closeLocked()
        }
        // The timers' actions are released here, after the lock (see `disarm`).
        if let actions {
            timeSource.close()
            Self.release(actions)
            runJobsAfterClose()
        }
    }

    /// Releases the actions of the timers a close ended, with no lock held: a C callback's
    /// release function is called with its userdata (see ``TimerFunction``), on this thread.
    private static func release(_ actions: [TimerAction]) {
        for action in actions where action.hasRelease { action.runRelease() }
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool { lock.withLock { isClosedFlag } }

    /// Marks the loop closed and cancels its timers, returning their actions for the caller to
    /// release after the lock; nil if it was closed already.
    private func closeLocked() -> [TimerAction]? {
        guard !isClosedFlag else { return nil }
        isClosedFlag = true
        return queues.removeAll()
    }

    /// ``firePass(modeIndex:now:collectingInto:)`` with nothing to collect into.
    @discardableResult
    @inline(__always)
    func firePass(modeIndex: Int, now: Nanoseconds) -> Int {
        firePass(modeIndex: modeIndex, now: now, collectingInto: nil).fired
    }

    /// Fires every timer due at `now` in `modeIndex`, one lock round trip per timer (ending one
    /// callback and starting the next share it); the pass's last batch goes to `collector` if
    /// it takes it (``endPassBatchLocked(collectingInto:)``). What a callback arms waits for a
    /// later pass (libuv issue 4245). Returns the timers fired and the records collected.
    @inline(never)  // a named frame in profiles; called once per pass
    func firePass(modeIndex: Int, now: Nanoseconds, collectingInto collector: Collector?) -> (fired: Int, collected: Int) {
        var fired = 0
        let offset = timeSource.epochOffset
        // Not `withLock`: returning an action through its generic result would allocate.
        lock.lock()
        var pass = queues.beginPass(runningIn: modeIndex, now: now)
        let source = handleSource
        var due = TimerQueues.Fire()
        while true {
            endCallbackLocked()
            pass.batchKind = batchKind  // a callback may have set or cleared the batch
            pass.batchWaits = hasBatchToDeliverLocked
            guard queues.fireNext(in: pass, now: now, into: &due) else { break }
            fired += 1
            if due.isKept {  // under the lock: the batch is handed over in one call
                addToBatchLocked(due, seconds: MonotonicClock.seconds(due.fireDate, offset: offset), source: source)
                continue
            }
            // What comes before this fire, handed over with the lock released: the timer, taken
            // while the batch waited, was left as it was (held), and is taken now, unless a call
            // of the batch cancelled it (its cancel stopped it, and released what its action
            // captured) or reset it (re-armed during the pass).
            if due.isHeld {
                deliverBatchLocked()
                guard queues.takeHeld(&due, now: now) else {
                    fired -= 1
                    continue
                }
            }
            callLocked(&due, offset: offset, source: source)
        }
        let collected = endPassBatchLocked(collectingInto: collector)  // FireBatch.swift
        queues.endPass()
        lock.unlock()
        return (fired, collected)
    }

    /// Calls the timer taken into `due`, with the lock released meanwhile, as the running
    /// callback (``firing``); the caller marks its return (``endCallbackLocked()``).
    @inline(__always)
    private func callLocked(_ due: inout TimerQueues.Fire, offset: Int64, source: UInt64) {
        firing = due.id
        callbacksStarted &+= 1
        lock.unlock()
        let seconds = MonotonicClock.seconds(due.fireDate, offset: offset)
        due.action.run(TimerTick(fireDate: Date(timeIntervalSince1970: seconds), seconds: seconds,
                                 skipped: Int(clamping: due.skipped)), id: due.id, source: source, final: due.isFinal)
        // A fired one-shot's action is released here, outside the lock: what it captured may
        // call into the loop when freed.
        due.action = .idle
        lock.lock()
        if hasDeferredRelease { runDeferredReleaseLocked() }
    }

    /// The pass of the common case, whole (``TimerQueues/fireLone(runningIn:now:into:)``: every
    /// timer that can fire in the mode in one heap of timers without tolerance, at most one due,
    /// no batch): the timers fired, or nil when the pass is not that case. It touches the
    /// timer's slot, its heap's top and the loop's state: an idle loop's wake-up is this pass
    /// (Benchmarks/profile.py's table, one wake-up of a repeating timer: 2,012 instructions on
    /// 227 cache lines through ``firePass(modeIndex:now:)`` and the general wake-up rule, 1,153
    /// on 160 through this and its rule).
    @inline(never)  // a named frame in profiles
    func fireLonePass(modeIndex: Int, now: Nanoseconds) -> Int? {
        lock.lock()
        var due = TimerQueues.Fire()
        guard fireBatch == nil, let found = queues.fireLone(runningIn: modeIndex, now: now, into: &due) else {
            lock.unlock()
            return nil
        }
        if found {
            callLocked(&due, offset: timeSource.epochOffset, source: handleSource)
            endCallbackLocked()
        }
        queues.endLonePass()
        lock.unlock()
        return found ? 1 : 0
    }

    /// Runs the release that a disarm during the callback just returned left to it, with the lock
    /// released meanwhile (the release function may call into the loop).
    private func runDeferredReleaseLocked() {
        var action = TimerAction.idle
        swap(&action, &deferredRelease)
        hasDeferredRelease = false
        lock.unlock()
        action.runRelease()
        lock.lock()
    }

    /// Marks the running callback as returned, waking cancels that wait for it.
    private func endCallbackLocked() {
        guard firing != nil else { return }
        firing = nil
        if callbackWaiters > 0 { lock.signalAll() }
    }

    /// Arms the clock of a loop that a host drives for its next wake-up in the host's mode, if
    /// that moved (or always, with `force`). Call with the lock held, outside a run.
    func planHostWakeLocked(force: Bool = false) {
        guard let hostModeIndex else { return }
        let next = queues.nextWakeAndDeadline(runningIn: hostModeIndex)
        armedDeadline = next?.deadline ?? .max
        let wake = next?.wake ?? .max
        guard force || wake != armedWake else { return }
        armedWake = wake
        timeSource.arm(at: wake)
    }

    /// Plans a host's wake-up after arming one timer, due at `fireDate` with `tolerance`, that can
    /// fire in the host's mode and is due by ``armedDeadline`` (a later one changes nothing). The
    /// deadline can only come earlier, to the new window's end; while the armed wake-up still
    /// meets it, the wake-up moves to the new fire date if that is later (two windows that
    /// overlap share one wake-up at the later fire date), else the wake-up rule runs again.
    /// O(1) for timers armed inside the planned window. Call with the lock held, outside a run.
    @inline(never)
    func planHostWakeLocked(afterArming fireDate: Nanoseconds, tolerance: Nanoseconds) {
        let deadline = min(armedDeadline, fireDate.saturatingAdd(tolerance))
        guard armedWake != .max, armedWake <= deadline else { return planHostWakeLocked() }
        armedDeadline = deadline
        guard fireDate > armedWake else { return }
        armedWake = fireDate
        timeSource.arm(at: fireDate)
    }

    /// Wakes the loop if it is sleeping on another thread. Call with the lock held.
    func wakeIfRemote() {
        if isRunningFlag && pthread_equal(runningThread, pthread_self()) == 0 { timeSource.wake() }
    }

    /// Takes in a timer just armed at `fireDate` in mode `modeIndex`: a run sleeping on another
    /// thread is woken to plan again; a host's clock is planned now if the timer can change its
    /// wake-up (a host's pass plans it as the pass ends). Call with the lock held.
    @inline(__always)  // on every start's path
    func planWakeLocked(forTimerAt fireDate: Nanoseconds, tolerance: Nanoseconds, modeIndex: Int) {
        if isRunningFlag {
            if !runningHostPass { wakeIfRemote() }
        } else if let hostModeIndex, fireDate <= armedDeadline,
                  queues.canFire(modeIndex, runningIn: hostModeIndex) {
            planHostWakeLocked(afterArming: fireDate, tolerance: tolerance)
        }
    }

    /// Takes in any other change of what is due (a reset, a mode made common): a run sleeping on
    /// another thread is woken to plan again; a host's clock is planned again now (a host's pass
    /// plans it as the pass ends). Call with the lock held.
    func replanWakeLocked() {
        if isRunningFlag {
            if !runningHostPass { wakeIfRemote() }
        } else {
            planHostWakeLocked()
        }
    }

    /// The monotonic reading at which the loop's clock shows `date`.
    func monotonic(at date: Date) throws(CadenceError) -> Nanoseconds {
        try MonotonicClock.monotonic(at: date, offset: timeSource.epochOffset)
    }

    func date(monotonic: Nanoseconds) -> Date {
        MonotonicClock.date(monotonic, offset: timeSource.epochOffset)
    }
}
