import FoundationEssentials

/// `AsyncSequence` views (`for await`), since Combine's `values` is absent on Linux.
///
/// A timer's values only arrive while something runs its loop: another thread
/// (``Loop/startThread(mode:)``) or the same task between awaits. How an iteration ends (a
/// cancelled task, ``TimerValues/first(_:)``, a `break`) is told in ``TimerValues``.
extension TimerPublisher {
    /// The fire dates, one subscriber per iteration. Iterating does not connect the publisher.
    public var values: TimerValues { TimerValues { [broadcast] in broadcast.subscribe($0) } }
}

extension AutoconnectTimerPublisher {
    /// The fire dates, one subscriber per iteration; iterating is a subscriber, so it starts the timer.
    public var values: TimerValues { TimerValues { [broadcast] in broadcast.subscribe($0) } }
}

extension EventPublisher {
    /// The values, as an `AsyncStream` that ends when the stream finishes. Values are buffered
    /// without limit until the consumer takes them; ending the iteration (or cancelling its task)
    /// cancels the subscription.
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
