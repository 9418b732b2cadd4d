/// The messages of the engine's errors: each names the argument, its value and the rule. They are
/// made only when an error is thrown, in functions kept out of line, so that a check on a hot path
/// stays one compare and a branch to a call that never runs on success.
///
/// New code throws in one line: `throw .invalidArgument.with("limit must be >= 0, got \(limit)")`
/// or one of the helpers below; a public function names itself with
/// `catch { throw error.in("Type.function(label:)") }`.
extension CadenceError {
    /// This error's code with `message`: the argument, its value and the rule.
    @inline(never)
    package func with(_ message: String) -> CadenceError {
        CadenceError(code: code, message: message)
    }

    /// A bad number of seconds: `"tolerance must be >= 0 and finite, got -1.0"`.
    @inline(never)
    package static func badSeconds(_ argument: StaticString, _ seconds: Double, allowZero: Bool) -> CadenceError {
        invalidArgument.with("\(argument) must be \(allowZero ? ">= 0" : "> 0") and finite, got \(seconds)")
    }

    /// A date on a loop's monotonic clock that names no time: NaN or infinite seconds.
    @inline(never)
    package static func badMonotonicDate(_ argument: StaticString, _ seconds: Double) -> CadenceError {
        invalidArgument.with("\(argument) must be finite seconds of the loop's monotonic clock, got \(seconds)")
    }

    /// A bad `Duration`, shown as the caller wrote it (a `Duration` is always finite):
    /// `"interval must be > 0, got .milliseconds(-5)"`.
    @inline(never)
    package static func badDuration(_ argument: StaticString, _ duration: Duration, allowZero: Bool) -> CadenceError {
        invalidArgument.with("\(argument) must be \(allowZero ? ">= 0" : "> 0"), got \(duration.shownInMessages)")
    }

    /// A bad number of seconds to run for: infinity is allowed there (a run until stopped), so the
    /// rule says so: `"seconds must be >= 0, or infinity to run until stopped, got -1.0"`.
    @inline(never)
    package static func badRunSeconds(_ seconds: Double) -> CadenceError {
        invalidArgument.with("seconds must be >= 0, or infinity to run until stopped, got \(seconds)")
    }

    /// A date that names no time: NaN or infinite seconds since 1970.
    @inline(never)
    package static func badDate(_ argument: StaticString, _ secondsSince1970: Double) -> CadenceError {
        invalidArgument.with("\(argument) must be a finite date, got \(secondsSince1970) seconds since 1970")
    }

    /// A mode name that is empty, too long or has control characters.
    @inline(never)
    static func malformedMode(_ mode: RunLoopMode) -> CadenceError {
        invalidArgument.with("mode must be 1-255 bytes of UTF-8 without control characters, got \(quoted(mode))")
    }

    /// One more mode than a loop can have (``TimerQueues/modeLimit``).
    @inline(never)
    static func tooManyModes(_ mode: RunLoopMode) -> CadenceError {
        outOfMemory.with("mode must be one of at most \(TimerQueues.modeLimit) modes of a loop (default and common "
                         + "included), got \(quoted(mode)) as one more")
    }

    /// A timer whose shared action word (a C callback's release function) would be one more than
    /// a loop keeps for its armed timers (``StoredAction/tagLimit``).
    @inline(never)
    static func tooManySharedWords() -> CadenceError {
        outOfMemory.with("release function must be one of at most \(StoredAction.tagLimit - 1) that the loop's armed "
                         + "timers were scheduled with (cadence_loop_set_callbacks), got one more")
    }

    /// A mode that is well formed but not registered on the loop.
    @inline(never)
    static func unregisteredMode(_ mode: RunLoopMode) -> CadenceError {
        unknownMode.with("mode must be registered on the loop first (added as a mode or a common mode), got \(quoted(mode))")
    }

    /// `common` where a mode to run in, or to register, was wanted.
    @inline(never)
    static func commonModeNotAllowed(_ what: StaticString) -> CadenceError {
        invalidArgument.with("mode must not be \"common\" (a pseudo-mode, \(what)), got \"common\"")
    }

    /// A call on a closed loop.
    @inline(never)
    package static func loopClosed() -> CadenceError {
        badHandle.with("loop must be open, got a closed loop")
    }

    /// A call on a scheduled timer that has ended.
    @inline(never)
    package static func timerEnded() -> CadenceError {
        alreadyCancelled.with("timer must be pending, got one that was cancelled or has fired "
                              + "(a one-shot ends when its callback starts)")
    }

    /// A mode name as the messages show it (as any string below).
    static func quoted(_ mode: RunLoopMode) -> String { quoted(mode.name) }

    /// A string as the messages show it, on one line that a terminal shows as it is: quoted as
    /// Swift writes a string literal (`"a\nb"`), with every control, format and line or paragraph
    /// separator character escaped (`\u{85}`, `\u{2028}`, `\u{202E}`: `String(reflecting:)`
    /// leaves those past ASCII as they are). Only its first 255 bytes of UTF-8 are shown (the
    /// longest a mode name may be), then `...` and the whole length in bytes, so a huge argument
    /// does not make a huge message.
    @inline(never)
    package static func quoted(_ string: String) -> String {
        var shown = "\""
        var bytes = 0
        for scalar in string.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > 255 { return shown + "\"... (\(string.utf8.count) bytes)" }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                shown += scalar.escaped(asASCII: true)
            default:
                shown += scalar == "'" ? "'" : scalar.escaped(asASCII: false)
            }
        }
        return shown + "\""
    }
}

extension CadenceError {
    /// A run, close or thread start while the loop is running.
    @inline(never)
    static func alreadyRunning(_ attempt: StaticString) -> CadenceError {
        busy.with("loop must not be running to \(attempt), got a running loop "
                  + "(a run has not returned: called from one of its callbacks or from another thread?)")
    }

    /// A run, close or second thread while the loop has a thread of its own.
    @inline(never)
    static func hasOwnThread(_ attempt: StaticString) -> CadenceError {
        busy.with("loop must not have a thread of its own to \(attempt), got a loop with one (stop it first: stopThread(), cadence_loop_stop_thread, stop_thread())")
    }

    /// A call that only a loop Cadence runs itself takes, on a loop that a host's `uv_loop_t` drives.
    @inline(never)
    static func hostDrivesLoop(_ attempt: StaticString) -> CadenceError {
        notSupported.with("loop must not be on a host's uv_loop_t to \(attempt), got one (the host's uv_run drives it)")
    }

    /// A descriptor asked of a loop that has none to give.
    @inline(never)
    static func noDescriptor(virtual: Bool) -> CadenceError {
        notSupported.with(virtual
            ? "loop must be a real loop to have a descriptor, got a virtual loop (its clock moves only when told)"
            : "loop must not be on a host's uv_loop_t to have a descriptor, got one (watch the host's loop)")
    }

    /// A virtual-clock advance of `seconds` past the clock's end; an infinite one is a run until
    /// stopped, so the message says what to do instead.
    @inline(never)
    static func beyondClockEnd(_ seconds: Double) -> CadenceError {
        beyondClockEnd("seconds", got: "\(seconds)", untilStopped: seconds.isInfinite)
    }

    /// A virtual-clock advance of a `Duration` past the clock's end, shown as given.
    @inline(never)
    static func beyondClockEnd(_ duration: Duration) -> CadenceError {
        beyondClockEnd("duration", got: duration.shownInMessages, untilStopped: false)
    }

    private static func beyondClockEnd(_ argument: StaticString, got value: String, untilStopped: Bool) -> CadenceError {
        invalidArgument.with("\(argument) must keep a virtual clock before its end (2^64 - 1 ns, about 584 years "
                             + "after its start), got \(value)"
                             + (untilStopped ? " (a virtual loop cannot run until stop(): pass a duration, "
                                + "or run until idle)" : ""))
    }
}
