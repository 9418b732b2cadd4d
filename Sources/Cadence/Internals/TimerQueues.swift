/// A loop's armed timers: one heap per run loop mode, plus the registry of modes.
///
/// Mode names are interned to small indices when a timer is created, so arming and firing never
/// hash a string. Index 0 is `default`, index 1 is the `common` pseudo-mode.
struct TimerQueues {
    static let defaultIndex = 0
    static let commonIndex = 1

    private var heaps = [TimerHeap(), TimerHeap()]
    private var indexByName: [String: Int] = ["default": 0, "common": 1]
    /// Whether each mode is registered as common (`common` itself is not a mode to run in).
    private var isCommon = [true, false]
    private var nextSequence: UInt64 = 0

    /// The index of a registered mode.
    func index(of mode: RunLoopMode) throws(CadenceError) -> Int {
        guard mode.isWellFormed else { throw .invalidArgument }
        guard let index = indexByName[mode.name] else { throw .unknownMode }
        return index
    }

    /// Registers a mode (idempotent); `common: true` also makes it a common mode.
    mutating func register(_ mode: RunLoopMode, common: Bool) throws(CadenceError) {
        guard mode.isWellFormed, mode != .common else { throw .invalidArgument }
        if let index = indexByName[mode.name] {
            if common { isCommon[index] = true }
            return
        }
        indexByName[mode.name] = heaps.count
        heaps.append(TimerHeap())
        isCommon.append(common)
    }

    mutating func insert(_ node: TimerNode) {
        node.sequence = nextSequence
        nextSequence &+= 1
        heaps[node.modeIndex].insert(node)
    }

    mutating func remove(_ node: TimerNode) {
        if node.heapIndex >= 0 { heaps[node.modeIndex].remove(node) }
    }

    /// The earliest fire date among timers that may fire while running in `mode`.
    func earliestFireDate(runningIn mode: Int) -> Nanoseconds? {
        let own = heaps[mode].first
        guard isCommon[mode], let common = heaps[Self.commonIndex].first else { return own?.fireDate }
        guard let own else { return common.fireDate }
        return own.precedes(common) ? own.fireDate : common.fireDate
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
            due.append(node)
        }
    }

    /// Empties every heap and returns the timers that were armed.
    mutating func removeAll() -> [TimerNode] {
        var all: [TimerNode] = []
        for index in heaps.indices { all += heaps[index].removeAll() }
        return all
    }

    /// How many timers are armed, in all modes.
    var count: Int { heaps.reduce(0) { $0 + $1.count } }
}
