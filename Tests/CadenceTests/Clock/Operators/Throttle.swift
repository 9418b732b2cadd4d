/// A throttle written against any `Clock<Duration>`, as an app or library writes one: at most one
/// value per window of `interval`. A value that comes while no window is open is emitted at once
/// and opens a window; the values that come within it are reduced to one (the latest, or the
/// first with `latest: false`), emitted when the window ends, which opens the next window; a
/// window in which nothing came closes, and the next value is emitted at once again. Windows stay
/// on the grid of the one that opened them. When upstream finishes, a value kept for the open
/// window is still emitted at its end, then the sequence finishes.
///
/// (swift-async-algorithms' `_throttle` is pulled by its consumer and needs no task; this one
/// emits at the ends of windows, as Combine's `throttle` does, so it needs a timer: a task on
/// `executor`, which `Task {}` would not inherit; see ``Debounce``.)
struct Throttle<Base: AsyncSequence & Sendable, C: Clock>: AsyncSequence, Sendable
    where Base.Element: Sendable, Base.Failure == Never, C.Duration == Duration {
    typealias Element = Base.Element
    typealias Failure = Never

    let base: Base
    let interval: Duration
    let latest: Bool
    let clock: C
    let executor: (any TaskExecutor)?

    /// The value kept for the open window, if any; nil `end` when no window is open.
    struct Window: Sendable {
        var end: C.Instant?
        var kept: Element?
        /// Upstream finished: the window's timer stops once it has emitted what was kept.
        var finished = false
    }

    func makeAsyncIterator() -> AsyncStream<Element>.Iterator {
        let (output, continuation) = AsyncStream.makeStream(of: Element.self)
        let (base, interval, latest, clock, executor) = (base, interval, latest, clock, executor)
        let window = Locked(Window())
        /// Waits out the windows from `end` on, emitting what each kept, until one keeps nothing
        /// or upstream has finished.
        @Sendable func closeWindows(from end: C.Instant) async {
            var end = end
            while true {
                do { try await clock.sleep(until: end, tolerance: nil) } catch { return }
                let (kept, last): (Element?, Bool) = window.withLock { window in
                    defer { window.kept = nil }
                    window.end = window.kept == nil || window.finished ? nil : end.advanced(by: interval)
                    return (window.kept, window.finished)
                }
                if let kept { continuation.yield(kept) }
                guard kept != nil, !last else { return }
                end = end.advanced(by: interval)
            }
        }
        let reader = Task(executorPreference: executor) {
            var timer: Task<Void, Never>?
            for await value in base {
                let opened: C.Instant? = window.withLock { window in
                    if window.end != nil {
                        if latest || window.kept == nil { window.kept = value }
                        return nil
                    }
                    window.end = clock.now.advanced(by: interval)
                    return window.end
                }
                guard let opened else { continue }
                continuation.yield(value)
                timer = Task(executorPreference: executor) { await closeWindows(from: opened) }
            }
            window.withLock { $0.finished = true }
            if Task.isCancelled { timer?.cancel() }  // the consumer went away
            await timer?.value
            continuation.finish()
        }
        continuation.onTermination = { _ in reader.cancel() }
        return output.makeAsyncIterator()
    }
}

extension AsyncSequence where Self: Sendable, Element: Sendable, Failure == Never {
    /// This sequence throttled: see ``Throttle``.
    func throttle<C: Clock>(for interval: Duration, clock: C, latest: Bool = true,
                            executor: (any TaskExecutor)? = nil) -> Throttle<Self, C> {
        Throttle(base: self, interval: interval, latest: latest, clock: clock, executor: executor)
    }
}
