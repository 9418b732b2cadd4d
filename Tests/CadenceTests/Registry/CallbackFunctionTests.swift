import Cadence
import Dispatch
import Synchronization
import Testing

/// The engine's forms for C callbacks (a subscription, a countdown, a poller made through the
/// registry, as the C API makes them) keep the C contract themselves: one release of the
/// userdata after every callback, none after a final call or a failed registration, no call
/// after a cancel returns, and a callback may cancel its own source.
@Suite(.serialized) struct CallbackFunctionTests {
    /// A virtual loop in a registry of its own, with the recording release function.
    func virtualLoop() throws -> (registry: HandleRegistry, loop: Loop, id: UInt64) {
        let registry = HandleRegistry()
        let loop = Loop.virtual()
        let id = try registry.insert(loop)
        try loop.setHostFunctions((0, recordReleaseWord))
        return (registry, loop, id)
    }

    /// A connectable publisher every second, connected, behind handles of `registry`.
    func connectedPublisher(_ registry: HandleRegistry, _ loop: Loop, _ loopID: UInt64) throws -> UInt64 {
        let publisher = try registry.insert(publisher: try TimerPublisher(every: 1, on: loop), owner: loopID, of: loop)
        _ = try registry.connect(publisher: publisher)
        return publisher
    }

    func subscribe(_ record: CallRecord, to publisher: UInt64) throws -> UInt64 {
        try record.registry.subscribe(RecordTick.registration(record), publisher: publisher)
    }

    @Test func aSubscriptionIsReleasedOnceByItsCancelAndNeverCalledAfter() throws {
        let (registry, loop, loopID) = try virtualLoop()
        let record = CallRecord(registry)
        let subscription = try subscribe(record, to: try connectedPublisher(registry, loop, loopID))
        try loop.run(for: 3.5)
        #expect(record.calls == 3)
        #expect(record.sources == [subscription])
        #expect(registry.cancel(subscription) == true)
        #expect(record.releases == 1)
        #expect(registry.cancel(subscription) == false)
        #expect(registry.isCancelled(subscription) == true)
        try loop.run(for: 2)
        #expect(record.calls == 3)
        #expect(registry.release(subscription) == false)  // live, but it stopped nothing
        #expect(registry.cancel(subscription) == nil)  // the handle is dead
        #expect(record.releases == 1)
        #expect(record.lateCalls == 0)
        try registry.destroyLoop(loopID)
        #expect(record.releases == 1)
    }

    @Test func givingUpASubscriptionOrAPollerReleasesInsideTheCall() throws {
        let (registry, loop, loopID) = try virtualLoop()
        let subscriber = CallRecord(registry), polls = CallRecord(registry)
        let subscription = try subscribe(subscriber, to: try connectedPublisher(registry, loop, loopID))
        let poller = try registry.startPoller(RecordPoll.words(polls), of: RecordPoll.self,
                                              loop: loopID, interval: 1, tolerance: 0)
        try loop.run(for: 2.5)
        #expect(subscriber.calls == 2)
        #expect(polls.calls == 2)  // every poll finished from its callback
        #expect(registry.release(subscription) == true)  // stopped them
        #expect(registry.release(poller) == true)
        #expect(subscriber.releases == 1)
        #expect(polls.releases == 1)
        #expect(registry.release(poller) == nil)  // released already
        try loop.run(for: 3)
        #expect(subscriber.calls == 2)
        #expect(polls.calls == 2)
        try registry.destroyLoop(loopID)
        #expect(subscriber.releases == 1)
        #expect(polls.releases == 1)
    }

    @Test func aCountdownsFinalCallTakesThePlaceOfTheRelease() throws {
        let (registry, loop, loopID) = try virtualLoop()
        let record = CallRecord(registry)
        let countdown = try registry.startCountdown(
            RecordCountdown.words(record), of: RecordCountdown.self, loop: loopID, deadline: 2, tick: 1)
        #expect(record.calls == 0)  // the first value comes on the next pass, not from the call
        try loop.run(for: 3)
        #expect(record.values == [2, 1, 0, -1])  // -1: the finished call
        #expect(record.finals == 1)
        #expect(record.releases == 0)
        #expect(registry.cancel(countdown) == false)  // it ended on its own
        #expect(registry.release(countdown) != nil)
        try registry.destroyLoop(loopID)
        #expect(record.releases == 0)
        #expect(record.lateCalls == 0)
    }

    @Test func aCallbackCancelsItsOwnSourceFromItsFirstCall() throws {
        let (registry, loop, loopID) = try virtualLoop()
        let counting = CallRecord(registry, cancelOnCall: 1), polling = CallRecord(registry, cancelOnCall: 1)
        let ticking = CallRecord(registry, cancelOnCall: 1)
        let countdown = try registry.startCountdown(
            RecordCountdown.words(counting), of: RecordCountdown.self, loop: loopID, deadline: 5, tick: 1)
        let poller = try registry.startPoller(RecordPoll.words(polling), of: RecordPoll.self,
                                              loop: loopID, interval: 1, tolerance: nil)
        let subscription = try subscribe(ticking, to: try connectedPublisher(registry, loop, loopID))
        try loop.run(for: 4)
        for (record, source) in [(counting, countdown), (polling, poller), (ticking, subscription)] {
            #expect(record.calls == 1)
            #expect(record.sources == [source])
            #expect(record.cancelResult == true)  // the cancel from inside stopped it
            #expect(record.releasesWhenCancelled == 0)  // released once the callback had returned
            #expect(record.releases == 1)
            #expect(registry.cancel(source) == false)
        }
        try registry.destroyLoop(loopID)
        #expect([counting, polling, ticking].map(\.releases) == [1, 1, 1])
    }

    @Test func aPollIsFinishedByItsNumberOnce() throws {
        let (registry, loop, loopID) = try virtualLoop()
        let record = CallRecord(registry, finishesPolls: false)
        let poller = try registry.startPoller(RecordPoll.words(record), of: RecordPoll.self,
                                              loop: loopID, interval: 1, tolerance: 0)
        try loop.run(for: 2.5)
        #expect(record.values == [1])  // the second tick found the first poll running
        #expect(try registry.poller(poller).finish(poll: 2) == false)
        #expect(try registry.poller(poller).finish(poll: 1))
        #expect(try registry.poller(poller).finish(poll: 1) == false)
        try loop.run(for: 1)
        #expect(record.values == [1, 2])
        #expect(registry.cancel(poller) == true)
        #expect(record.releases == 1)
        try registry.destroyLoop(loopID)
        #expect(record.releases == 1)
    }

    @Test func aRegistrationThatFailsCallsNothing() throws {
        let (registry, _, loopID) = try virtualLoop()
        let record = CallRecord(registry)
        #expect(throws: CadenceError.invalidArgument) {
            try registry.startPoller(RecordPoll.words(record), of: RecordPoll.self,
                                     loop: loopID, interval: -1, tolerance: nil)
        }
        #expect(throws: CadenceError.invalidArgument) {
            try registry.startCountdown(RecordCountdown.words(record), of: RecordCountdown.self, loop: loopID,
                                        deadline: .nan, tick: 1)
        }
        #expect(throws: CadenceError.invalidArgument) {  // no function, and the loop has no fire function
            let publisher = try registry.insert(publisher: try TimerPublisher(every: 1, on: registry.loop(loopID)!),
                                                owner: loopID, of: registry.loop(loopID)!)
            _ = try registry.subscribe(RecordTick.registration(record, function: false), publisher: publisher)
        }
        try registry.destroyLoop(loopID)
        #expect(record.releases == 0)
        #expect(record.calls == 0)
    }

    @Test func aDetachedReleasedHandleLastsUntilItsLoopIsDestroyed() throws {
        let (registry, loop, loopID) = try virtualLoop()
        let record = CallRecord(registry)
        let subscription = try subscribe(record, to: try connectedPublisher(registry, loop, loopID))
        #expect(registry.detach(subscription))
        #expect(registry.release(subscription) != nil)
        #expect(registry.release(subscription) == nil)  // a second release of it is stale
        #expect(!registry.detach(subscription))
        try loop.run(for: 2.5)
        #expect(record.calls == 2)  // it keeps delivering, naming its handle
        #expect(record.sources == [subscription])
        #expect(record.releases == 0)
        try registry.destroyLoop(loopID)
        #expect(record.releases == 1)
        #expect(registry.cancel(subscription) == nil)
    }

    /// A cancel from another thread returns only once a running callback has returned, and no
    /// callback starts after it; the release comes inside the cancel, after the callbacks.
    @Test func noCallAfterACancelFromAnotherThreadReturns() throws {
        let registry = HandleRegistry()
        let loop = try Loop()
        let loopID = try registry.insert(loop)
        try loop.setHostFunctions((0, recordReleaseWord))
        try loop.startThread()
        for round in 0..<20 {
            let record = CallRecord(registry)
            let publisher = try registry.insert(publisher: try TimerPublisher(every: 0.0005, on: loop, in: .common),
                                                owner: loopID, of: loop)
            let subscription = try subscribe(record, to: publisher)
            let connection = try registry.connect(publisher: publisher)
            #expect(record.started.wait(timeout: .now() + 10) == .success)
            #expect(registry.cancel(round % 2 == 0 ? subscription : connection) == true)
            record.cancelReturned.store(true, ordering: .releasing)
            if round % 2 == 1 { #expect(registry.release(subscription) != nil) }
            #expect(record.releases == 1)
            // Ticks due after the cancel would have come by the time a later one-shot fires.
            let fired = DispatchSemaphore(value: 0)
            try loop.schedule(after: 0.003, in: .common) { _ in fired.signal() }
            #expect(fired.wait(timeout: .now() + 10) == .success)
            #expect(record.callsAfterCancel == 0)
            #expect(record.lateCalls == 0)
            #expect(registry.release(connection) != nil)
            #expect(registry.remove(publisher, kind: .publisher) != nil)
        }
        try loop.stopThread()
        try registry.destroyLoop(loopID)
    }

    /// A subscription's first tick may run on the loop's thread before the subscribing call has
    /// returned: its handle already names it, so its cancel from that tick stops it.
    @Test func aFirstTickBeforeTheSubscribeReturnedCancelsItsSource() throws {
        let registry = HandleRegistry()
        let loop = try Loop()
        let loopID = try registry.insert(loop)
        try loop.setHostFunctions((0, recordReleaseWord))
        try loop.startThread()
        let connectable = try TimerPublisher(every: 0.00002, on: loop, in: .common)
        let publisher = try registry.insert(publisher: connectable.autoconnect(), owner: loopID, of: loop)
        for _ in 0..<100 {
            let record = CallRecord(registry, cancelOnCall: 1)
            let subscription = try subscribe(record, to: publisher)  // its first subscriber starts the timer
            #expect(record.releasedSignal.wait(timeout: .now() + 10) == .success)
            #expect(record.calls == 1)
            #expect(record.sources == [subscription])
            #expect(record.cancelResult == true)
            #expect(record.releasesWhenCancelled == 0)
            #expect(record.releases == 1)
            #expect(registry.release(subscription) != nil)
        }
        try loop.stopThread()
        try registry.destroyLoop(loopID)
    }

    @Test func aCancelOfEveryKindCanHandTheKeyBackInsteadOfTheRelease() throws {
        let (registry, loop, loopID) = try virtualLoop()
        let subscriber = CallRecord(registry), counter = CallRecord(registry), polls = CallRecord(registry)
        let subscription = try subscribe(subscriber, to: try connectedPublisher(registry, loop, loopID))
        let countdown = try registry.startCountdown(
            RecordCountdown.words(counter), of: RecordCountdown.self, loop: loopID, deadline: 10, tick: 1)
        let poller = try registry.startPoller(RecordPoll.words(polls), of: RecordPoll.self,
                                              loop: loopID, interval: 1, tolerance: 0)
        try loop.run(for: 1.5)
        for (id, record) in [(subscription, subscriber), (countdown, counter), (poller, polls)] {
            let outcome = registry.cancel(id, handingBack: true)
            #expect(outcome?.stopped == true)
            #expect(outcome?.key == Int(bitPattern: record.userdata))  // the caller's now
            #expect(registry.cancel(id, handingBack: true).map { [$0.stopped ? 1 : 0, $0.key] } == [0, 0])
        }
        let calls = [subscriber, counter, polls].map(\.calls)
        #expect(calls.allSatisfy { $0 > 0 })
        try loop.run(for: 2)
        #expect([subscriber, counter, polls].map(\.calls) == calls)  // none after the cancel
        try registry.destroyLoop(loopID)
        #expect([subscriber, counter, polls].map(\.releases) == [0, 0, 0])  // handed back: no release
        #expect([subscriber, counter, polls].map(\.lateCalls) == [0, 0, 0])
    }
}

/// What a registration's callbacks saw, reached from the C-style callbacks through the userdata.
final class CallRecord: @unchecked Sendable {
    let registry: HandleRegistry
    private let cancelOnCall: Int?
    let finishesPolls: Bool
    private let state = Locked(State())  // a lock ThreadSanitizer sees, unlike `Mutex`
    let cancelReturned = Atomic(false)
    /// Signalled on the first call, and on each release.
    let started = DispatchSemaphore(value: 0), releasedSignal = DispatchSemaphore(value: 0)

    struct State {
        var calls = 0, finals = 0, releases = 0, lateCalls = 0, callsAfterCancel = 0
        var sources: Set<UInt64> = []
        var values: [Int64] = []
        var cancelResult: Bool?
        var releasesWhenCancelled: Int?
    }

    init(_ registry: HandleRegistry, cancelOnCall: Int? = nil, finishesPolls: Bool = true) {
        self.registry = registry
        self.cancelOnCall = cancelOnCall
        self.finishesPolls = finishesPolls
    }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ userdata: UnsafeMutableRawPointer?) -> CallRecord {
        Unmanaged<CallRecord>.fromOpaque(userdata!).takeUnretainedValue()
    }

    var calls: Int { state.withLock { $0.calls } }
    var finals: Int { state.withLock { $0.finals } }
    var releases: Int { state.withLock { $0.releases } }
    var lateCalls: Int { state.withLock { $0.lateCalls } }
    var callsAfterCancel: Int { state.withLock { $0.callsAfterCancel } }
    var sources: Set<UInt64> { state.withLock { $0.sources } }
    var values: [Int64] { state.withLock { $0.values } }
    var cancelResult: Bool? { state.withLock { $0.cancelResult } }
    var releasesWhenCancelled: Int? { state.withLock { $0.releasesWhenCancelled } }

    /// One call naming `source`, with `value` recorded; cancels the source on call `cancelOnCall`.
    func called(source: UInt64, value: Int64?, final: Bool) {
        let calls = state.withLock { state in
            if state.releases > 0 { state.lateCalls += 1 }
            if cancelReturned.load(ordering: .acquiring) { state.callsAfterCancel += 1 }
            state.calls += 1
            if final { state.finals += 1 }
            state.sources.insert(source)
            if let value { state.values.append(value) }
            return state.calls
        }
        if calls == 1 { started.signal() }
        if calls == cancelOnCall {
            let result = registry.cancel(source)
            state.withLock {
                $0.cancelResult = result
                $0.releasesWhenCancelled = $0.releases
            }
        }
    }

    func released() {
        state.withLock { $0.releases += 1 }
        releasedSignal.signal()
    }
}

/// The test handlers' instance side, unused: the engine reads a plain handler through its words.
private protocol RecordHandler: PlainTimerHandler {}

extension RecordHandler {
    func fired(_ tick: TimerTick, timer: UInt64, final: Bool) {}
    var observesEnd: Bool { false }
    func ended() {}
    var handBackKey: Int? { nil }
    func batchWord(kind: UInt) -> UInt? { nil }
}

/// A subscription's handler as the C layer's: its words are a function (any nonzero word: none
/// is called), the record's userdata and the loop's release function, which its end calls.
private struct RecordTick: RecordHandler {
    static let kind = HandlerKinds.register(Self.self)
    /// What a registration passes: with `function` false, none of its own (the loop's fire
    /// function must stand in, as for a C subscription given a NULL callback).
    static func registration(_ record: CallRecord, function: Bool = true) -> PlainHandler {
        ((function ? 1 : 0, UInt(bitPattern: record.userdata), 0), RecordTick.self)
    }

    static func fired(_ words: HandlerWords, _ tick: TimerTick, timer: UInt64, final: Bool) {
        CallRecord.from(UnsafeMutableRawPointer(bitPattern: words.1)).called(source: timer, value: nil, final: final)
    }

    static func observesEnd(_ words: HandlerWords) -> Bool { words.2 != 0 }

    static func ended(_ words: HandlerWords) {
        unsafeBitCast(UnsafeRawPointer(bitPattern: words.2)!, to: RecordRelease.self)(
            UnsafeMutableRawPointer(bitPattern: words.1))
    }

    /// The record's address, as the C layer hands a userdata back (cadence_cancel_steal).
    static func handBackKey(_ words: HandlerWords) -> Int? { Int(bitPattern: words.1) }
    static func batchWord(_ words: HandlerWords, kind: UInt) -> UInt? { nil }

    static func armed(_ words: HandlerWords, loop: LoopFunctionWords) throws(CadenceError) -> PlainHandler {
        guard words.0 != 0 || loop.fire != 0 else { throw .invalidArgument }
        return ((words.0 != 0 ? words.0 : loop.fire, words.1, loop.release), RecordTick.self)
    }
}

/// What the countdown's and the poller's test handlers share: a record's words, no ticks, and
/// ``RecordTick``'s end. (The engine gives no such defaults: they would run unspecialised in the C
/// layer.)
private protocol RecordsWithoutTicks: RecordHandler {}

extension RecordsWithoutTicks {
    /// What a registration passes.
    static func words(_ record: CallRecord) -> HandlerWords { (1, UInt(bitPattern: record.userdata), 0) }

    static func fired(_ words: HandlerWords, _ tick: TimerTick, timer: UInt64, final: Bool) {}
    static func observesEnd(_ words: HandlerWords) -> Bool { RecordTick.observesEnd(words) }
    static func ended(_ words: HandlerWords) { RecordTick.ended(words) }
    static func handBackKey(_ words: HandlerWords) -> Int? { RecordTick.handBackKey(words) }
    static func batchWord(_ words: HandlerWords, kind: UInt) -> UInt? { nil }

    static func armed(_ words: HandlerWords, loop: LoopFunctionWords) -> PlainHandler {
        ((words.0, words.1, loop.release), Self.self)
    }
}

/// A countdown's handler as the C layer's (see ``RecordTick``): a finished event records -1.
private struct RecordCountdown: PlainCountdownHandler, RecordsWithoutTicks {
    static let kind = HandlerKinds.register(Self.self)
    static func countdown(_ words: HandlerWords, remaining: Int, finished: Bool, date: Double, source: UInt64) {
        CallRecord.from(UnsafeMutableRawPointer(bitPattern: words.1))
            .called(source: source, value: finished ? -1 : Int64(remaining), final: finished)
    }
}

/// A poller's handler as the C layer's (see ``RecordTick``): records each poll's number, and
/// finishes it at once if its record says so.
private struct RecordPoll: PlainPollHandler, RecordsWithoutTicks {
    static let kind = HandlerKinds.register(Self.self)
    static func poll(_ words: HandlerWords, number: Int, date: Double, source: UInt64) {
        let record = CallRecord.from(UnsafeMutableRawPointer(bitPattern: words.1))
        record.called(source: source, value: Int64(number), final: false)
        if record.finishesPolls, let poller = try? record.registry.poller(source) { _ = poller.finish(poll: number) }
    }
}

/// A release function as a C host passes it (`cadence_release_fn`), and the word the loop keeps.
private typealias RecordRelease = @convention(c) (UnsafeMutableRawPointer?) -> Void
private let recordRelease: RecordRelease = { userdata in CallRecord.from(userdata).released() }
private let recordReleaseWord = UInt(bitPattern: unsafeBitCast(recordRelease, to: UnsafeRawPointer.self))
