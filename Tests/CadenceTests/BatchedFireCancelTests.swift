@testable import Cadence
import Testing

/// A loop's batch of one-shots (a binding's `cadence_loop_set_fire_batch`) is handed over with the
/// lock released, between the pass taking the next timer and calling it: a repeating timer
/// cancelled meanwhile, from the batch or from another thread, must not be called (its cancel
/// returned true), and what its action captured, let go by that cancel, must not be touched.
@Suite struct BatchedFireCancelTests {
    /// A one-shot of the loop's fire function, as C's `cadence_loop_schedule` with `fn` NULL: its
    /// fires go to the loop's batch (its batch word is its userdata).
    enum BatchedOneShot: PlainTimerHandler {
        static let kind = HandlerKinds.register(Self.self)
        static func fired(_ words: HandlerWords, _ tick: TimerTick, timer: UInt64, final: Bool) {}
        static func observesEnd(_ words: HandlerWords) -> Bool { false }
        static func ended(_ words: HandlerWords) {}
        static func handBackKey(_ words: HandlerWords) -> Int? { nil }
        static func batchWord(_ words: HandlerWords, kind: UInt) -> UInt? { words.0 == kind ? words.1 : nil }
        static func armed(_ words: HandlerWords, loop: LoopFunctionWords) -> PlainHandler {
            ((loop.fire, words.1, 0), Self.self)
        }
        func fired(_ tick: TimerTick, timer: UInt64, final: Bool) {}
    }

    /// A repeating handler with a release, as a C callback with the loop's release function:
    /// counts its calls and ends, and its calls after its end.
    enum CountingRepeating: PlainTimerHandler {
        static let kind = HandlerKinds.register(Self.self)
        static let seen = Shared((calls: 0, ends: 0, callsAfterEnd: 0))
        static func fired(_ words: HandlerWords, _ tick: TimerTick, timer: UInt64, final: Bool) {
            seen.update { $0.calls += 1; if $0.ends > 0 { $0.callsAfterEnd += 1 } }
        }
        static func observesEnd(_ words: HandlerWords) -> Bool { true }
        static func ended(_ words: HandlerWords) { seen.update { $0.ends += 1 } }
        static func handBackKey(_ words: HandlerWords) -> Int? { nil }
        static func batchWord(_ words: HandlerWords, kind: UInt) -> UInt? { nil }
        static func armed(_ words: HandlerWords, loop: LoopFunctionWords) -> PlainHandler { (words, Self.self) }
        func fired(_ tick: TimerTick, timer: UInt64, final: Bool) {}
    }

    final class Captured: Sendable {
        let calls = Shared(0)
    }

    @Test func aRepeatingTimerCancelledByTheBatchBeforeItIsNeitherCalledNorUsedAfterItsRelease() throws {
        let loop = Loop.virtual()
        try loop.setHostFunctions((fire: 1, release: 0))  // a fire word for the batch's kind
        let repeating = Shared<ScheduledTimer?>(nil), cancelled = Shared<Bool?>(nil), batched = Shared(0)
        #expect(try loop.setFireBatch { _, count, started in
            batched.value += count
            started.pointee = count
            cancelled.value = repeating.value?.cancel()  // the repeating timer, taken and not yet called
            repeating.value = nil
        })
        _ = try loop.scheduleDefault(after: 1, ((0, 7, 0), BatchedOneShot.self))  // first at 1 s: batched
        var captured: Captured? = Captured()
        weak let watched = captured
        let calls = captured!.calls
        repeating.value = try loop.schedule(after: 1, interval: 1) { [captured] _ in
            captured!.calls.value += 1
        }
        captured = nil
        try loop.run(for: 3.5)
        #expect(batched.value == 1)
        #expect(cancelled.value == true)
        #expect(calls.value == 0)  // cancelled before its call started
        #expect(watched == nil)
        try loop.close()
    }

    /// The same for a handler with a release (a C callback): it is not called after its release.
    @Test func aRepeatingCallbackCancelledByTheBatchBeforeItIsNotCalledAfterItsRelease() throws {
        let loop = Loop.virtual()
        try loop.setHostFunctions((fire: 1, release: 0))
        let repeating = Shared<TimerID?>(nil), cancelled = Shared<Bool?>(nil)
        #expect(try loop.setFireBatch { _, count, started in
            started.pointee = count
            if let id = repeating.value { cancelled.value = loop.disarm(id) }
            repeating.value = nil
        })
        _ = try loop.scheduleDefault(after: 1, ((0, 7, 0), BatchedOneShot.self))
        repeating.value = try loop.arm(delay: 1_000_000_000, interval: 1_000_000_000, tolerance: 0,
                                       modeIndex: TimerQueues.defaultIndex,
                                       action: TimerAction(((1, 2, 3), CountingRepeating.self)))
        try loop.run(for: 3.5)
        #expect(cancelled.value == true)
        #expect(CountingRepeating.seen.value == (calls: 0, ends: 1, callsAfterEnd: 0))
        try loop.close()
    }

    /// A reset in that window re-arms the timer during the pass: it is not called in the pass
    /// (with the fire date the reset replaced), but at its new fire date.
    @Test func aRepeatingTimerResetByTheBatchBeforeItFiresAtItsNewDateOnly() throws {
        let v = VirtualLoop()
        try v.loop.setHostFunctions((fire: 1, release: 0))
        let repeating = Shared<ScheduledTimer?>(nil), dates = Shared<[Int]>([])
        #expect(try v.loop.setFireBatch { _, count, started in
            started.pointee = count
            try? repeating.value?.reset(after: 0.25)
        })
        _ = try v.loop.scheduleDefault(after: 1, ((0, 7, 0), BatchedOneShot.self))
        repeating.value = try v.loop.schedule(after: 1, interval: 1) { tick in dates.update { $0.append(tick.milliseconds) } }
        try v.loop.run(for: 2.5)
        #expect(dates.value == [1250, 2250])
        repeating.value = nil
        try v.loop.close()
    }

    /// A one-shot outside the batch, due with its records and taken by the pass while the batch
    /// waited to be handed over, stays armed until it has been: the batch's call cancels it (true,
    /// never called, what it captured let go) or resets it (called at its new date only).
    @Test func aOneShotTakenWhileTheBatchWaitsCanStillBeCancelledOrResetByIt() throws {
        for resetting in [false, true] {
            let v = VirtualLoop()
            try v.loop.setHostFunctions((fire: 1, release: 0))
            let oneShot = Shared<ScheduledTimer?>(nil), answer = Shared<Bool?>(nil), dates = Shared<[Int]>([])
            #expect(try v.loop.setFireBatch { _, count, started in
                started.pointee = count
                guard answer.value == nil, let timer = oneShot.value else { return }
                if resetting {
                    answer.value = (try? timer.reset(after: 0.5)) != nil
                } else {
                    answer.value = timer.cancel()
                }
            })
            for word in 1...3 { _ = try v.loop.scheduleDefault(after: 1, ((0, UInt(word), 0), BatchedOneShot.self)) }
            var captured: Captured? = Captured()
            weak let watched = captured
            oneShot.value = try v.loop.schedule(after: 1) { [captured] tick in
                captured!.calls.value += 1
                dates.update { $0.append(tick.milliseconds) }
            }
            captured = nil
            try v.loop.run(for: 3)
            #expect(answer.value == true)
            #expect(dates.value == (resetting ? [1500] : []))
            #expect(watched == nil)
            oneShot.value = nil
            try v.loop.close()
        }
    }

    /// A repeating timer due after the batch's records reads, from the batch's call, as what it
    /// is then: pending at the date it is about to fire, not moved to its next one yet.
    @Test func aRepeatingTimerReadByTheBatchBeforeItIsAtTheDateItIsAboutToFire() throws {
        let v = VirtualLoop()
        try v.loop.setHostFunctions((fire: 1, release: 0))
        let repeating = Shared<ScheduledTimer?>(nil), read = Shared<Double?>(nil), dates = Shared<[Int]>([])
        #expect(try v.loop.setFireBatch { _, count, started in
            started.pointee = count
            if read.value == nil, let timer = repeating.value {
                read.value = timer.fireDate?.timeIntervalSince1970  // virtual: seconds from 0
            }
        })
        _ = try v.loop.scheduleDefault(after: 1, ((0, 7, 0), BatchedOneShot.self))
        repeating.value = try v.loop.schedule(after: 1, interval: 5) { tick in dates.update { $0.append(tick.milliseconds) } }
        try v.loop.run(for: 2)
        #expect(read.value.map { abs($0 - 1) < 1e-6 } == true)
        #expect(dates.value == [1000])
        repeating.value = nil
        try v.loop.close()
    }

    /// A pass that took its timers at once (the threshold lowered to the tests' size) hands its
    /// one-shots over as a pass that pops them does: the same records in the same batches, at most
    /// 256 each and split by the fire of a closure timer among them, in fire-date order with ties
    /// in scheduling order; and a closure timer of the same pass that the first batch's call
    /// cancels, taken and not yet called, is never called.
    @Test func aBatchTakenAtOnceIsHandedOverAsAPoppedOne() throws {
        func run(takingAll: Bool) throws -> (batches: [[UInt]], calls: Int, cancelled: Bool?) {
            let v = VirtualLoop()
            if takingAll { v.loop.queues.takeAllMinimum = TimerQueues.testTakeAllMinimum }
            try v.loop.setHostFunctions((fire: 1, release: 0))
            let batches = Shared<[[UInt]]>([]), calls = Shared(0)
            let later = Shared<ScheduledTimer?>(nil), cancelled = Shared<Bool?>(nil)
            #expect(try v.loop.setFireBatch { records, count, started in
                batches.update { $0.append((0..<count).map { records[$0].word }) }
                started.pointee = count
                if cancelled.value == nil { cancelled.value = later.value?.cancel() }
            })
            for word in 1...600 {  // the last armed due first, two by two on one date
                let delay = Double((601 - word) / 2) / 1_000
                _ = try v.loop.scheduleDefault(after: delay, ((0, UInt(word), 0), BatchedOneShot.self))
            }
            _ = try v.loop.schedule(after: 0.15) { _ in calls.value += 1 }
            later.value = try v.loop.schedule(after: 0.25) { _ in calls.value += 100 }
            v.block(for: 1)
            try v.loop.run(for: 0)  // one pass: everything is due
            later.value = nil
            try v.loop.close()
            return (batches.value, calls.value, cancelled.value)
        }
        let taking = try run(takingAll: true), popping = try run(takingAll: false)
        #expect(taking.batches == popping.batches)
        func date(_ word: Int) -> Int { (601 - word) / 2 }
        let expected: [UInt] = (1...600).sorted { (date($0), $0) < (date($1), $1) }.map { UInt($0) }
        #expect(Array(taking.batches.joined()) == expected)
        #expect(taking.batches.count >= 3 && taking.batches.allSatisfy { $0.count <= 256 })
        #expect(taking.cancelled == true && popping.cancelled == true)
        #expect(taking.calls == 1 && popping.calls == 1)
    }

    /// Closing a loop lets go of its batch function, which may hold the loop: the loop is freed
    /// once its last other reference goes.
    @Test func aCloseLetsGoOfTheBatchFunction() throws {
        weak var watched: Loop?
        do {
            let loop = Loop.virtual()
            watched = loop
            try loop.setHostFunctions((fire: 1, release: 0))
            #expect(try loop.setFireBatch { _, count, started in
                started.pointee = count
                withExtendedLifetime(loop) {}  // holds the loop
            })
            try loop.close()
        }
        #expect(watched == nil)
    }
}

