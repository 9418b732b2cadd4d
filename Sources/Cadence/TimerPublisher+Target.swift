import FoundationEssentials
import Synchronization

// Sinks with a weak target, for both publishers: a subscriber whose closure would otherwise
// capture the object that stores its cancellable, a cycle that keeps both alive.

extension TimerPublisher {
    /// ``sink(receiveValue:)`` with a weakly held `target`: calls `receiveValue(target, fireDate)`
    /// on each tick while the target lives.
    ///
    /// The subscription never keeps `target` alive. If the target stores the returned
    /// cancellable, its deinit cancels the subscription at once; otherwise the first tick after
    /// the target is gone cancels it, without calling `receiveValue`. The connection is left as
    /// it is (cancel it to stop the timer).
    ///
    /// - Parameters:
    ///   - target: the object the values go to, held weakly.
    ///   - receiveValue: runs on the thread that runs the loop, as for ``sink(receiveValue:)``.
    ///     It should reach the target through its first argument: a closure that captures the
    ///     target strongly holds it alive again.
    /// - Returns: a cancellable that cancels the subscription when cancelled or deinitialized.
    public func sink<Target: AnyObject & Sendable>(
        target: Target, receiveValue: @escaping @Sendable (Target, Date) -> Void
    ) -> AnyCancellable {
        AnyCancellable(broadcast.subscribe(target: target, receiveValue))
    }
}

extension AutoconnectTimerPublisher {
    /// ``sink(receiveValue:)`` with a weakly held `target`, as
    /// ``TimerPublisher/sink(target:receiveValue:)``: once the target is gone the subscription
    /// cancels (at the target's deinit if it stores the cancellable, else on the next tick), and
    /// when it was the last subscriber the timer stops.
    ///
    /// - Parameters:
    ///   - target: the object the values go to, held weakly.
    ///   - receiveValue: runs on the thread that runs the loop, as for ``sink(receiveValue:)``.
    /// - Returns: a cancellable that cancels the subscription when cancelled or deinitialized.
    public func sink<Target: AnyObject & Sendable>(
        target: Target, receiveValue: @escaping @Sendable (Target, Date) -> Void
    ) -> AnyCancellable {
        AnyCancellable(broadcast.subscribe(target: target, receiveValue))
    }
}

extension TimerBroadcast {
    /// A subscriber that holds `target` weakly and unsubscribes itself on a tick that finds it gone.
    func subscribe<Target: AnyObject & Sendable>(
        target: Target, _ receiveValue: @escaping @Sendable (Target, Date) -> Void
    ) -> TimerSubscription {
        let slot = SubscriberSlot()
        // The tick cannot find the target gone before `slot` is filled: this call holds it. The
        // subscriber, not the subscription, is unsubscribed: a detached subscription given up
        // still ends with its target.
        let subscription = subscribe { [weak self, weak target] tick in
            if let target {
                receiveValue(target, tick.fireDate)
            } else if let subscriber = slot.subscriber {
                _ = self?.unsubscribe(subscriber)
            }
        }
        slot.fill(subscription.subscriber)
        return subscription
    }
}

/// The subscriber a weak-target subscriber removes from its own closure, held weakly: the
/// subscriber holds the closure, which holds this.
private final class SubscriberSlot: Sendable {
    private struct Weak { weak var subscriber: TimerSubscriber? }

    private let storage = Mutex(Weak())

    func fill(_ subscriber: TimerSubscriber) { storage.withLock { $0.subscriber = subscriber } }

    var subscriber: TimerSubscriber? { storage.withLock { $0.subscriber } }
}
