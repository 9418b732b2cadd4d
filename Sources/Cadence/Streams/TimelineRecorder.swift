import Synchronization

/// Records a stream as timestamped events for tests: `"0@1000"` is the value 0 at 1000 ms on the
/// scheduler's clock (virtual milliseconds on a virtual scheduler) and `"|@3000"` the finish.
public final class TimelineRecorder<Output: Sendable>: Sendable {
    private let recorded = Mutex<[String]>([])
    private let subscription = Mutex<AnyCancellable?>(nil)

    /// Subscribes to `publisher` at once and records each event with `scheduler.now`.
    ///
    /// - Throws: what subscribing throws.
    public init(_ publisher: some EventPublisher<Output>, scheduler: some Scheduler) throws(CadenceError) {
        let subscription = try publisher.subscribe { [weak self, scheduler] event in
            let milliseconds = Int((scheduler.now.timeIntervalSince1970 * 1000).rounded())
            let text: String = switch event {
            case .value(let value): "\(value)@\(milliseconds)"
            case .finished: "|@\(milliseconds)"
            }
            self?.recorded.withLock { $0.append(text) }
        }
        self.subscription.withLock { $0 = subscription }
    }

    /// The events so far, in order.
    public var events: [String] { recorded.withLock { $0 } }

    /// Cancels the subscription; later events are not recorded.
    public func cancel() { subscription.withLock { $0 }?.cancel() }
}
