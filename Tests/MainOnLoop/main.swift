// A program whose main executor is a Cadence loop (`Loop.runMain`): RunMainTests runs it and
// compares what it prints. With the argument `errors` it checks the two ways runMain fails instead.
import Cadence
import CadenceTasks
import Glibc

let mainThread = pthread_self()
let clock = ContinuousClock()

/// Whether the caller runs on the program's main thread, inside the loop's run.
@Sendable func onTheLoop(_ loop: Loop) -> Bool {
    pthread_equal(pthread_self(), mainThread) != 0 && loop.isIsolatingCurrentContext()
}

/// A nonisolated async function: it runs on the default executor, which is the loop.
@concurrent func concurrentCheck(_ loop: Loop) async -> Bool { onTheLoop(loop) }

/// An actor with no executor of its own: it runs on the default executor, the loop.
actor Counter {
    func check(_ loop: Loop) -> Bool { onTheLoop(loop) }
}

/// An actor on the loop's serial executor, which is the main actor's too.
actor OnTheLoop {
    let loop: Loop
    init(_ loop: Loop) { self.loop = loop }
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    func check() -> Bool { onTheLoop(loop) }
}

struct BodyFailure: Error {}

if CommandLine.arguments.dropFirst().first == "errors" {
    do {
        _ = try Loop.runMain { _ in throw BodyFailure() }
    } catch {
        print("a body's error comes out of runMain: \(error is BodyFailure)")
    }
    do {
        _ = try Loop.runMain { _ in 0 }
    } catch let error as CadenceError {
        print("a second runMain: \(error == .busy), \(error.description)")
    }
    exit(0)
}

let result = try Loop.runMain { loop in
    print("main actor on the loop's thread: \(onTheLoop(loop))")
    print("the loop is the global executor: \((globalConcurrentExecutor as AnyObject) === loop)")
    print("Task {} on the loop's thread: \(await Task { onTheLoop(loop) }.value)")
    print("Task.detached on the loop's thread: \(await Task.detached { onTheLoop(loop) }.value)")
    print("@concurrent function on the loop's thread: \(await concurrentCheck(loop))")
    print("an actor on the loop's thread: \(await Counter().check(loop)), on the loop's executor: \(await OnTheLoop(loop).check())")

    // The probe wakes while the main actor sleeps: that sleep is then the loop's one timer.
    let probe = Task.detached {
        try await Task.sleep(for: .milliseconds(10))
        return loop.armedTimerCount
    }
    var start = clock.now
    try await Task.sleep(for: .milliseconds(200))
    let slept = start.duration(to: clock.now)
    print("a main-actor sleep is a loop timer: \(try await probe.value) armed, early: \(slept < .milliseconds(200))")

    // Deadlines 100 ms ... 190 ms, each with 100 ms of tolerance: one wake-up ends them all.
    let wakeups = loop.wakeups
    let sleepers = (0..<10).map { index in
        Task.detached { () async throws -> Bool in
            let start = clock.now
            try await Task.sleep(for: .milliseconds(100 + 10 * index), tolerance: .milliseconds(100))
            return start.duration(to: clock.now) >= .milliseconds(100 + 10 * index) && onTheLoop(loop)
        }
    }
    var onTime = 0
    for sleeper in sleepers where try await sleeper.value { onTime += 1 }
    print("10 sleeps with overlapping tolerance: \(onTime) on time, \(loop.wakeups - wakeups) wake-up")

    let long = Task.detached { try await Task.sleep(for: .seconds(3600)) }
    start = clock.now
    try await Task.sleep(for: .milliseconds(1))  // the long sleep begins meanwhile
    let armed = loop.armedTimerCount
    long.cancel()
    let afterCancel = loop.armedTimerCount
    let cancelled = await long.result
    print("a cancelled hour-long sleep: \(armed) armed, \(afterCancel) after cancel(), "
          + "cancelled: \((try? cancelled.get()) == nil)")
    return "done"
}
print("runMain returned: \(result)")
