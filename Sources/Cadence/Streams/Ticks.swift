import Synchronization

/// Counting ticks on any scheduler.
extension Scheduler {
    /// Emits 0, 1, 2, … every `interval` seconds, the first one interval after subscribing.
    ///
    /// Each subscriber gets its own repeating timer on this scheduler, removed from the scheduler
    /// when the subscriber cancels. Missed ticks are skipped, so the count is the number of fires,
    /// not elapsed time ÷ interval: compute durations from dates.
    ///
    /// - Parameters:
    ///   - interval: seconds, > 0 and finite (checked when subscribing).
    ///   - tolerance: seconds of allowed lateness; `nil` uses ``Scheduler/minimumTolerance``.
    public func ticks(every interval: Double, tolerance: Double? = nil) -> Ticks<Self> {
        Ticks(scheduler: self, interval: interval, tolerance: tolerance)
    }
}

/// The stream made by ``Scheduler/ticks(every:tolerance:)-(Double,_)``.
public struct Ticks<S: Scheduler>: EventPublisher {
    /// The tick count, from 0.
    public typealias Output = Int

    /// The scheduler the timers run on.
    public let scheduler: S
    /// Seconds between ticks.
    public let interval: Double
    /// Seconds of allowed lateness, or `nil` for the scheduler's minimum.
    public let tolerance: Double?

    /// Starts a timer for this subscriber.
    ///
    /// - Throws: ``CadenceError/invalidArgument`` for a bad interval or tolerance, or what the
    ///   scheduler throws.
    public func subscribe(_ receive: @escaping @Sendable (StreamEvent<Int>) -> Void) throws(CadenceError) -> AnyCancellable {
        let gate = SubscriptionGate(receive, on: scheduler)
        let counter = TickCounter()
        let start = scheduler.now.addingTimeInterval(interval)
        gate.own(try scheduler.schedule(after: start, interval: interval,
                                        tolerance: tolerance ?? scheduler.minimumTolerance) {
            gate.send(counter.next())
        })
        return gate.cancellable
    }
}

/// A counter shared between a timer's fires.
final class TickCounter: Sendable {
    private let value = Atomic(0)

    func next() -> Int { value.add(1, ordering: .relaxed).oldValue }
}
