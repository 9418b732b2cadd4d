// Prints the fire dates of a 100 ms timer for 550 ms, then exits 0 if it ticked 4 to 6 times.
import Cadence
import FoundationEssentials
import Glibc
import Synchronization

let loop = try Loop()
let start = loop.now
// Callbacks are @Sendable (a loop may run them on its own thread): the dates live in a Mutex.
let fireDates = Mutex<[Date]>([])

let publisher = try TimerPublisher(every: .milliseconds(100), tolerance: .milliseconds(10), on: loop, in: .common)
let subscription = publisher.sink { fireDate in
    let count = fireDates.withLock { dates in
        dates.append(fireDate)
        return dates.count
    }
    let offset = fireDate.timeIntervalSince(start) * 1000
    print("tick \(count) at +\(Int(offset.rounded())) ms")
}
let connection = publisher.connect()
try loop.run(for: .milliseconds(550))
connection.cancel()
subscription.cancel()
try loop.close()

let count = fireDates.withLock { $0.count }
print("\(count) ticks")
exit(count >= 4 && count <= 6 ? 0 : 1)
