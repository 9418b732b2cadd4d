/// A grid timer written against any `Clock<Duration>`, as swift-async-algorithms'
/// `AsyncTimerSequence`: ticks at start + k·interval, each element the grid point it was due at.
/// A consumer that asks for the next tick late gets the first grid point at or after the clock's
/// reading: the points it missed are skipped, not replayed in a burst (as `AsyncTimerSequence`
/// does), and the ticks never leave the grid.
struct GridTimer<C: Clock>: AsyncSequence where C.Duration == Duration {
    typealias Element = C.Instant
    typealias Failure = Never

    let interval: Duration
    let tolerance: Duration?
    let clock: C

    func makeAsyncIterator() -> Iterator { Iterator(timer: self) }

    struct Iterator: AsyncIteratorProtocol {
        let timer: GridTimer
        var last: C.Instant?

        /// The next grid point, once the clock has reached it; nil when the task is cancelled.
        mutating func next() async -> C.Instant? {
            let now = timer.clock.now
            let start = last ?? now
            var next = start.advanced(by: timer.interval)
            if next < now {  // late: the first grid point not before now
                let late = start.duration(to: now).attoseconds, step = timer.interval.attoseconds
                next = start.advanced(by: timer.interval * Int((late + step - 1) / step))
            }
            do { try await timer.clock.sleep(until: next, tolerance: timer.tolerance) } catch { return nil }
            last = next
            return next
        }
    }
}
