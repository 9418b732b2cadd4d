import Synchronization

/// The ``PlainTimerHandler`` types that timers' slots name by one byte (``TimerAction``), where
/// the type itself (an existential metatype: two words) would make every slot 16 bytes larger.
///
/// Kind 0 is ``ClosureHandler``; each other type registers once (``PlainTimerHandler/kind``, a
/// `static let` of the conforming type), in the order they are first used. The table is written
/// only by a registration, under `lock`, before the kind is handed out; a slot reads its kind's
/// entry after the kind reached it (through the `static let`'s once-only initialisation and the
/// loop's lock), so every read sees the entry written. A program has a handful of such types
/// (the C layer's four); a ninth is a programming error and stops the program with its name: a
/// slot keeps the kind in 3 bits of a byte (``StoredAction``).
package enum HandlerKinds {
    private static let limit = StoredAction.kindLimit
    nonisolated(unsafe) private static let types: UnsafeMutablePointer<(any PlainTimerHandler.Type)?> = {
        let types = UnsafeMutablePointer<(any PlainTimerHandler.Type)?>.allocate(capacity: limit)
        types.initialize(repeating: nil, count: limit)
        types[0] = ClosureHandler.self
        return types
    }()
    private static let registered = Mutex(1)

    /// The kind of `type`, registering it if it is new. Call it once per type, from its
    /// ``PlainTimerHandler/kind``.
    package static func register(_ type: any PlainTimerHandler.Type) -> UInt8 {
        registered.withLock { count in
            for kind in 0..<count where types[kind] == type { return UInt8(kind) }
            precondition(count < limit, "more than \(limit) timer handler types: \(type)")
            types[count] = type
            count += 1
            return UInt8(count - 1)
        }
    }

    /// The type of a registered kind.
    @inline(__always)
    static func type(of kind: UInt8) -> any PlainTimerHandler.Type {
        types[Int(kind)].unsafelyUnwrapped
    }
}
