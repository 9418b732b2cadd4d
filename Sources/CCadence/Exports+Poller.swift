import Cadence
import CCadenceHeader

/// A poller behind a C handle: the Swift poller plus the completions of the polls in flight.
/// Releasing the handle frees this, and the poller's deinit cancels it unless it was detached;
/// the poller's operation holds only the completions, so a detached poller keeps polling.
final class PollerHandle: Cancellable, Detachable, @unchecked Sendable {
    let completions = PollCompletions()
    var poller: Poller?

    @discardableResult
    func cancel() -> Bool { poller?.cancel() ?? false }
    var isCancelled: Bool { poller?.isCancelled ?? true }
    func detach() { poller?.detach() }
}

/// The completions of a poller's polls in flight, which C finishes by number.
final class PollCompletions: @unchecked Sendable {
    private let lock = Lock()
    private var completions: [UInt64: @Sendable () -> Void] = [:]  // guarded by `lock`
    private var started: UInt64 = 0  // guarded by `lock`

    /// Records a new poll's completion and returns its number.
    func begin(_ completion: @escaping @Sendable () -> Void) -> UInt64 {
        lock.lock()  // not `withLock`: see `HandleTable.lock`
        defer { lock.unlock() }
        started += 1
        completions[started] = completion
        return started
    }

    /// Finishes poll `number`; false if it is not running.
    func finish(_ number: UInt64) -> Bool {
        lock.lock()
        let completion = completions.removeValue(forKey: number)
        lock.unlock()
        guard let completion else { return false }
        completion()
        return true
    }
}

private func lookUpPoller(_ handle: cadence_cancellable) throws(CadenceError) -> PollerHandle {
    guard let poller = HandleTable.shared.cancellable(handle.id)?.object as? PollerHandle else {
        throw .deadHandle("poller", handle.id, kind: "poller")
    }
    return poller
}

@c @implementation
public func cadence_poller_start(_ loopHandle: cadence_loop, _ interval: Double, _ tolerance: Double,
                                 _ fn: cadence_poll_fn?, _ userdata: UnsafeMutableRawPointer?,
                                 _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let fn else { throw .null("fn") }
        guard let out else { throw .null("out") }
        let loop = try lookUpLoop(loopHandle)
        let context = CallbackContext(userdata)
        let tolerance = tolerance == CADENCE_TOLERANCE_DEFAULT ? nil : tolerance
        out.pointee = cadence_cancellable(id: try HandleTable.shared.insert(kind: .cancellable, owner: loopHandle.id, of: loop) {
            cancellable throws(CadenceError) in
            let source = CallbackSource(cancellable)
            let life = CallbackLife.make(loop, userdata)  // a poller ends by cancel only
            cancellable.life = life
            let handle = PollerHandle()
            handle.poller = try Poller(every: interval, tolerance: tolerance, on: loop) { [completions = handle.completions] completion in
                guard source.isLive, life?.begin() ?? true else { return }
                var poll = cadence_poll(number: completions.begin(completion), date: loop.nowSeconds,
                                        source: cadence_cancellable(id: source.id))
                fn(&poll, context.userdata)
                life?.end(final: false)
            }
            return handle
        })
    }
}

@c @implementation
public func cadence_poller_finish(_ handle: cadence_cancellable, _ number: UInt64) -> Int32 {
    cResult { () throws(CadenceError) in
        guard try lookUpPoller(handle).completions.finish(number) else {
            throw .alreadyCancelled.with("number must be a running poll's, got \(number) (finished already, or never started)")
        }
    }
}

@c @implementation
public func cadence_poller_set_active(_ handle: cadence_cancellable, _ active: Int32) -> Int32 {
    cResult { () throws(CadenceError) in
        let poller = try lookUpPoller(handle)
        guard !poller.isCancelled else {
            throw .alreadyCancelled.with("poller must not be cancelled, got a cancelled poller")
        }
        poller.poller?.setActive(active != 0)
    }
}

@c @implementation
public func cadence_poller_tolerance(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try lookUpPoller(handle).poller?.tolerance ?? 0, to: out)
    }
}

@c @implementation
public func cadence_poller_active(_ handle: cadence_cancellable, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard out != nil else { throw .null("out") }
        try write(try lookUpPoller(handle).poller?.isActive ?? false ? 1 : 0, to: out)
    }
}
