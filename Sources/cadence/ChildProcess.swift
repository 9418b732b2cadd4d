import Glibc

/// Child processes for `cadence every`: started with `posix_spawnp`, waited for on a thread of
/// their own so that the loop that started them never blocks.
enum ChildProcess {
    /// How a child ended.
    enum Termination: Equatable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        /// The status a shell would report: the exit status, or 128 plus the signal.
        var shellStatus: Int32 {
            switch self {
            case .exited(let status): status
            case .signaled(let signal): 128 + signal
            }
        }

        /// Whether it exited with status 0.
        var succeeded: Bool { self == .exited(0) }

        /// The exit status as a number, or the signal's name, such as `SIGINT`.
        var description: String {
            switch self {
            case .exited(let status): String(status)
            case .signaled(let signal): ChildProcess.signalName(signal)
            }
        }

        /// Decodes a status filled in by `waitpid` (the `WIFEXITED` and `WTERMSIG` macros, which
        /// Swift does not import).
        init(waitStatus: Int32) {
            let signal = waitStatus & 0x7f
            self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(signal)
        }
    }

    /// Starts `arguments[0]`, looked up in `PATH` as a shell does, with `arguments` as its argument
    /// vector, this process's environment and standard streams, no blocked signals, and the
    /// default handling of SIGINT, SIGTERM and SIGPIPE.
    ///
    /// - Returns: the child's process id, or the error number `posix_spawnp` returned (such as
    ///   `ENOENT` for a program that is not found).
    static func spawn(_ arguments: [String]) -> Result<pid_t, SpawnError> {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        guard !argv.dropLast().contains(nil) else { return .failure(SpawnError(code: ENOMEM)) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let code = posix_spawnp(&pid, arguments[0], nil, &attributes, argv, environ)
        return code == 0 ? .success(pid) : .failure(SpawnError(code: code))
    }

    /// Waits for child `pid` on a new detached thread and then calls `onExit` there with how it
    /// ended. If no thread can be started, waits on the calling thread instead.
    static func wait(for pid: pid_t, onExit: @escaping @Sendable (Termination) -> Void) {
        let waiter = Waiter(pid: pid, onExit: onExit)
        let context = Unmanaged.passRetained(waiter).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Waiter>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        if status == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Waiter>.fromOpaque(context).takeRetainedValue().run()
        }
    }

    /// `SIGINT` for 2, and so on for the signals that commonly end a command; `signal N` otherwise.
    static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
            SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
            SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
        ]
        return names[signal] ?? "signal \(signal)"
    }

    /// Why a child could not be started.
    struct SpawnError: Error, Equatable {
        /// The error number.
        let code: Int32

        /// The system's message for it, such as `No such file or directory`.
        var message: String { String(cString: strerror(code)) }
    }

    /// The body of a waiting thread.
    private final class Waiter: @unchecked Sendable {
        let pid: pid_t
        let onExit: @Sendable (Termination) -> Void

        init(pid: pid_t, onExit: @escaping @Sendable (Termination) -> Void) {
            self.pid = pid
            self.onExit = onExit
        }

        func run() {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 {
                guard errno == EINTR else {
                    // Not our child any more (it cannot happen here); report it as a failure.
                    status = 127 << 8
                    break
                }
            }
            onExit(Termination(waitStatus: status))
        }
    }
}
