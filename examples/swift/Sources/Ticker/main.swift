// Prints the fire dates of a 0.1 s timer for 0.55 s, then exits 0 if it ticked 4 to 6 times.
import Cadence
import FoundationEssentials
import Glibc

let loop = try Loop()
let start = loop.now
var fireDates: [Date] = []

let publisher = try TimerPublisher(every: 0.1, tolerance: 0.01, on: loop, in: .common)
let subscription = publisher.sink { fireDate in
    fireDates.append(fireDate)
    let offset = fireDate.timeIntervalSince(start) * 1000
    print("tick \(fireDates.count) at +\(Int(offset.rounded())) ms")
}
let connection = publisher.connect()
try loop.run(for: 0.55)
connection.cancel()
subscription.cancel()
try loop.close()

print("\(fireDates.count) ticks")
exit(fireDates.count >= 4 && fireDates.count <= 6 ? 0 : 1)
