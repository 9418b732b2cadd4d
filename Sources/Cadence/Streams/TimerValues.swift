import FoundationEssentials
import Synchronization

/// A timer publisher's fire dates as an `AsyncSequence`: `for await date in timer.values`
/// (Combine's `values`, which Linux lacks).
///
/// Each iteration is one subscriber, made when the iteration starts (`makeAsyncIterator()`), not
/// when ``TimerPublisher/values`` is read; fire dates are buffered without limit until the
/// consumer takes them. The subscription ends, and an autoconnect publisher's timer with it:
/// - when the iterating task is cancelled, at once (a waiting `next()` returns nil);
/// - after ``first(_:)``'s last value, as that value is handed out;
/// - when the iterator is destroyed, which is how a `break` out of `for await` ends it: at once,
///   on the consumer's thread.
///
/// The last needs the compiler to destroy the iterator, which it does at the end of the loop in
/// a function or closure, but not in the top-level code of a `main.swift` that awaits anything
/// (Swift 6.3 never destroys a `for`-loop's iterator there), so a `break` at the top level of
/// `main.swift` leaves the subscription running. There, use ``first(_:)`` (which ends by
/// itself), cancel the task, or put the loop in a function.
///
/// Something must run the loop (``Loop/run(mode:for:)-(_,Double)``, ``Loop/startThread(mode:)``
/// or a host): on a loop that nothing runs no timer fires, and `for await` waits, without an
/// error, until the loop runs or the task is cancelled.
///
/// Nor does cancelling a connectable publisher's ``TimerConnection`` end an iteration: as in
/// Combine, its subscribers then get silence, no completion, and `for await` waits for ever.
/// Leave the loop (`break`), cancel the task, or iterate an autoconnect publisher
/// (``TimerPublisher/autoconnect()``), whose last subscriber leaving stops the timer.
public struct TimerValues: AsyncSequence, Sendable {
    /// The fire dates.
    public typealias Element = Date
    /// An iteration never throws; it ends (returns nil) on cancel or after ``first(_:)``.
    public typealias Failure = Never

    private let subscribe: @Sendable (@escaping @Sendable (TimerTick) -> Void) -> TimerSubscription
    /// How many values an iteration hands out before it ends; nil for no limit.
    private let limit: Int?

    init(subscribe: @escaping @Sendable (@escaping @Sendable (TimerTick) -> Void) -> TimerSubscription,
         limit: Int? = nil) {
        self.subscribe = subscribe
        self.limit = limit
    }

    /// The first `count` fire dates (the standard `prefix(_:)`, which ends only the consumer's
    /// loop, not the subscription): the subscription is cancelled as the last one is handed out,
    /// whether or not the iterator is ever destroyed. A negative `count` counts as 0 (an
    /// iteration that ends at once and subscribes to nothing).
    public func first(_ count: Int) -> TimerValues {
        TimerValues(subscribe: subscribe, limit: Swift.min(limit ?? .max, Swift.max(0, count)))
    }

    /// Starts one iteration: subscribes to the publisher.
    public func makeAsyncIterator() -> Iterator {
        Iterator(buffer: ValuesBuffer(limit: limit ?? .max, subscribe: subscribe))
    }

    /// An iteration of ``TimerValues``: one subscriber of the publisher.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let buffer: ValuesBuffer
        /// Ends the iteration when the last copy of the iterator goes: held by the iterator alone,
        /// so that this happens on the consumer's side, when its loop ends, and never later on
        /// the loop's thread (which holds the buffer while it delivers).
        private let owner: Owner

        init(buffer: ValuesBuffer) {
            self.buffer = buffer
            owner = Owner(buffer)
        }

        private final class Owner: Sendable {
            let buffer: ValuesBuffer
            init(_ buffer: ValuesBuffer) { self.buffer = buffer }
            deinit { buffer.end() }
        }

        /// The next fire date, waiting for it if none is buffered; nil once the iteration ended.
        public mutating func next() async -> Date? { await buffer.next() }
    }
}

/// The subscription of one iteration and the fire dates it has not handed out yet.
final class ValuesBuffer: Sendable {
    private struct State {
        var dates: [Date] = []
        var waiter: CheckedContinuation<Date?, Never>?
        var remaining: Int
        var subscription: TimerSubscription?
        var ended = false

        /// Ends the iteration; returns what the caller cancels and resumes outside the lock (a
        /// cancel from another thread waits for a delivery, which may be waiting for the lock).
        mutating func end() -> (TimerSubscription?, CheckedContinuation<Date?, Never>?) {
            ended = true
            dates = []
            defer { subscription = nil; waiter = nil }
            return (subscription, waiter)
        }

        /// Hands out `date`, ending the iteration if it was the last one allowed.
        mutating func take(_ date: Date) -> TimerSubscription? {
            remaining -= 1
            return remaining == 0 ? end().0 : nil
        }
    }

    private let state: Mutex<State>

    /// Whether the iteration has ended.
    var isEnded: Bool { state.withLock { $0.ended } }

    init(limit: Int, subscribe: (@escaping @Sendable (TimerTick) -> Void) -> TimerSubscription) {
        state = Mutex(State(remaining: limit, ended: limit == 0))
        guard limit > 0 else { return }
        // The subscription holds the buffer until the iteration ends, which drops the subscription.
        let subscription = subscribe { [self] tick in receive(tick.fireDate) }
        state.withLock { $0.subscription = subscription }
    }

    /// Ends the iteration: cancels the subscription and lets a waiting `next()` return nil.
    func end() {
        let (subscription, waiter) = state.withLock { $0.end() }
        subscription?.cancel()
        waiter?.resume(returning: nil)
    }

    private func receive(_ date: Date) {
        let (waiter, last) = state.withLock { state -> (CheckedContinuation<Date?, Never>?, TimerSubscription?) in
            guard !state.ended else { return (nil, nil) }
            guard let waiter = state.waiter else {
                state.dates.append(date)
                return (nil, nil)
            }
            state.waiter = nil
            return (waiter, state.take(date))
        }
        last?.cancel()  // on the loop's thread, from the subscription's own callback: returns at once
        waiter?.resume(returning: date)
    }

    func next() async -> Date? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Date?, Never>) in
                let (ready, last) = state.withLock { state -> (Date??, TimerSubscription?) in
                    if state.ended { return (.some(nil), nil) }
                    guard !state.dates.isEmpty else {
                        state.waiter = continuation
                        return (nil, nil)
                    }
                    let date = state.dates.removeFirst()
                    return (date, state.take(date))
                }
                last?.cancel()
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            end()
        }
    }
}
