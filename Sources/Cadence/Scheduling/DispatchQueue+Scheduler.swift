import Dispatch
import FoundationEssentials
import Synchronization

/// A dispatch queue is a scheduler that needs no run loop: actions run on the queue, driven by
/// `DispatchSourceTimer`s, so a timer works on a serial queue that nobody runs a loop on.
///
/// Tolerance becomes the source's leeway. (libdispatch on Linux accepts leeway but does not use it
/// to coalesce wake-ups.) Repeating sources keep their grid and merge missed fires, as Cadence does.
extension DispatchQueue: Scheduler {
    /// CLOCK_MONOTONIC (as `DispatchTime.now()` reads it), as a wall-clock date on the same scale as
    /// Cadence's real loops.
    public var now: Date { MonotonicClock.date(MonotonicClock.now()) }

    /// Dispatch fires at the deadline when idle.
    public var minimumTolerance: Double { 0 }

    /// Runs `action` once on this queue at `date`, within `tolerance` seconds of leeway (see
    /// ``Scheduler/schedule(after:tolerance:_:)``).
    public func schedule(after date: Date, tolerance: Double, _ action: @escaping @Sendable () -> Void)
        throws(CadenceError) -> any Cancellable {
        let deadline: DispatchTime, leeway: Nanoseconds
        do {
            deadline = try Self.deadline(date)
            leeway = try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance")
        } catch {
            throw error.in("DispatchQueue.schedule(after:tolerance:_:)")
        }
        let source = DispatchSource.makeTimerSource(queue: self)
        let timer = DispatchTimer(source)
        source.schedule(deadline: deadline, leeway: .nanoseconds(Self.clamped(leeway)))
        source.setEventHandler { [timer] in
            timer.cancel()
            action()
        }
        source.resume()
        return timer
    }

    /// Runs `action` on this queue at `date` and then every `interval` seconds (see
    /// ``Scheduler/schedule(after:interval:tolerance:_:)``).
    public func schedule(after date: Date, interval: Double, tolerance: Double,
                         _ action: @escaping @Sendable () -> Void) throws(CadenceError) -> any Cancellable {
        let deadline: DispatchTime, period: Nanoseconds, leeway: Nanoseconds
        do {
            deadline = try Self.deadline(date)
            period = try nanoseconds(fromSeconds: interval, allowZero: false, argument: "interval")
            leeway = try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance")
        } catch {
            throw error.in("DispatchQueue.schedule(after:interval:tolerance:_:)")
        }
        let source = DispatchSource.makeTimerSource(queue: self)
        source.schedule(deadline: deadline, repeating: .nanoseconds(Self.clamped(period)),
                        leeway: .nanoseconds(Self.clamped(leeway)))
        source.setEventHandler(handler: action)
        source.resume()
        return DispatchTimer(source, repeats: true)
    }

    private static func deadline(_ date: Date) throws(CadenceError) -> DispatchTime {
        DispatchTime(uptimeNanoseconds: try MonotonicClock.monotonic(at: date))
    }

    private static func clamped(_ value: Nanoseconds) -> Int { Int(clamping: value) }
}

/// Cancels a dispatch timer source.
// Unchecked: dispatch sources are thread-safe (libdispatch's contract), but Linux's Dispatch does
// not mark `DispatchSourceTimer` Sendable.
final class DispatchTimer: Cancellable, Detachable, @unchecked Sendable {
    private let source: any DispatchSourceTimer
    private let cancelled = Atomic(false)
    /// A repeating source stops when this is given up, as a loop's repeating timer does
    /// (<doc:Lifetimes>); a one-shot's handler holds this until it has fired.
    private let repeats: Bool
    private let detached = Atomic(false)

    init(_ source: any DispatchSourceTimer, repeats: Bool = false) {
        self.source = source
        self.repeats = repeats
    }

    deinit {
        if repeats && !detached.load(ordering: .acquiring) { cancel() }
    }

    /// Lets a repeating source run on once this is given up.
    func detach() { detached.store(true, ordering: .releasing) }

    /// Whether this call cancelled the source: a flag exchanged atomically, since a dispatch source
    /// does not say whether a cancel was the first.
    @discardableResult
    func cancel() -> Bool {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        source.cancel()
        return true
    }

    var isCancelled: Bool { source.isCancelled }
}
