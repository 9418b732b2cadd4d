@testable import Cadence
import Testing

/// A date on a loop's monotonic clock (`cadence_loop_schedule_transient`'s, asyncio's `call_at`)
/// becomes whole nanoseconds: a double's rounding of a whole nanosecond is that nanosecond, any
/// other date is rounded up, so a timer is never early by its own date.
@Suite struct MonotonicDateTests {
    private func ns(_ seconds: Double) throws -> Nanoseconds {
        try nanoseconds(fromDate: seconds, argument: "fire_date")
    }

    @Test func aDoublesRoundingOfAWholeNanosecondIsThatNanosecond() throws {
        #expect(try ns(1.3) == 1_300_000_000)  // 1,300,000,000.0000002 ns as a product
        #expect(try ns(3600) == 3_600_000_000_000)
        #expect(try ns(0.003 + 0.006) == 9_000_000)  // a double just past 0.009
        #expect(try ns(1e-9) == 1)
    }

    @Test func anyOtherDateIsRoundedUp() throws {
        #expect(try ns(1.000_000_000_3) == 1_000_000_001)
        #expect(try ns(0.3e-9) == 1)  // never down to 0
    }

    @Test func randomDatesAreNeverEarlyByMoreThanTheirRounding() throws {
        var rng = SplitMix(seed: 7)  // TimerHeapTests.swift
        for magnitude in [1e-6, 1e-3, 1.0, 1e3, 1e6, 9e6] {
            for _ in 0..<20_000 {
                let date = magnitude * (0.5 + Double(rng.next() % 1_000_000_000) / 1e9)
                let exact = date * 1e9, n = try ns(date)
                #expect(Double(n) >= exact - 0.01 && Double(n) <= exact.rounded(.up), "\(date)")
            }
        }
    }

    @Test func datesBeforeZeroAndPastTheEndClampAndBadOnesThrow() throws {
        #expect(try ns(-5) == 0)
        #expect(try ns(0) == 0)
        #expect(try ns(1.8e10) == .max)
        #expect(throws: CadenceError.self) { try ns(.nan) }
        #expect(throws: CadenceError.self) { try ns(.infinity) }
    }
}
