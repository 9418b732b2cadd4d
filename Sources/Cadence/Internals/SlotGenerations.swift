/// The generations a timer table's slots start at once the slots themselves are gone: a table
/// that emptied and gave its memory back (``TimerQueues/giveSlotsBack()``), or a closed loop's,
/// for the loop that takes its place in the registry. Per chunk of 4,096 slot indexes, a floor
/// at or past the next generation of every slot in it; and the slots retired for good. So a loop
/// that armed and cancelled 10⁷ timers keeps about 10 KB here, not 4 bytes per slot (40 MB:
/// 3.3 % of its peak, measured with `CadenceBench giveback`).
///
/// A slot made again starts at its chunk's floor, past every generation it handed out (the
/// floor is the largest of the chunk's), so no id or handle names a later timer. What it costs:
/// a slot's generations jump to its busiest neighbour's, which brings its retirement (after
/// ``TimerID/generationLimit`` − 1 timers) earlier; a retirement costs one slot.
struct SlotGenerations: Sendable {
    private static let chunk = 4096
    private var floors: [UInt32] = []
    private var retired: Set<UInt32> = []

    /// The generation a slot made at `index` starts at; ``TimerID/generationLimit`` for a retired one.
    func start(of index: Int) -> UInt32 {
        if !retired.isEmpty && retired.contains(UInt32(index)) { return TimerID.generationLimit }
        let chunk = index / Self.chunk
        return chunk < floors.count ? floors[chunk] : 1
    }

    /// Makes the slot at `index` start at or past `generation` (at the limit: retired).
    mutating func raise(_ index: Int, to generation: UInt32) {
        guard generation < TimerID.generationLimit else {
            retired.insert(UInt32(index))
            return
        }
        let chunk = index / Self.chunk
        if chunk >= floors.count { floors += repeatElement(1, count: chunk + 1 - floors.count) }
        floors[chunk] = max(floors[chunk], generation)
    }

    /// For tests of retirement: every floor moved `reuses` further, as if each slot had held
    /// that many more timers, up to the limit (a whole chunk retired).
    mutating func age(by reuses: UInt32) {
        for chunk in floors.indices {
            floors[chunk] = UInt32(min(UInt64(floors[chunk]) + UInt64(reuses), UInt64(TimerID.generationLimit)))
        }
    }
}
