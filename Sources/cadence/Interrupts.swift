import Glibc

/// SIGINT and SIGTERM delivered as ordinary calls on a thread of their own, so that a command can
/// stop its loop cleanly: a signal handler could not take the locks a loop call takes.
enum Interrupts {
    /// The signals that are watched.
    static let signals = [SIGINT, SIGTERM]

    /// Blocks SIGINT and SIGTERM in the calling thread, and so in every thread it starts later
    /// (call it before starting any), and starts a detached thread that waits for them with
    /// `sigwait` and calls `handler` with each one's number, on that thread.
    ///
    /// Children started with ``ChildProcess/spawn(_:)`` unblock them again. Returns false, with the
    /// mask unchanged, if no thread could be started: the signals then end the process as usual.
    @discardableResult
    static func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> Bool {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &set, &previous)
        let watcher = Watcher(set: set, handler: handler)
        let context = Unmanaged.passRetained(watcher).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Watcher>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Watcher>.fromOpaque(context).release()
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// The body of the watching thread; it lives as long as the process.
    private final class Watcher: @unchecked Sendable {
        var set: sigset_t
        let handler: @Sendable (Int32) -> Void

        init(set: sigset_t, handler: @escaping @Sendable (Int32) -> Void) {
            self.set = set
            self.handler = handler
        }

        func run() {
            while true {
                var signal: Int32 = 0
                if sigwait(&set, &signal) == 0 { handler(signal) }
            }
        }
    }
}
