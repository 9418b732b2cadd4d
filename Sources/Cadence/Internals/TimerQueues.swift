/// A loop's armed timers: per run loop mode, one heap by fire date and one by the end of each
/// timer's tolerance window, plus the registry of modes.
///
/// Mode names are interned to small indices when a timer is created, so arming and firing never
/// hash a string. Index 0 is `default`, index 1 is the `common` pseudo-mode.
struct TimerQueues {
    static let defaultIndex = 0
    static let commonIndex = 1

    private var heaps = [TimerHeap<ByFireDate>(), TimerHeap<ByFireDate>()]
    private var windows = [TimerHeap<ByLatestFireDate>(), TimerHeap<ByLatestFireDate>()]
    private var indexByName: [RunLoopMode: Int] = [.default: 0, .common: 1]
    /// Whether each mode is registered as common (`common` itself is not a mode to run in).
    private var isCommon = [true, false]
    private var nextSequence: UInt64 = 0

    /// The index of a registered mode.
    func index(of mode: RunLoopMode) throws(CadenceError) -> Int {
        // The built-in modes, by far the most used, need no checks, compare or hash.
        if let builtin = mode.builtinIndex { return builtin }
        guard mode.isWellFormed else { throw .invalidArgument }
        guard let index = indexByName[mode] else { throw .unknownMode }
        return index
    }

    /// Registers a mode (idempotent); `common: true` also makes it a common mode.
    mutating func register(_ mode: RunLoopMode, common: Bool) throws(CadenceError) {
        guard mode.isWellFormed, mode != .common else { throw .invalidArgument }
        if let index = indexByName[mode] {
            if common { isCommon[index] = true }
            return
        }
        indexByName[mode] = heaps.count
        heaps.append(TimerHeap())
        windows.append(TimerHeap())
        isCommon.append(common)
    }

    mutating func insert(_ node: TimerNode) {
        node.sequence = nextSequence
        nextSequence &+= 1
        node.latestFireDate = node.fireDate.saturatingAdd(node.tolerance)
        heaps[node.modeIndex].insert(node)
        windows[node.modeIndex].insert(node)
    }

    mutating func remove(_ node: TimerNode) {
        if node.heapIndex >= 0 { heaps[node.modeIndex].remove(node) }
        if node.latestIndex >= 0 { windows[node.modeIndex].remove(node) }
    }

    /// When to wake next while running in `mode`: let D be the earliest end of a tolerance
    /// window among the eligible timers; wake at the latest fire date not after D. Every timer due
    /// by then fires in that wake-up, each within its window, and a lone timer fires on time. This
    /// greedy choice stabs every window with as few wake-ups as any schedule can.
    func nextWake(runningIn mode: Int) -> Nanoseconds? {
        let includeCommon = isCommon[mode]
        var limit = windows[mode].first?.latestFireDate
        if includeCommon, let common = windows[Self.commonIndex].first?.latestFireDate {
            limit = min(limit ?? common, common)
        }
        guard let limit else { return nil }
        var wake = heaps[mode].latestKey(notAfter: limit)
        if includeCommon, let common = heaps[Self.commonIndex].latestKey(notAfter: limit) {
            wake = max(wake ?? common, common)
        }
        return wake
    }

    /// Removes and appends to `due`, in fire-date order (ties in scheduling order), every timer
    /// eligible in `mode` whose fire date is not after `now`.
    mutating func popDue(runningIn mode: Int, now: Nanoseconds, into due: inout [TimerNode]) {
        let includeCommon = isCommon[mode]
        while true {
            var source = mode
            var next = heaps[mode].first
            if includeCommon, let common = heaps[Self.commonIndex].first,
               next.map({ common.precedes($0) }) ?? true {
                source = Self.commonIndex
                next = common
            }
            guard let node = next, node.fireDate <= now else { return }
            heaps[source].remove(node)
            windows[source].remove(node)
            due.append(node)
        }
    }

    /// Empties every heap and returns the timers that were armed.
    mutating func removeAll() -> [TimerNode] {
        var all: [TimerNode] = []
        for index in heaps.indices {
            all += heaps[index].removeAll()
            _ = windows[index].removeAll()
        }
        return all
    }

    /// How many timers are armed, in all modes.
    var count: Int { heaps.reduce(0) { $0 + $1.count } }
}
