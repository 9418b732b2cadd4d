// 100,000 tasks sleeping an hour on a virtual loop, then cancelled, in a process of its own:
// ManyCancelledSleepsTests runs it and compares what it prints, the line of figures aside.
//
// What it asserts: every timer is freed before `cancel()` returns, and the heap memory held
// (glibc's in-use bytes) comes back to within 10 % of its level before the sleeps, a first round
// of the same size having warmed the allocator and the loop's tables: nothing of the 100,000
// sleeps is kept, neither by Cadence nor by the runtime's sleep tasks (which Dispatch keeps until
// their deadline: an hour). Why held bytes and not RSS: once Swift's tasks end (1.7 KB each, 3.0
// KB in a `Task.sleep`), glibc keeps their freed chunks resident for reuse, with or without
// Cadence (Benchmarks/swift CadenceMemory: 100,000 plain tasks, 29 MB before, 185 MB after); a
// program's `malloc_trim(0)` hands them back, but the few chunks still in use among them keep
// their pages, so anonymous RSS after a trim is back to its level in most runs and up to about
// 25 MB above it in some (printed with the figures). Cadence's own tables give their pages back
// without a trim (Tests/C/timer_memory.c).
import Cadence
import CadenceTasks
import CLibUV  // glibc's malloc.h: mallinfo2
import Glibc

/// Anonymous resident bytes of this process (/proc/self/statm: resident less file-backed, so the
/// library code that a round pages in does not count).
func residentBytes() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var text = [CChar](repeating: 0, count: 256)
    guard fgets(&text, Int32(text.count), file) != nil else { return 0 }
    let line = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let pages = line.split(separator: " ").dropFirst().prefix(2).map { Int($0) ?? 0 }  // resident, shared
    return pages.count == 2 ? (pages[0] - pages[1]) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

/// Bytes of glibc's heap that something holds (mallinfo2's in use, mmapped chunks included).
func heldBytes() -> Int {
    let info = mallinfo2()
    return Int(info.uordblks + info.hblkhd)
}

/// glibc's `malloc_trim(0)` (not in the Glibc module): hands the allocator's free pages back.
func trim() {
    typealias Trim = @convention(c) (Int) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
    _ = unsafeBitCast(symbol, to: Trim.self)(0)
}

/// The most anonymous resident bytes seen with every task asleep.
nonisolated(unsafe) var peak = 0

/// Starts `count` tasks on `loop` that each sleep an hour, cancels them all once asleep, and
/// waits for them to end; returns the armed count with all asleep and right after the cancels.
func sleepAndCancel(_ count: Int, on loop: Loop) async throws -> (asleep: Int, afterCancel: Int) {
    let tasks = (0..<count).map { _ in
        Task(executorPreference: loop) { try? await Task.sleep(for: .seconds(3600)) }
    }
    try await loop.settle()
    peak = max(peak, residentBytes())
    let asleep = loop.armedTimerCount
    for task in tasks { task.cancel() }
    let afterCancel = loop.armedTimerCount
    for task in tasks { _ = await task.result }
    return (asleep, afterCancel)
}

let loop = Loop.virtual()
_ = try await sleepAndCancel(100_000, on: loop)  // a first round: the allocator and the tables warm
trim()
let (heldBefore, before) = (heldBytes(), residentBytes())
let (asleep, afterCancel) = try await sleepAndCancel(100_000, on: loop)
// The runtime's own job of each cancelled sleep, which the loop handed to the global executor at
// the cancel, frees itself there a moment later: read again until it has, or for 5 s.
var heldAfter = Int.max
for _ in 0..<500 {
    heldAfter = heldBytes()
    if heldAfter <= heldBefore + heldBefore / 10 { break }
    try await Task.sleep(for: .milliseconds(10))
}
trim()
let after = residentBytes()
print("figures: held \(heldBefore / 1000) kB before, \(heldAfter / 1000) kB after; anonymous RSS "
      + "\(before / 1000) kB before, \(peak / 1000) kB with all asleep, \(after / 1000) kB after a trim")
print("armed with 100,000 asleep: \(asleep)")
print("armed after cancel() returned: \(afterCancel)")
print("memory held within 10 % of before: \(heldAfter <= heldBefore + heldBefore / 10)")
print("virtual clock moved: \(loop.now.timeIntervalSince1970 != 0)")
