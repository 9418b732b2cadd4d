import Cadence
import Glibc
import Testing

/// A loop as the executor of tasks: jobs run on the thread that runs the loop, whoever drives it.
@Suite(.serialized) struct LoopExecutorTests {
    @Test func aTaskOnARunningLoopRunsOnItsThreadAndWakesIt() async throws {
        try await withRunningLoop { loop in
            // The loop sleeps with nothing armed; the task's first job must wake it.
            let onLoop = try await Task(executorPreference: loop) { () async throws -> [Bool] in
                var seen = [loop.isIsolatingCurrentContext() == true]
                try await loop.clock.sleep(for: .milliseconds(5))
                seen.append(loop.isIsolatingCurrentContext() == true)  // resumed on the loop, no hop
                return seen
            }.value
            #expect(onLoop == [true, true])
            #expect(loop.isIsolatingCurrentContext() == false)
            let inScope = await withTaskExecutorPreference(loop) { loop.isIsolatingCurrentContext() }
            #expect(inScope == true)
        }
    }

    @Test func aJobMakesAHostsDescriptorReadableAndItsPassRunsIt() async throws {
        let loop = try Loop()
        let descriptor = try loop.fileDescriptor()
        var watch = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&watch, 1, 0) == 0)  // nothing to do yet
        let task = Task(executorPreference: loop) { loop.isIsolatingCurrentContext() == true }
        #expect(await eventually { poll(&watch, 1, 0) == 1 })
        try loop.runPass()
        #expect(await task.value)
        #expect(poll(&watch, 1, 0) == 0)  // the pass took the wake-up in
        try loop.close()
    }

    @Test func runUntilIdleRunsTheTasksSleepingOnAVirtualLoopToTheirEnd() async throws {
        let loop = Loop.virtual()
        let clock = loop.clock
        let task = Task(executorPreference: loop) { () async throws -> Int in
            var count = 0
            for _ in 0..<5 {
                try await clock.sleep(for: .seconds(2), tolerance: .seconds(1))
                count += 1
            }
            return count
        }
        try loop.runUntilIdle()
        #expect(loop.now.timeIntervalSince1970 == 10)  // a lone sleep ends at its deadline
        #expect(try await task.value == 5)
    }

    @Test func aTaskOnAClosedLoopStillRunsToItsEnd() async throws {
        let loop = Loop.virtual()
        let task = Task(executorPreference: loop) { () async -> String in
            do {
                try await loop.clock.sleep(for: .seconds(1))
                return "slept"
            } catch {
                return "\((error as? CadenceError)?.name ?? "?")"
            }
        }
        try loop.close()  // the sleep ends with the close; the task's next job runs off the loop
        #expect(await task.value == "EBADF")
    }
}
