/// A debounce written against any `Clock<Duration>`, the way an app or library writes one (as
/// swift-async-algorithms' `AsyncDebounceSequence` does, more simply): each upstream value waits
/// `quiet` on the clock, and is emitted when no newer value came meanwhile; a newer one cancels its
/// wait. When upstream finishes, the last value is still emitted a quiet period after it came, then
/// the sequence finishes.
///
/// The upstream is read by a task of its own, and each wait is a task, as such operators do. A
/// plain `Task {}` does not inherit the executor preference of the task that makes it (SE-0417;
/// measured with Swift 6.3.1), so both are made with `Task(executorPreference: executor)`: given a
/// loop, they run on it, which keeps a test on a virtual loop exact.
struct Debounce<Base: AsyncSequence & Sendable, C: Clock>: AsyncSequence, Sendable
    where Base.Element: Sendable, Base.Failure == Never, C.Duration == Duration {
    typealias Element = Base.Element
    typealias Failure = Never

    let base: Base
    let quiet: Duration
    let clock: C
    let executor: (any TaskExecutor)?

    func makeAsyncIterator() -> AsyncStream<Element>.Iterator {
        let (output, continuation) = AsyncStream.makeStream(of: Element.self)
        let (base, quiet, clock, executor) = (base, quiet, clock, executor)
        let reader = Task(executorPreference: executor) {
            var wait: Task<Void, Never>?
            for await value in base {
                wait?.cancel()
                let deadline = clock.now.advanced(by: quiet)
                wait = Task(executorPreference: executor) {
                    // Cancelled by a newer value, during the sleep or after it ended but before
                    // this task ran again: either way the value is stale.
                    try? await clock.sleep(until: deadline, tolerance: nil)
                    if !Task.isCancelled { continuation.yield(value) }
                }
            }
            if Task.isCancelled { wait?.cancel() }  // the consumer went away
            await wait?.value
            continuation.finish()
        }
        continuation.onTermination = { _ in reader.cancel() }
        return output.makeAsyncIterator()
    }
}

extension AsyncSequence where Self: Sendable, Element: Sendable, Failure == Never {
    /// This sequence debounced: see ``Debounce``.
    func debounce<C: Clock>(for quiet: Duration, clock: C, executor: (any TaskExecutor)? = nil) -> Debounce<Self, C> {
        Debounce(base: self, quiet: quiet, clock: clock, executor: executor)
    }
}
