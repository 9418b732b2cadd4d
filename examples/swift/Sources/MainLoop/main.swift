// A program whose main executor is a Cadence loop: every task and every `Task.sleep` in it runs on
// the loop (Loop.runMain, in the CadenceTasks product). It prints what it checks and exits 0 if
// all of it held: the main actor's sleeps are the loop's timers and never end early, and the
// sleeps of 100 tasks at random phases share the loop's wake-ups through their tolerance.
import Cadence
import CadenceTasks
import Glibc

let clock = ContinuousClock()

let passed = try Loop.runMain { loop in
    var ok = true

    // A heartbeat on the main actor: each sleep is a one-shot timer of the loop.
    for beat in 1...5 {
        let armedBefore = loop.armedTimerCount
        let probe = Task {  // wakes while the main actor sleeps
            try await Task.sleep(for: .milliseconds(50))
            return loop.armedTimerCount
        }
        let start = clock.now
        try await Task.sleep(for: .milliseconds(100), tolerance: .milliseconds(10))
        let late = start.duration(to: clock.now) - .milliseconds(100)
        let armed = try await probe.value
        let microseconds = late.components.seconds * 1_000_000 + late.components.attoseconds / 1_000_000_000_000
        print("beat \(beat): slept 100 ms + \(microseconds) us, timers armed while asleep: \(armed)")
        ok = ok && late >= .zero && armed == armedBefore + 1
    }

    // 100 tasks, each sleeping 1 s in a loop from a random phase with 100 ms of tolerance, for 3 s.
    let wakeups = loop.wakeups
    let start = clock.now
    let sleepers = (0..<100).map { _ in
        Task.detached { () async -> (woke: Int, early: Int) in
            var woke = 0, early = 0
            try? await Task.sleep(for: .milliseconds(Int.random(in: 0..<1000)), tolerance: .milliseconds(100))
            while !Task.isCancelled {
                let asleep = clock.now
                do { try await Task.sleep(for: .seconds(1), tolerance: .milliseconds(100)) } catch { break }
                woke += 1
                if asleep.duration(to: clock.now) < .seconds(1) { early += 1 }
            }
            return (woke, early)
        }
    }
    try await Task.sleep(for: .seconds(3))
    for sleeper in sleepers { sleeper.cancel() }
    let armedAfterCancel = loop.armedTimerCount
    var woke = 0, early = 0
    for sleeper in sleepers {
        let counts = await sleeper.value
        woke += counts.woke
        early += counts.early
    }
    let seconds = Double(start.duration(to: clock.now).components.seconds)
        + Double(start.duration(to: clock.now).components.attoseconds) / 1e18
    let perSecond = Double(loop.wakeups - wakeups) / seconds
    print("100 tasks sleeping 1 s (10 % tolerance) for 3 s: \(woke) wake-ups of tasks, \(early) early, "
          + "\(Int(perSecond.rounded())) loop wake-ups a second, \(armedAfterCancel) timers left after cancel")
    // Without coalescing the loop would wake about 100 times a second; with it about 10.
    ok = ok && early == 0 && woke >= 100 && perSecond <= 20 && armedAfterCancel == 0
    return ok
}
print(passed ? "all checks passed" : "a check failed")
exit(passed ? 0 : 1)
