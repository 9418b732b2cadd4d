@testable import Cadence
import Testing

/// What a table keeps of its slots' generations once the slots are gone: a floor per chunk of
/// 4,096 slots and the retired slots, so that every slot made again starts past each generation
/// it handed out (SlotGenerations.swift).
@Suite struct SlotGenerationsTests {
    @Test func aSlotStartsAtTheLargestGenerationOfItsChunk() {
        var kept = SlotGenerations()
        #expect(kept.start(of: 0) == 1 && kept.start(of: 1_000_000) == 1)  // nothing kept: 1
        kept.raise(5, to: 7)
        kept.raise(4_000, to: 3)
        kept.raise(4_096, to: 2)
        #expect([0, 5, 4_000, 4_095].map(kept.start(of:)) == [7, 7, 7, 7])  // past 7 and 3
        #expect([4_096, 8_191].map(kept.start(of:)) == [2, 2])
        #expect(kept.start(of: 8_192) == 1)
        kept.raise(5, to: 6)  // never back
        #expect(kept.start(of: 5) == 7)
    }

    @Test func aRetiredSlotAloneStaysRetired() {
        var kept = SlotGenerations()
        kept.raise(10, to: TimerID.generationLimit)
        kept.raise(11, to: 9)
        #expect(kept.start(of: 10) == TimerID.generationLimit)
        #expect(kept.start(of: 11) == 9 && kept.start(of: 12) == 9)  // its neighbours are not retired
    }

    @Test func agingMovesEveryFloorUpToTheLimit() {
        var kept = SlotGenerations()
        kept.raise(0, to: 2)
        kept.raise(5_000, to: TimerID.generationLimit - 10)
        kept.age(by: 100)
        #expect(kept.start(of: 1) == 102)
        #expect(kept.start(of: 5_000) == TimerID.generationLimit && kept.start(of: 6_000) == TimerID.generationLimit)
    }
}
