// CadenceMemory - where the memory of N tasks that sleep on a loop and are cancelled goes.
//
// Run: CadenceMemory PART [N] [trim]     (N = 100000; `trim` calls malloc_trim(0) before reading
// the figures after, to tell free-but-resident memory from memory in use, and lets Cadence's
// tables trim as they grow, Loop.trimsMemory, off by default since 0.5)
//
// Parts, each run in a process of its own:
//   plain       N tasks on the global executor awaiting a continuation, cancelled (no Cadence):
//               the floor, what the Swift runtime's tasks cost
//   dispatch    N tasks on the global executor in Task.sleep (Dispatch's timers), cancelled
//   loop-await  N tasks on a virtual loop's executor awaiting a continuation, cancelled
//   loop-sleep  N tasks on a virtual loop's executor in Task.sleep (Cadence timers), cancelled
//   real-sleep  the same on a real loop run by its own thread
//   timers      N Cadence one-shots armed and cancelled, no task
//
// Each part runs a round of N/10 first (the allocator and the loop's tables warm), reads "before",
// runs N, reads "peak" with all N waiting, cancels them, waits for every task to end, drops them
// and reads "after"; then a second round of N reads "again" (memory reused or grown).
// Figures: RSS (/proc/self/statm) and glibc's mallinfo2(): arena (bytes from the system, not
// mmapped), in use, free chunks, mmapped; and the number of malloc arenas (malloc_info).
import Cadence
import CadenceTasks
import Dispatch
import CMalloc
import Glibc
import Synchronization

// MARK: Reading memory

func residentBytes() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0, resident = 0
    withUnsafeMutablePointer(to: &size) { s in
        withUnsafeMutablePointer(to: &resident) { r in
            _ = withVaList([s, r]) { vfscanf(file, "%ld %ld", $0) }
        }
    }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// How many arenas glibc's malloc has (the `<heap nr=` elements of malloc_info's XML).
func arenaCount() -> Int {
    var buffer: UnsafeMutablePointer<CChar>?
    var length = 0
    guard let stream = open_memstream(&buffer, &length) else { return -1 }
    _ = malloc_info(0, stream)
    fclose(stream)
    guard let buffer else { return -1 }
    defer { free(buffer) }
    return String(cString: buffer).split(separator: "<heap nr=", omittingEmptySubsequences: false).count - 1
}

/// The resident sizes of the process's anonymous mappings of 1 MB or more (/proc/self/smaps):
/// mmapped allocations and the arenas' heaps.
func largeMappings() -> String {
    guard let file = fopen("/proc/self/smaps", "r") else { return "" }
    defer { fclose(file) }
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    var sizes: [String] = []
    var anonymous = false
    var size = 0
    while getline(&line, &capacity, file) > 0, let line {
        let text = String(cString: line)
        if let dash = text.firstIndex(of: "-"), text.first?.isHexDigit == true {
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
            anonymous = fields.count < 6
            let range = fields[0].split(separator: "-")
            size = Int(truncatingIfNeeded: (UInt(range[1], radix: 16) ?? 0) &- (UInt(range[0], radix: 16) ?? 0))
            _ = dash
        } else if anonymous, size >= 1 << 20, text.hasPrefix("Rss:") {
            let kb = Int(text.split(separator: " ")[1]) ?? 0
            sizes.append("\(mb(kb * 1024))/\(mb(size))")
        }
    }
    free(line)
    return sizes.joined(separator: " ")
}

func mb(_ bytes: Int) -> String {
    let tenths = (bytes + 50_000) / 100_000
    return "\(tenths / 10).\(tenths % 10)"
}

func report(_ part: String, _ stage: String) {
    let info = mallinfo2()
    print("\(part)\t\(stage)\tRSS \(mb(residentBytes())) MB\tarena \(mb(Int(info.arena)))\tin use \(mb(Int(info.uordblks)))"
        + "\tfree \(mb(Int(info.fordblks)))\tmmapped \(mb(Int(info.hblkhd)))\tarenas \(arenaCount())")
    if showMappings { print("\tanonymous mappings of 1 MB or more, resident/size MB: \(largeMappings())") }
}

// MARK: What waits

/// A continuation resumed by whichever comes first of `resume()` and the task's cancellation.
final class Waiter: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Void, Never>?, done: Bool)>((nil, false))

    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.done { return true }
                    state.continuation = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            resume()
        }
    }

    func resume() {
        let continuation = state.withLock { state in
            state.done = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
}

/// Counts the tasks that started waiting.
let started = Atomic<Int>(0)

func waitUntilStarted(_ count: Int) {
    while started.load(ordering: .acquiring) < count { usleep(1000) }
}

func waitUntil(_ condition: () -> Bool) {
    while !condition() { usleep(1000) }
}

// MARK: Parts

/// Starts `count` tasks that wait (see the parts) and returns once all of them wait; the returned
/// function cancels them and returns once every one has ended (reporting the peak first if asked).
func tasks(_ part: String, count: Int, loop: Loop?, sleep: Bool) async -> (_ peak: Bool) async -> Void {
    started.store(0, ordering: .releasing)
    let made: [Task<Void, Never>] = (0..<count).map { _ in
        let body: @Sendable () async -> Void = {
            if sleep {
                started.add(1, ordering: .releasing)
                try? await Task.sleep(for: .seconds(3600))
            } else {
                let waiter = Waiter()
                started.add(1, ordering: .releasing)
                await waiter.wait()
            }
        }
        if let loop { return Task(executorPreference: loop, operation: body) }
        return Task(operation: body)
    }
    if let loop, loop.isVirtual { try? await loop.settle() }
    waitUntilStarted(count)
    if let loop, sleep { waitUntil { loop.armedTimerCount == count } }
    return { peak in
        if peak { report(part, "peak") }
        for task in made { task.cancel() }
        if let loop, sleep, loop.armedTimerCount != 0 { print("armed after cancel: \(loop.armedTimerCount)") }
        for task in made { await task.value }
    }
}

func timers(count: Int, on loop: Loop) throws -> () -> Void {
    let made = try (0..<count).map { _ in try loop.schedule(after: .seconds(3600)) { _ in } }
    return {
        for timer in made { timer.cancel() }
        try? loop.run(for: 0)
    }
}

let arguments = CommandLine.arguments
let part = arguments.count > 1 ? arguments[1] : "loop-sleep"
let count = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
let trim = arguments.contains("trim")
Loop.trimsMemory = trim
let showMappings = arguments.contains("maps")

func measure(_ part: String) async throws {
    let loop: Loop?
    switch part {
    case "plain", "dispatch": loop = nil
    case "real-sleep", "timers":
        loop = try Loop()
        if part == "real-sleep" { try loop?.startThread() }
    case "loop-await", "loop-sleep": loop = Loop.virtual()
    default: print("unknown part \(part)"); exit(2)
    }
    let sleep = part.hasSuffix("sleep")
    func one(_ n: Int, peak: Bool) async throws {
        if part == "timers", let loop {
            let cancel = try timers(count: n, on: loop)
            if peak { report(part, "peak") }
            cancel()
        } else {
            await tasks(part, count: n, loop: loop, sleep: sleep)(peak)
        }
    }
    try await one(count / 10, peak: false)
    if trim { _ = malloc_trim(0) }
    report(part, "before")
    try await one(count, peak: true)
    if let loop { print("\(part)\tarmed timers \(loop.armedTimerCount)") }
    usleep(100_000)  // threads that release the last references settle
    report(part, "after")
    if trim { _ = malloc_trim(0); report(part, "trimmed") }
    try await one(count, peak: false)
    usleep(100_000)
    report(part, "again")
    if let loop, part == "real-sleep" { try loop.stopThread() }
}

try await measure(part)
