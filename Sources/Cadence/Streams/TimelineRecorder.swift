/// Records a stream as timestamped events for tests: `"0@1000"` is the value 0 at 1000 ms on the
/// scheduler's or loop's clock (virtual milliseconds on a virtual one) and `"|@3000"` the finish.
///
/// Three sources: a publisher (``init(_:scheduler:)``), an async sequence iterated by a task on
/// a loop (``init(_:on:)``), or the code under test itself calling ``record(_:)``
/// (``init(clock:)``). The last two stamp each event with the loop's ``LoopClock``, exactly: whole
/// milliseconds as `"2@500"`, a fraction only when there is one (`"2@500.000001"` is 1 ns later),
/// so that two timelines are equal only if every event came at the same nanosecond.
public final class TimelineRecorder<Output: Sendable>: Sendable {
    /// The events so far, and whether ``cancel()`` was called (then nothing more is recorded).
    /// (The engine's pthread lock rather than `Mutex`, whose locking ThreadSanitizer does not see
    /// on Linux.)
    private let recorded = LockedState<(events: [String], cancelled: Bool)>(([], false))
    private let subscription = LockedState<AnyCancellable?>(nil)
    /// The reading of the recorder's clock, as the events show it.
    private let stamp: @Sendable () -> String

    /// Subscribes to `publisher` at once and records each event with `scheduler.now`, rounded to
    /// whole milliseconds.
    ///
    /// - Throws: what subscribing throws.
    public init(_ publisher: some EventPublisher<Output>, scheduler: some Scheduler) throws(CadenceError) {
        stamp = { [scheduler] in "\(Int((scheduler.now.timeIntervalSince1970 * 1000).rounded()))" }
        let subscription = try publisher.subscribe { [weak self] event in
            switch event {
            case .value(let value): self?.record(value)
            case .finished: self?.finish()
            }
        }
        self.subscription.withLock { $0 = subscription }
    }

    /// A recorder that code calls itself: ``record(_:)`` and ``finish()`` stamp each event
    /// with `clock`'s reading.
    ///
    /// - Parameter clock: the clock of the loop the recording code runs on.
    public init(clock: LoopClock) {
        stamp = { Self.milliseconds(clock.now.nanoseconds) }
    }

    /// Iterates `sequence` in a task on `loop`'s executor, started at once, and records each
    /// element, then the finish (`"|@…"`) or a thrown error (`"!error@…"`), with the loop clock's
    /// reading when the task received it. On a virtual loop every step of that task is one of
    /// the loop's jobs, so the timeline is the same on every run (see <doc:ClocksAndAsyncCode>):
    /// code inside `sequence` must keep its own tasks on the loop too.
    ///
    /// - Parameters:
    ///   - sequence: the sequence under test; it is iterated once.
    ///   - loop: the loop whose executor runs the iteration and whose clock stamps the events.
    public convenience init<Source: AsyncSequence & Sendable>(_ sequence: Source, on loop: Loop)
        where Source.Element == Output {
        self.init(clock: loop.clock)
        // Weak: a recorder let go cancels the iteration (its cancellable's deinit), so a
        // sequence that never ends does not keep both alive.
        let task = Task(executorPreference: loop) { [weak self] in
            do {
                for try await element in sequence { self?.record(element) }
                self?.finish()
            } catch {
                self?.append("!\(error)")
            }
        }
        subscription.withLock { $0 = AnyCancellable { task.cancel() } }
    }

    /// Records `value` at the clock's (or scheduler's) reading now. Callable from any thread.
    ///
    /// - Parameter value: the value, shown with string interpolation.
    public func record(_ value: Output) { append("\(value)") }

    /// Records the finish (`"|@…"`) at the clock's (or scheduler's) reading now. Callable from
    /// any thread. (Python's `Timeline.finish()`.)
    public func finish() { append("|") }

    /// The events so far, in order.
    public var events: [String] { recorded.withLock { $0.events } }

    /// Cancels the subscription or the iterating task; events that come after it (the finish of
    /// the cancelled iteration, a ``record(_:)``) are not recorded.
    public func cancel() {
        recorded.withLock { $0.cancelled = true }
        subscription.withLock { $0 }?.cancel()
    }

    /// Appends `text` stamped with the clock's reading now.
    private func append(_ text: String) {
        let now = stamp()
        recorded.withLock { if !$0.cancelled { $0.events.append("\(text)@\(now)") } }
    }

    /// Nanoseconds as milliseconds, exactly: `"500"`, `"500.25"`, `"500.000001"`.
    static func milliseconds(_ nanoseconds: UInt64) -> String {
        let whole = nanoseconds / 1_000_000, part = nanoseconds % 1_000_000
        guard part != 0 else { return "\(whole)" }
        var fraction = String(part)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }
}
