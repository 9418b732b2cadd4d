import FoundationEssentials

/// `AsyncSequence` views (`for await`), since Combine's `values` is absent on Linux.
///
/// Values are buffered without limit until the consumer takes them; ending the iteration (or
/// cancelling its task) cancels the subscription. A timer's values only arrive while something
/// runs its loop: another thread (``Loop/startThread(mode:)``) or the same task between awaits.
extension TimerPublisher {
    /// The fire dates, as an `AsyncStream`. Subscribing does not connect the publisher.
    public var values: AsyncStream<Date> { asyncValues(subscribe) }
}

extension AutoconnectTimerPublisher {
    /// The fire dates, as an `AsyncStream`; iterating is a subscriber, so it starts the timer.
    public var values: AsyncStream<Date> { asyncValues(subscribe) }
}

extension EventPublisher {
    /// The values, as an `AsyncStream` that ends when the stream finishes.
    ///
    /// - Throws: what subscribing throws (for example ``CadenceError/invalidArgument``).
    public func values() throws(CadenceError) -> AsyncStream<Output> {
        let (stream, continuation) = AsyncStream.makeStream(of: Output.self)
        let subscription = try subscribe { event in
            switch event {
            case .value(let value): continuation.yield(value)
            case .finished: continuation.finish()
            }
        }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }
}

private func asyncValues(_ subscribe: (@escaping @Sendable (TimerTick) -> Void) -> TimerSubscription) -> AsyncStream<Date> {
    let (stream, continuation) = AsyncStream.makeStream(of: Date.self)
    let subscription = subscribe { continuation.yield($0.fireDate) }
    continuation.onTermination = { _ in subscription.cancel() }
    return stream
}
