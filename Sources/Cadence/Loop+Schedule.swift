/// One-shot timers on a loop.
extension Loop {
    /// Runs `action` once, `delay` seconds from now, while the loop runs in a mode covered by `mode`.
    ///
    /// Like `Timer.scheduledTimer(withTimeInterval:repeats: false)` added to `mode`. The action
    /// receives a tick whose fire date is the time it was due.
    ///
    /// - Parameters:
    ///   - delay: seconds from a fresh clock read, ≥ 0 and finite (0 fires on the next pass, never
    ///     in a pass already running).
    ///   - tolerance: seconds of allowed lateness, ≥ 0 and finite.
    ///   - mode: a registered mode or ``RunLoopMode/common``.
    /// - Returns: a handle whose ``OneShotTimer/cancel()`` prevents the action if it has not started.
    /// - Throws: ``CadenceError/invalidArgument``, ``CadenceError/unknownMode`` or
    ///   ``CadenceError/badHandle``, as ``TimerPublisher/init(every:tolerance:on:in:)``. When it
    ///   throws, `action` is never called.
    @discardableResult
    public func schedule(after delay: Double, tolerance: Double = 0, in mode: RunLoopMode = .default,
                         _ action: @escaping (TimerTick) -> Void) throws(CadenceError) -> OneShotTimer {
        let delayNs = try nanoseconds(fromSeconds: delay, allowZero: true)
        let toleranceNs = try nanoseconds(fromSeconds: tolerance, allowZero: true)
        let node = try arm(delay: delayNs, interval: 0, tolerance: toleranceNs,
                           modeIndex: try modeIndex(of: mode), action: action)
        return OneShotTimer(loop: self, node: node)
    }
}

/// A one-shot timer armed by ``Loop/schedule(after:tolerance:in:_:)``.
///
/// It does not cancel when released: the loop keeps it until it fires or is cancelled.
public final class OneShotTimer: Cancellable, @unchecked Sendable {
    private let loop: Loop
    private let node: TimerNode

    init(loop: Loop, node: TimerNode) {
        self.loop = loop
        self.node = node
    }

    /// Prevents the action if it has not started yet.
    public func cancel() { loop.disarm(node) }

    /// Cancels; returns false if the timer had already fired or been cancelled.
    package func cancelIfActive() -> Bool { loop.disarm(node) }

    /// Whether the timer was cancelled or has fired.
    public var isCancelled: Bool { !loop.isArmed(node) }
}
