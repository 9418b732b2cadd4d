import Cadence
import FoundationEssentials
import Testing

/// The former names (deprecated in 0.4, removed in 0.5) still do what their new names do. Each
/// call is a deprecated declaration's, so the test is marked deprecated too: the compiler warns
/// where a program calls them, not here.
@Suite struct FormerNamesTests {
    @available(*, deprecated, message: "calls the former names on purpose")
    @Test func formerNamesStillWork() throws {
        let loop = Loop.virtual()
        try loop.advanceClock(by: 1.5)
        #expect(loop.now.timeIntervalSince1970 == 1.5)
        try loop.advanceClock(by: .milliseconds(500))
        #expect(loop.now.timeIntervalSince1970 == 2)
        let scheduler = VirtualScheduler()
        let action = try scheduler.schedule(after: scheduler.now.addingTimeInterval(1), tolerance: 0) {}
        #expect(scheduler.pendingCount == 1)
        action.cancel()
        #expect(scheduler.pendingCount == 0)
        _ = loop.wakeUps
        try loop.close()
    }
}
