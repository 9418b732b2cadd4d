import Cadence
import CCadenceHeader
import FoundationEssentials

@c @implementation
public func cadence_countdown_start(_ loopHandle: cadence_loop, _ deadline: Double, _ tick: Double,
                                    _ fn: cadence_countdown_fn?, _ userdata: UnsafeMutableRawPointer?,
                                    _ out: UnsafeMutablePointer<cadence_cancellable>?) -> Int32 {
    cResult { () throws(CadenceError) in
        guard let fn else { throw .null("fn") }
        guard let out else { throw .null("out") }
        let loop = try lookUpLoop(loopHandle)
        let context = CallbackContext(userdata)
        let countdown = loop.countdown(to: Date(timeIntervalSince1970: deadline), tick: tick)
        out.pointee = cadence_cancellable(id: try HandleTable.shared.insert(kind: .cancellable, owner: loopHandle.id, of: loop) {
            handle throws(CadenceError) in
            // The first value comes on the loop's next pass, possibly on the loop's thread before
            // this call returns: the handle already exists.
            let source = CallbackSource(handle)
            let life = CallbackLife.make(loop, userdata)  // its finished event is the final call
            handle.life = life
            return try countdown.subscribe { event in
                guard source.isLive, life?.begin() ?? true else { return }
                var cEvent = cadence_countdown_event(remaining: 0, finished: 0,
                                                     date: loop.nowSeconds,
                                                     source: cadence_cancellable(id: source.id))
                switch event {
                case .value(let remaining): cEvent.remaining = Int64(remaining)
                case .finished: cEvent.finished = 1
                }
                fn(&cEvent, context.userdata)
                life?.end(final: cEvent.finished == 1)
                if cEvent.finished == 1 { source.endIfReleased() }
            }
        })
    }
}
