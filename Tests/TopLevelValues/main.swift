// Top-level code of a main.swift that awaits: the compiler never destroys a `for` loop's iterator
// here, so an iteration must end its subscription without the iterator's deinit. Run by
// AsyncValuesTests, which checks the lines it prints.
import Cadence

let loop = try Loop()
try loop.startThread()
let timer = try TimerPublisher(every: .milliseconds(5), on: loop, in: .common).autoconnect()

// first: the subscription ends as the third value is handed out.
var count = 0
for await _ in timer.values.first(3) { count += 1 }
print("first: \(count) values, \(timer.subscriberCount) subscribers, \(loop.armedTimerCount) armed")

// A cancelled task: its iteration ends at once, its subscription with it.
let waiting = Task { for await _ in timer.values {} }
while timer.subscriberCount == 0 { await Task.yield() }
waiting.cancel()
await waiting.value
print("cancelled: \(timer.subscriberCount) subscribers, \(loop.armedTimerCount) armed")

try loop.stopThread()
try loop.close()
