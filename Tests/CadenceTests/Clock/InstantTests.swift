import Cadence
import Testing

/// `LoopClock.Instant` arithmetic: deadlines round up (a sleep is never early), differences are
/// exact, and both ends of the clock saturate.
@Suite struct InstantTests {
    typealias Instant = LoopClock.Instant

    @Test func advancingRoundsPartsOfANanosecondUp() {
        let start = Instant(nanoseconds: 1_000)
        #expect(start.advanced(by: .nanoseconds(1) / 2).nanoseconds == 1_001)
        #expect(start.advanced(by: .nanoseconds(1) / 1_000_000).nanoseconds == 1_001)
        #expect(start.advanced(by: .milliseconds(1) / 3).nanoseconds == 334_334)  // 333 333.3 ns up
        #expect(start.advanced(by: .seconds(2)).nanoseconds == 2_000_001_000)
        #expect(start.advanced(by: .zero) == start)
        // Negative durations round up too (towards later): -1.5 ns moves back 1 ns.
        #expect(start.advanced(by: .nanoseconds(-3) / 2).nanoseconds == 999)
        #expect(start.advanced(by: .nanoseconds(-1_000)).nanoseconds == 0)
    }

    @Test func theEndsSaturate() {
        #expect(Instant(nanoseconds: 5).advanced(by: .nanoseconds(-10)).nanoseconds == 0)
        #expect(Instant(nanoseconds: .max - 5).advanced(by: .seconds(1)).nanoseconds == .max)
        #expect(Instant(nanoseconds: 0).advanced(by: .seconds(Int64.max)).nanoseconds == .max)
    }

    @Test func durationsAreExactAndSigned() {
        let a = Instant(nanoseconds: 1_500_000_001)
        let b = Instant(nanoseconds: 3_000_000_000)
        #expect(a.duration(to: b) == .nanoseconds(1_499_999_999))
        #expect(b.duration(to: a) == .nanoseconds(-1_499_999_999))
        #expect(Instant(nanoseconds: 0).duration(to: Instant(nanoseconds: .max)) == .nanoseconds(Int64.max) * 2 + .nanoseconds(1))
        #expect(a.advanced(by: a.duration(to: b)) == b)
        #expect(a < b && !(b < a) && a == Instant(nanoseconds: 1_500_000_001))
        #expect(b - a == .nanoseconds(1_499_999_999))  // InstantProtocol's operators
        #expect(a + .nanoseconds(1) == Instant(nanoseconds: 1_500_000_002))
    }
}
