/// Order statistics of a sample of latenesses.
struct LatenessSummary: Equatable {
    /// How many values the sample holds.
    let count: Int
    /// Median by nearest rank; nil for an empty sample.
    let p50: Double?
    /// 99th percentile by nearest rank; nil for an empty sample.
    let p99: Double?
    /// The largest value; nil for an empty sample.
    let max: Double?
    /// How many values are below zero (a fire before its fire date).
    let early: Int

    /// Summarizes `values` (any order).
    init(_ values: [Double]) {
        let sorted = values.sorted()
        count = sorted.count
        p50 = Self.nearestRank(sorted, percent: 50)
        p99 = Self.nearestRank(sorted, percent: 99)
        max = sorted.last
        early = sorted.prefix { $0 < 0 }.count
    }

    /// The nearest-rank percentile of an ascending sample: the value at rank ⌈p·n/100⌉ (1-based),
    /// so that at least `percent` % of the values are at or below it. Nil for an empty sample.
    static func nearestRank(_ sorted: [Double], percent: Int) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = (percent * sorted.count + 99) / 100
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }
}
