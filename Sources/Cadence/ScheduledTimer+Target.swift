import Glibc

/// Timers that hold their target weakly: Foundation's `scheduledTimer(timeInterval:target:
/// selector:userInfo:repeats:)` without its retain cycle.
///
/// A repeating `Timer` retains its target until it is invalidated, so an object whose `deinit`
/// is the place that would invalidate it never deinitializes. The usual fix is a proxy object
/// holding the target weakly; these forms are that proxy, built in. The timer keeps only a weak
/// reference to `target` and passes the target to the action while it lives. On the first fire
/// date after the target's last strong reference is gone, the timer cancels itself without
/// calling the action: nothing fires after the target deinitializes, and the loop's
/// ``Loop/armedTimerCount`` drops at that fire date.
extension Loop {
    /// ``schedule(after:tolerance:in:_:)-(Double,_,_,_)`` with a weakly held `target`: calls
    /// `action(target, tick)` once, `delay` seconds from now, if `target` is still alive then.
    ///
    /// - Parameters:
    ///   - delay: seconds from a fresh clock read, ≥ 0 and finite.
    ///   - tolerance: seconds of allowed lateness, ≥ 0 and finite.
    ///   - mode: a registered mode or ``RunLoopMode/common``.
    ///   - target: the object the action works on, held weakly (the timer never keeps it alive).
    ///   - action: called on the thread that runs the loop, with the target and the
    ///     ``TimerTick``; not called if the target has deinitialized by the fire date. It should
    ///     reach the target through its first argument: a closure that captures the target
    ///     strongly holds it alive again.
    /// - Returns: a handle whose ``ScheduledTimer/cancel()`` prevents the action if it has not started.
    /// - Throws: as ``schedule(after:tolerance:in:_:)-(Double,_,_,_)``. When it throws, `action`
    ///   is never called.
    @discardableResult
    public func schedule<Target: AnyObject & Sendable>(
        after delay: Double, tolerance: Double = 0, in mode: RunLoopMode = .default, target: Target,
        _ action: @escaping @Sendable (Target, TimerTick) -> Void
    ) throws(CadenceError) -> ScheduledTimer {
        do {
            return ScheduledTimer(loop: self, id: try scheduleOnce(
                after: try nanoseconds(fromSeconds: delay, allowZero: true, argument: "delay"),
                tolerance: try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance"),
                in: mode, action: weakAction(target, action)))
        } catch {
            throw error.in("Loop.schedule(after:tolerance:in:target:_:)")
        }
    }

    /// ``schedule(after:interval:tolerance:in:missedTicks:_:)-(Double,_,_,_,_,_)`` with a weakly
    /// held `target`: calls `action(target, tick)` every `interval` seconds, first `delay`
    /// seconds from now, on a fixed grid, until the timer is cancelled or the target is gone.
    ///
    /// The target's `deinit` need not cancel the timer: on the first fire date after the target
    /// deinitializes, the timer cancels itself instead of calling the action, and never fires
    /// again. As every repeating timer, it also stops when its last copy goes away; a timer that
    /// should live exactly as long as its target is detached at once (or stored in the target,
    /// whose deinit then stops it at once):
    ///
    /// ```swift
    /// final class Clock: Sendable {
    ///     init(loop: Loop) throws {
    ///         try loop.schedule(after: 1, interval: 1, target: self) { clock, tick in clock.redraw(tick) }
    ///             .detach()
    ///     }
    ///     func redraw(_ tick: TimerTick) { … }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - delay: seconds to the first fire date, ≥ 0 and finite.
    ///   - interval: seconds between fire dates, > 0 and finite.
    ///   - tolerance: seconds of allowed lateness, ≥ 0 and finite.
    ///   - mode: a registered mode or ``RunLoopMode/common``.
    ///   - missedTicks: what a late timer does about the fire dates it missed (default: skip them).
    ///   - target: the object the action works on, held weakly (the timer never keeps it alive).
    ///   - action: called on the thread that runs the loop, once per fire, with the target and
    ///     the ``TimerTick``. It should reach the target through its first argument: a closure
    ///     that captures the target strongly holds it alive again.
    /// - Returns: a handle whose ``ScheduledTimer/cancel()`` stops the timer at once; it reads
    ///   ``ScheduledTimer/isCancelled`` once the timer has stopped for its target. Its last copy
    ///   going away stops the timer too, unless ``ScheduledTimer/detach()`` was called.
    /// - Throws: as ``schedule(after:interval:tolerance:in:missedTicks:_:)-(Double,_,_,_,_,_)``.
    ///   When it throws, `action` is never called.
    public func schedule<Target: AnyObject & Sendable>(
        after delay: Double, interval: Double, tolerance: Double = 0, in mode: RunLoopMode = .default,
        missedTicks: MissedTickPolicy = .skip, target: Target,
        _ action: @escaping @Sendable (Target, TimerTick) -> Void
    ) throws(CadenceError) -> ScheduledTimer {
        do {
            let id = try arm(delay: try nanoseconds(fromSeconds: delay, allowZero: true, argument: "delay"),
                             interval: try nanoseconds(fromSeconds: interval, allowZero: false, argument: "interval"),
                             tolerance: try nanoseconds(fromSeconds: tolerance, allowZero: true, argument: "tolerance"),
                             missedTicks: missedTicks, mode: mode, action: weakAction(target, action))
            return ScheduledTimer(loop: self, repeating: id)
        } catch {
            throw error.in("Loop.schedule(after:interval:tolerance:in:missedTicks:target:_:)")
        }
    }

    /// The action of a timer with a weak target: the target's action while it lives, then a
    /// cancel of the timer itself, which is the one firing on this thread when it runs.
    func weakAction<Target: AnyObject & Sendable>(
        _ target: Target, _ action: @escaping @Sendable (Target, TimerTick) -> Void
    ) -> TimerAction {
        // The loop weakly too: it holds the action, and a strong capture would be a cycle.
        .closure { [weak target, weak self] tick in
            if let target {
                action(target, tick)
            } else {
                self?.disarmFiringTimer()
            }
        }
    }

    /// Cancels the timer whose callback is running on this thread (the caller is that callback).
    func disarmFiringTimer() {
        lock.lock()
        let id = pthread_equal(runningThread, pthread_self()) != 0 ? firing : nil
        lock.unlock()
        if let id { disarm(id) }
    }
}
