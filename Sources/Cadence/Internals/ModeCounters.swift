/// One counter per mode index, in memory of its own: what arming and ending a timer update (the
/// referenced timers of each mode, TimerQueues+References.swift).
///
/// Not an array: as the elements of an array stored in ``TimerQueues``, each update cost a
/// uniqueness check and a bounds check (`Benchmarks/profile.py`, Swift API, instructions per
/// operation against none of this bookkeeping: start 610 → 686, cancel 383 → 418, fire 606 → 639;
/// with these counters, and `Loop.arm` inlined again, 615, 395 and 616). Copies of a
/// ``TimerQueues`` share the counters; only the loop's own one is ever mutated.
final class ModeCounters {
    private var counts: UnsafeMutablePointer<Int>
    private(set) var count: Int
    private var capacity: Int

    init(count: Int) {
        self.count = count
        capacity = max(count, 8)
        counts = .allocate(capacity: capacity)
        counts.initialize(repeating: 0, count: capacity)
    }

    deinit { counts.deallocate() }

    /// The counter of mode `index` (< ``count``).
    @inline(__always)
    subscript(index: Int) -> Int {
        get { counts[index] }
        set { counts[index] = newValue }
    }

    /// Adds a counter at 0 for a newly registered mode.
    func append() {
        if count == capacity {
            let grown = UnsafeMutablePointer<Int>.allocate(capacity: 2 * capacity)
            grown.moveInitialize(from: counts, count: capacity)
            grown.advanced(by: capacity).initialize(repeating: 0, count: capacity)
            counts.deallocate()
            counts = grown
            capacity *= 2
        }
        count += 1
    }

    /// Sets every counter to 0.
    func reset() { counts.update(repeating: 0, count: count) }

    /// The counters, for tests.
    var values: [Int] { (0..<count).map { counts[$0] } }
}
