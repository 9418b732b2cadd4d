import Glibc

/// A thread that Cadence starts to run one loop until told to stop (the dispatch-timer use: timers
/// without running a loop yourself).
// Unchecked: `thread` is written once, by `start()`, before the thread runs or anyone joins it.
final class LoopThread: @unchecked Sendable {
    private let loop: Loop
    private let mode: RunLoopMode
    private var thread = pthread_t()

    init(loop: Loop, mode: RunLoopMode) {
        self.loop = loop
        self.mode = mode
    }

    /// Starts the thread; returns false if the system refused.
    func start() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            let me = Unmanaged<LoopThread>.fromOpaque(context!).takeRetainedValue()
            me.body()
            return nil
        }, context)
        if status != 0 { Unmanaged<LoopThread>.fromOpaque(context).release() }
        return status == 0
    }

    /// Whether the caller is this thread.
    var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }

    /// Waits for the thread to end; the loop must have been told to stop.
    func join() { pthread_join(thread, nil) }

    private func body() {
        // Each run lasts until a stop: `stop()` ends one and the thread starts the next, until
        // `stopThread()` has asked it to end.
        while (try? loop.runOnOwnThread(mode: mode)) == true {}
    }
}
