@testable import Cadence
import Dispatch
import Glibc
import Testing

/// What a timer's action captured lives exactly as long as the timer holds it, whatever a hostile
/// caller does meanwhile (Internals/ClosureHandler.swift): never freed while its callback runs,
/// never freed twice, never kept once the timer has ended.
@Suite struct TimerCaptureLifetimeTests {
    /// A capture that counts its deinits and can run something as it goes.
    final class Canary: @unchecked Sendable {
        static let freed = Shared(0)
        let onDeinit: (@Sendable () -> Void)?
        init(onDeinit: (@Sendable () -> Void)? = nil) { self.onDeinit = onDeinit }
        deinit { onDeinit?() }
    }

    @Test func aRepeatingTimerCancelledFromAnotherThreadKeepsItsCaptureUntilItsCallbackReturns() throws {
        let loop = try Loop()
        let inCallback = Shared(false), sawAlive = Shared(0), ticks = Shared(0)
        var canary: Canary? = Canary()
        weak let watched = canary
        let timer = try loop.schedule(after: 0.001, interval: 0.001) { [canary] _ in
            ticks.value += 1
            inCallback.value = true
            usleep(20_000)  // the cancel comes meanwhile
            if withExtendedLifetime(canary, { watched != nil }) { sawAlive.value += 1 }
        }
        canary = nil
        try loop.startThread()
        #expect(waitUntil { inCallback.value })
        #expect(timer.cancel())
        #expect(watched == nil)  // the cancel waited for the callback, then let go
        try loop.stopThread()
        #expect(sawAlive.value == ticks.value)
    }

    @Test func aPublisherStoppedFromAnotherThreadKeepsItsCaptureUntilDeliveryReturns() throws {
        let loop = try Loop()
        let inCallback = Shared(false), done = Shared(false)
        let publisher = try TimerPublisher(every: 0.001, on: loop)
        let subscription = publisher.subscribe { _ in
            inCallback.value = true
            usleep(20_000)
            done.value = true
        }
        let connection = publisher.connect()
        try loop.startThread()
        #expect(waitUntil { inCallback.value })
        _ = connection.cancel()  // no wait: the broadcast's release is left to the pass
        #expect(waitUntil { done.value })
        try loop.stopThread()
        withExtendedLifetime(subscription) {}
    }

    @Test func aCaptureWhoseDeinitUsesTheLoopIsFreedOutsideItsLock() throws {
        let v = VirtualLoop()
        let loop = v.loop
        let armedFromDeinit = Shared(0)
        // One-shot: freed by its final fire, inside the pass.
        try loop.schedule(after: 1) { [canary = Canary { armedFromDeinit.value += (try? loop.schedule(after: 1) { _ in }) != nil ? 1 : 0 }] _ in
            withExtendedLifetime(canary) {}
        }
        // Repeating, cancelled: freed by the cancel.
        let repeating = try loop.schedule(after: 1, interval: 1) { [canary = Canary { _ = loop.isClosed; armedFromDeinit.value += 1 }] _ in
            withExtendedLifetime(canary) {}
        }
        try loop.run(for: 1.5)
        #expect(armedFromDeinit.value == 1)
        repeating.cancel()
        #expect(armedFromDeinit.value == 2)
        // Closed with an armed timer: freed by the close, which the deinit cannot close again.
        let closeFromDeinit = Shared<Bool?>(nil)
        try loop.schedule(after: 5) { [canary = Canary { closeFromDeinit.value = (try? loop.close()) != nil }] _ in
            withExtendedLifetime(canary) {}
        }
        try loop.close()
        #expect(closeFromDeinit.value == true)
    }

    @Test func closingTheLoopFromACallbackThrowsBusyAndKeepsTheCapture() throws {
        let v = VirtualLoop()
        var canary: Canary? = Canary()
        weak let watched = canary
        let result = Shared<String>("")
        let timer = try v.loop.schedule(after: 1, interval: 1) { [canary] _ in
            do { try v.loop.close(); result.value = "closed" } catch { result.value = "\(error)" }
            withExtendedLifetime(canary) {}
        }
        canary = nil
        try v.loop.run(for: 1.5)
        #expect(result.value.contains("busy") || result.value.contains("EBUSY") || result.value.contains("running"))
        #expect(watched != nil)
        withExtendedLifetime(timer) {}
        try v.loop.close()
        #expect(watched == nil)
    }

    @Test func aLoopDeinitialisedWithArmedTimersFreesTheirCaptures() throws {
        weak var watchedLoop: Loop?
        weak var watched: Canary?
        do {
            let loop = Loop.virtual()
            watchedLoop = loop
            let canary = Canary()
            watched = canary
            try loop.schedule(after: 1, interval: 1) { [canary] _ in withExtendedLifetime(canary) {} }.detach()
            try loop.schedule(after: 1) { [canary] _ in withExtendedLifetime(canary) {} }
        }
        #expect(watchedLoop == nil)
        #expect(watched == nil)
    }

    @Test func givingUpTheLastCopyInsideAndOutsideACallbackFreesTheCapture() throws {
        let v = VirtualLoop()
        var canary: Canary? = Canary()
        weak let watched = canary
        let held = Shared<ScheduledTimer?>(nil)
        let ticks = Shared(0)
        held.value = try v.loop.schedule(after: 1, interval: 1) { [canary] _ in
            ticks.value += 1
            held.value = nil  // the last copy goes inside the callback
            #expect(withExtendedLifetime(canary) { watched != nil })
        }
        canary = nil
        try v.loop.run(for: 3.5)
        #expect(ticks.value == 1 && watched == nil)

        var other: Canary? = Canary()
        weak let watchedOther = other
        var outside: ScheduledTimer? = try v.loop.schedule(after: 1, interval: 1) { [other] _ in withExtendedLifetime(other) {} }
        other = nil
        try v.loop.run(for: 2.5)
        #expect(watchedOther != nil)
        outside = nil
        #expect(watchedOther == nil && outside == nil)
    }

    @Test func resetKeepsTheCaptureAndItsEndFreesIt() throws {
        let v = VirtualLoop()
        var canary: Canary? = Canary()
        weak let watched = canary
        let ticks = Shared(0)
        let timer = try v.loop.schedule(after: 1) { [canary] _ in withExtendedLifetime(canary) { ticks.value += 1 } }
        canary = nil
        for _ in 0..<5 { try timer.reset(after: 2); try v.loop.run(for: 1) }
        #expect(ticks.value == 0 && watched != nil)
        try v.loop.run(for: 2)
        #expect(ticks.value == 1 && watched == nil)
        #expect(throws: CadenceError.self) { try timer.reset(after: 1) }
    }

    @Test func aWeakTargetTimerNeverKeepsItsTargetAndEndsOnceItIsGone() throws {
        let v = VirtualLoop()
        var target: Canary? = Canary()
        weak let watched = target
        let ticks = Shared(0)
        let timer = try v.loop.schedule(after: 1, interval: 1, target: target!) { _, _ in ticks.value += 1 }
        try v.loop.run(for: 2.5)
        target = nil
        #expect(watched == nil)
        try v.loop.run(for: 2)
        #expect(ticks.value == 2 && !v.loop.isArmed(timer.id))
    }

    @Test func thousandsOfTimersArmedAndCancelledFromTwoThreadsFreeEveryCapture() throws {
        let loop = try Loop()
        try loop.startThread()
        let freed = Shared(0), fired = Shared(0)
        let perThread = 3_000
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for index in 0..<perThread {
                let canary = Canary { freed.update { $0 += 1 } }
                if index % 3 == 0 {  // one-shot, left to fire
                    try! loop.schedule(after: 0) { [canary] _ in withExtendedLifetime(canary) { fired.update { $0 += 1 } } }
                } else {
                    let timer = try! loop.schedule(after: 0.0001 * Double(index % 5), interval: 0.0001) { [canary] _ in
                        withExtendedLifetime(canary) {}
                    }
                    if index % 2 == 0 { timer.cancel() }  // else: its last copy goes
                }
            }
            _ = thread
        }
        #expect(waitUntil { freed.value == 2 * perThread })
        try loop.stopThread()
        try loop.close()
        #expect(freed.value == 2 * perThread && fired.value == 2 * perThread / 3)
    }

    @Test func anAutoconnectPublisherJoinedAndLeftFromTwoThreadsWhileItTicksEndsWithNoTimer() throws {
        let loop = try Loop()
        try loop.startThread()
        let publisher = try TimerPublisher(every: 0.0001, on: loop).autoconnect()
        let ticks = Shared(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for index in 0..<1_500 {
                let subscription = index % 2 == 0
                    ? publisher.sink { _ in ticks.update { $0 += 1 } } as AnyObject
                    : publisher.subscribe { _ in ticks.update { $0 += 1 } } as AnyObject
                if index % 3 == 0 { usleep(50) }  // let some ticks through
                withExtendedLifetime(subscription) {}
            }
        }
        #expect(waitUntil { loop.armedTimerCount == 0 })
        try loop.stopThread()
        try loop.close()
        withExtendedLifetime(publisher) {}
    }
}

