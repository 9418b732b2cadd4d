extension Loop {
    /// Whether Cadence hands freed heap pages back to the system when one of its timer tables
    /// grows past 1 MB, by calling glibc's `malloc_trim(0)`; `false` (the default) until the
    /// program sets it.
    ///
    /// A table that grows moves to a buffer twice its size and frees the old one, whose pages
    /// glibc keeps resident until something reuses them: about 17 bytes per timer at 10⁶ timers.
    /// `malloc_trim(0)` gives them back, but it walks and trims the whole process's heap, so it is
    /// the program's choice, not a library's: set this in a program that arms hundreds of
    /// thousands of timers and watches its resident memory. Process-wide, for every loop; any
    /// thread, at any time (a table that grows after the change follows it). Cadence's tables give
    /// back the pages of an emptied buffer without it (`madvise`), whatever this says.
    /// (`cadence_set_trim_memory` in C, `cadence.set_trim_memory` in Python.)
    public static var trimsMemory: Bool {
        get { FreedMemory.trims.load(ordering: .relaxed) }
        set { FreedMemory.trims.store(newValue, ordering: .relaxed) }
    }

    /// How many `malloc_trim(0)` calls Cadence has made in this process (see ``trimsMemory``):
    /// 0 unless a program turned trimming on and a table then grew past 1 MB.
    /// (`cadence_memory_trims` in C, `cadence.memory_trims` in Python.)
    public static var memoryTrims: UInt64 { FreedMemory.trimCount.load(ordering: .relaxed) }
}
