import Glibc
import Testing

/// `Loop.runMain`: a program whose main and default executors are a Cadence loop
/// (Tests/MainOnLoop, a process of its own, since a process sets its main executor once).
@Suite struct RunMainTests {
    @Test func everyTaskAndSleepOfTheProgramRunsOnTheLoop() throws {
        let (status, output) = try runProgram("MainOnLoop")
        #expect(status == 0)
        #expect(output == """
            main actor on the loop's thread: true
            the loop is the global executor: true
            Task {} on the loop's thread: true
            Task.detached on the loop's thread: true
            @concurrent function on the loop's thread: true
            an actor on the loop's thread: true, on the loop's executor: true
            a main-actor sleep is a loop timer: 1 armed, early: false
            10 sleeps with overlapping tolerance: 10 on time, 1 wake-up
            a cancelled hour-long sleep: 1 armed, 0 after cancel(), cancelled: true
            runMain returned: done

            """)
    }

    @Test func aBodysErrorIsThrownAndASecondCallIsRefused() throws {
        let (status, output) = try runProgram("MainOnLoop", "errors")
        #expect(status == 0)
        #expect(output == """
            a body's error comes out of runMain: true
            a second runMain: true, Loop.runMain(_:): runMain must be called once per process \
            (the main executor is set once), got a second call

            """)
    }
}
