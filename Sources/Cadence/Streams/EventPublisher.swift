/// One event of a stream: a value, or the end.
public enum StreamEvent<Output: Sendable>: Sendable {
    /// A value.
    case value(Output)
    /// The stream finished; nothing follows.
    case finished
}

/// A stream of values that may finish, delivered to each subscriber on its scheduler's thread:
/// the shape of ``Scheduler/ticks(every:tolerance:)-(Double,_)`` and ``Scheduler/countdown(to:tick:)-(_,Double)``.
///
/// Cadence's stand-in for a Combine `Publisher` with `Failure == Never` (Combine is absent on
/// Linux). Each subscription is independent, like Combine's `Deferred`.
///
/// The closures given to it are `@Sendable`, as every Cadence callback is, because the scheduler
/// may be a dispatch queue or a loop on a thread of its own that runs them there: collect values
/// into something safe to share (a `Mutex`, an actor), not a captured `var`.
public protocol EventPublisher<Output>: Sendable {
    /// The type of the values.
    associatedtype Output: Sendable

    /// Starts a subscription that sends every event to `receive` until the returned cancellable is
    /// cancelled or deinitialized. No event is sent after cancel returns, nor after `.finished`.
    ///
    /// - Throws: what the underlying scheduler throws (for example ``CadenceError/badHandle`` for a
    ///   closed loop); then `receive` is never called.
    func subscribe(_ receive: @escaping @Sendable (StreamEvent<Output>) -> Void) throws(CadenceError) -> AnyCancellable
}

extension EventPublisher {
    /// Subscribes with separate closures for values and for the finish, as Combine's
    /// `sink(receiveCompletion:receiveValue:)`.
    public func sink(receiveCompletion: @escaping @Sendable () -> Void = {},
                     receiveValue: @escaping @Sendable (Output) -> Void) throws(CadenceError) -> AnyCancellable {
        try subscribe { event in
            switch event {
            case .value(let value): receiveValue(value)
            case .finished: receiveCompletion()
            }
        }
    }
}
