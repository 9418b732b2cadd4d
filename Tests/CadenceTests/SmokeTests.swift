import Cadence
import FoundationEssentials
import Testing

@Suite(.serialized) struct SmokeTests {
    @Test func connectThenCancel() throws {
        let loop = try Loop()
        defer { try? loop.close() }
        var ticks = 0
        let publisher = try TimerPublisher(every: 0.05, on: loop, in: .common)
        let handle = publisher.sink { _ in ticks += 1 }
        try loop.run(for: 0.3)
        #expect(ticks == 0)
        let connection = publisher.connect()
        try loop.run(for: 0.31)
        #expect((5...7).contains(ticks))
        connection.cancel()
        let atStop = ticks
        try loop.run(for: 0.2)
        #expect(ticks == atStop)
        withExtendedLifetime(handle) {}
    }
}
