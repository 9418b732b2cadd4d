@testable import Cadence
import Testing

/// No id or handle ever names a second timer: a slot whose generations run out is retired
/// instead of wrapping (TimerQueues+Generations.swift), through every path that empties or
/// rebuilds the table, and across loops that share a place in the handle registry.
@Suite struct TimerGenerationTests {
    /// The reuses that take a fresh slot, after one timer, to its last generation.
    static let toLastGeneration = TimerID.generationLimit - 3

    @Test func aSwiftTimerNeverMatchesTheTimerThatFollowsItsSlotPastTheLimit() throws {
        let v = VirtualLoop()
        let fired = Recorder<String>()
        let old = try v.loop.schedule(after: 1) { _ in fired.append("old") }
        old.cancel()  // slot 0, generation 1; the table is empty again
        try v.loop.ageTimerSlots(by: Self.toLastGeneration)
        for _ in 0..<2 { try v.loop.schedule(after: 1) { _ in fired.append("churn") }.cancel() }
        let new = try v.loop.schedule(after: 2) { _ in fired.append("new") }
        #expect(new.id.slot != 0)  // slot 0 held its last timer, then retired
        #expect(!old.cancel())
        #expect(v.loop.armedTimerCount == 1)
        try v.loop.run(for: 3)
        #expect(fired.values == ["new"])
    }

    @Test func aRetiredSlotIsSkippedEachTimeTheTableStartsAgain() throws {
        var queues = TimerQueues()
        func armAndCancel() -> TimerID {
            let id = queues.arm(fireDate: 10, interval: 0, tolerance: 0, missedTicks: .skip,
                                modeIndex: TimerQueues.defaultIndex, action: .closure { _ in })
            var action = TimerAction.idle
            #expect(queues.disarm(id, releasing: &action))  // the table empties: slot 0 is next
            return id
        }
        let first = armAndCancel()
        let aged = queues.age(by: Self.toLastGeneration)
        #expect(aged)
        let last = armAndCancel()
        #expect(last == TimerID(slot: 0, generation: TimerID.generationLimit - 1))
        let after = (0..<5).map { _ in armAndCancel() }
        #expect(after.map(\.slot) == Array(repeating: 1, count: 5))
        #expect(!([first, last] + after).contains { queues.isArmed($0) })
        // Ageing is refused while a timer is armed.
        let armed = queues.arm(fireDate: 10, interval: 0, tolerance: 0, missedTicks: .skip,
                               modeIndex: TimerQueues.defaultIndex, action: .closure { _ in })
        let agedWhileArmed = queues.age(by: 1)
        #expect(!agedWhileArmed)
        #expect(queues.isArmed(armed))
    }

    @Test func aStaleCHandleGivesNothingPastTheLimitAndLeavesTheLiveTimerAlone() throws {
        let c = try CHandles()
        let old = try c.schedule(after: 1)
        #expect(c.cancelAndRelease(old))
        try c.loop.ageTimerSlots(by: Self.toLastGeneration)
        for _ in 0..<2 {
            let churn = try c.schedule(after: 1)
            c.cancelAndRelease(churn)
        }
        let new = try c.schedule(after: 2)
        #expect(CHandles.slot(of: new) != 0)
        #expect(c.registry.cancelTimer(old) == nil)  // EBADF
        #expect(c.registry.cancelTimer(old, givingUp: true) == nil)
        #expect(c.registry.timer(old) == nil)
        #expect(!c.registry.detachTimer(old))
        #expect(c.registry.timerHasEnded(new) == false)
        try c.loop.run(for: 3)
        #expect(c.fired.values == [new])
        c.cancelAndRelease(new)
        try c.registry.destroyLoop(c.loopID)
    }

    @Test func aDestroyedLoopsHandlesNeverMatchTheTimersOfTheLoopInItsPlace() throws {
        let registry = HandleRegistry()
        let first = try CHandles(registry)
        let old = try first.schedule(after: 1)
        CHandles.cancelAndRelease(old, in: registry)
        try first.loop.ageTimerSlots(by: Self.toLastGeneration)
        try registry.destroyLoop(first.loopID)
        let second = try CHandles(registry)
        let last = try second.schedule(after: 1)  // the last timer of slot 0
        #expect(CHandles.place(of: last) == CHandles.place(of: old) && CHandles.slot(of: last) == 0)
        CHandles.cancelAndRelease(last, in: registry)
        let new = try second.schedule(after: 2)
        #expect(CHandles.slot(of: new) != 0)
        #expect(registry.cancelTimer(old) == nil)
        #expect(registry.timerHasEnded(new) == false)
        try registry.destroyLoop(second.loopID)
    }

    /// Generations pass through a loop that used fewer slots than the one before it in its place.
    @Test func generationsPassThroughALoopThatUsedFewerSlots() throws {
        let registry = HandleRegistry()
        let first = try CHandles(registry)
        let old = try (0..<3).map { _ in try first.schedule(after: 1) }  // slots 0, 1, 2
        for handle in old { CHandles.cancelAndRelease(handle, in: registry) }
        try registry.destroyLoop(first.loopID)
        let second = try CHandles(registry)
        let only = try second.schedule(after: 1)  // slot 0 only
        CHandles.cancelAndRelease(only, in: registry)
        try registry.destroyLoop(second.loopID)
        let third = try CHandles(registry)
        let new = try (0..<3).map { _ in try third.schedule(after: 1) }
        #expect(new.map(CHandles.slot(of:)) == [0, 1, 2])
        #expect(Set(new).isDisjoint(with: old))
        #expect(old.allSatisfy { registry.cancelTimer($0) == nil })
        #expect(new.allSatisfy { registry.timerHasEnded($0) == false })
        try registry.destroyLoop(third.loopID)
    }

    /// Loops, publishers and cancellables: a registry slot is retired after its last generation.
    @Test(arguments: [HandleRegistry.Kind.publisher, .cancellable])
    func aRegistrySlotIsRetiredInsteadOfWrapping(kind: HandleRegistry.Kind) {
        let registry = HandleRegistry()
        let old = registry.insert(Marker(), kind: kind, owner: 0)
        registry.remove(old, kind: kind)
        let slot = Int(old & 0xFFFF_FFFF) - 1
        registry.storage.slots[slot].generation = HandleRegistry.generationLimit - 1  // the last
        let last = registry.insert(Marker(), kind: kind, owner: 0)
        #expect(Int(last & 0xFFFF_FFFF) - 1 == slot)
        registry.remove(last, kind: kind)
        let new = registry.insert(Marker(), kind: kind, owner: 0)
        #expect(Int(new & 0xFFFF_FFFF) - 1 != slot)
        #expect(registry.lookUp(old, kind: kind) == nil)
        #expect(registry.lookUp(last, kind: kind) == nil)
        #expect(registry.remove(old, kind: kind) == nil)
        #expect(registry.lookUp(new, kind: kind) != nil)
        #expect(registry.storage.free.isEmpty)  // the retired slot is not on the free list
    }

    @Test func aLoopHandlesSlotIsRetiredInsteadOfWrapping() throws {
        let registry = HandleRegistry()
        let old = try registry.insert(Loop.virtual())
        try registry.destroyLoop(old)
        let slot = Int(old & 0xFFFF_FFFF) - 1
        registry.storage.slots[slot].generation = HandleRegistry.generationLimit - 1
        let last = try registry.insert(Loop.virtual())
        try registry.destroyLoop(last)
        let new = try registry.insert(Loop.virtual())
        #expect(Int(new & 0xFFFF_FFFF) - 1 != slot)
        #expect(registry.loop(old) == nil)
        #expect(registry.loop(last) == nil)
        #expect(registry.loop(new) != nil)
        try registry.destroyLoop(new)
    }
}

private final class Marker {}

/// A virtual loop behind a handle of a registry, and one-shots armed on it as the C API arms
/// them, each recording its handle (its callback's source) when it fires.
private struct CHandles {
    let registry: HandleRegistry
    let loop = Loop.virtual()
    let loopID: UInt64
    let fired = Recorder<UInt64>()

    init(_ registry: HandleRegistry = HandleRegistry()) throws {
        self.registry = registry
        loopID = try registry.insert(loop)
    }

    func schedule(after delay: Double) throws -> UInt64 {
        return try registry.insertTimer(loop: loopID) { loop throws(CadenceError) in
            try loop.scheduleHandle(after: delay, interval: nil, tolerance: 0, in: .default, missedTicks: .skip,
                                    ((UInt(bitPattern: Unmanaged.passUnretained(fired).toOpaque()), 0, 0),
                                     SourceRecorder.self))
        }
    }

    /// Cancels the timer behind a handle, then releases the handle (releasing alone leaves a
    /// one-shot armed); whether the cancel stopped it.
    @discardableResult
    static func cancelAndRelease(_ handle: UInt64, in registry: HandleRegistry) -> Bool {
        let stopped = registry.cancelTimer(handle)?.stopped == true
        return registry.cancelTimer(handle, givingUp: true) != nil && stopped
    }

    @discardableResult
    func cancelAndRelease(_ handle: UInt64) -> Bool { Self.cancelAndRelease(handle, in: registry) }

    /// The slot a timer handle names in its loop's table, and its loop's place.
    static func slot(of handle: UInt64) -> Int { Int(handle >> TimerID.handleGenerationBits) & (TimerID.handleSlotLimit - 1) }
    static func place(of handle: UInt64) -> Int { Int(handle >> 48) & (HandleRegistry.loopLimit - 1) }
}

/// Records the handle each fire names, as a C callback's source would, in the `Recorder` its
/// first word names (unretained: the test keeps it).
private struct SourceRecorder: PlainTimerHandler {
    static let kind = HandlerKinds.register(Self.self)
    let fired: Recorder<UInt64>

    func fired(_ tick: TimerTick, timer: UInt64, final: Bool) { fired.append(timer) }

    static func fired(_ words: HandlerWords, _ tick: TimerTick, timer: UInt64, final: Bool) {
        Unmanaged<Recorder<UInt64>>.fromOpaque(UnsafeRawPointer(bitPattern: words.0)!).takeUnretainedValue()
            .append(timer)
    }

    static func observesEnd(_ words: HandlerWords) -> Bool { false }
    static func ended(_ words: HandlerWords) {}
    static func handBackKey(_ words: HandlerWords) -> Int? { nil }
    static func batchWord(_ words: HandlerWords, kind: UInt) -> UInt? { nil }
    static func armed(_ words: HandlerWords, loop: LoopFunctionWords) -> PlainHandler { (words, SourceRecorder.self) }
}
