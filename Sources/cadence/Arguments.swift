/// What a command line asks the tool to do.
enum Command: Equatable {
    /// Replay the seed article's measurements.
    case tour
    /// Count down `seconds`, recomputing on a timer every `tick` seconds.
    case countdown(seconds: Double, tick: Double)
    /// Run a timer for `duration` seconds and report each fire.
    case ticks(every: Double, tolerance: Double, duration: Double)
    /// Run `command` every `interval` seconds without overlap, `count` times or until interrupted;
    /// `tolerance` nil means the poller's default.
    case every(interval: Double, tolerance: Double?, count: Int?, command: [String])
    /// Show the help for the tool (nil) or for one command (`help` included).
    case help(topic: String?)
    /// Show the version.
    case version
}

/// A command line that cannot be understood. `command` names the command whose usage should be
/// shown with the message (nil for the tool's).
struct UsageError: Error, Equatable {
    let message: String
    let command: String?
}

/// Hand-written parsing of the tool's command line.
///
/// Options take a value as `--name VALUE` or `--name=VALUE`; each may be given once. `-h` or
/// `--help` anywhere after a command asks for that command's help. A word that starts with `-` and
/// is not a number is taken as an option, so `countdown -3` is reported as a negative duration.
/// For `every`, the words after the first `--` are the command to run, untouched.
enum Arguments {
    /// The commands that do work, in the order the help lists them.
    static let commands = ["tour", "countdown", "ticks", "every"]

    /// The longest duration accepted (about 31 years), so that every derived count stays exact.
    static let maximumSeconds = 1e9

    /// The largest count accepted.
    static let maximumCount = 1_000_000_000

    /// Parses the arguments that follow the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        guard let first = arguments.first else {
            throw UsageError(message: "missing command", command: nil)
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "-h", "--help":
            try expectNothing(after: first, rest, command: nil)
            return .help(topic: nil)
        case "--version":
            try expectNothing(after: first, rest, command: nil)
            return .version
        case "help":
            if rest.contains("-h") || rest.contains("--help") { return .help(topic: first) }
            guard rest.count <= 1 else {
                throw UsageError(message: "help takes at most one command", command: nil)
            }
            if let topic = rest.first, !commands.contains(topic), topic != first {
                throw UsageError(message: "unknown command '\(topic)'", command: nil)
            }
            return .help(topic: rest.first)
        case "tour":
            let options = try Options(command: first, arguments: rest, names: [])
            if options.wantsHelp { return .help(topic: first) }
            try options.expectPositionals(0)
            return .tour
        case "countdown":
            let options = try Options(command: first, arguments: rest, names: ["--tick"])
            if options.wantsHelp { return .help(topic: first) }
            try options.expectPositionals(1, missing: "missing SECONDS")
            let seconds = try options.seconds(options.positionals[0], named: "SECONDS", allowZero: true)
            let tick = try options.seconds("--tick", default: 0.25, allowZero: false)
            return .countdown(seconds: seconds, tick: tick)
        case "ticks":
            let options = try Options(command: first, arguments: rest,
                                      names: ["--every", "--tolerance", "--for"])
            if options.wantsHelp { return .help(topic: first) }
            try options.expectPositionals(0)
            guard options.values["--every"] != nil else {
                throw UsageError(message: "missing --every", command: first)
            }
            let every = try options.seconds("--every", default: 0, allowZero: false)
            let tolerance = try options.seconds("--tolerance", default: 0, allowZero: true)
            let duration = try options.seconds("--for", default: 1, allowZero: false)
            return .ticks(every: every, tolerance: tolerance, duration: duration)
        case "every":
            let separator = rest.firstIndex(of: "--")
            let options = try Options(command: first, arguments: Array(rest[..<(separator ?? rest.endIndex)]),
                                      names: ["--tolerance", "--count"])
            if options.wantsHelp { return .help(topic: first) }
            guard let intervalText = options.positionals.first else {
                throw UsageError(message: "missing INTERVAL", command: first)
            }
            let interval = try options.seconds(intervalText, named: "INTERVAL", allowZero: false)
            guard let separator else {
                throw UsageError(message: "missing '--' before COMMAND", command: first)
            }
            try options.expectPositionals(1)
            let tolerance = try options.values["--tolerance"].map { text throws(UsageError) in
                try options.seconds(text, named: "--tolerance", allowZero: true)
            }
            let count = try options.values["--count"].map { text throws(UsageError) in
                try options.count(text, named: "--count")
            }
            let command = Array(rest[(separator + 1)...])
            guard let program = command.first else {
                throw UsageError(message: "missing COMMAND after '--'", command: first)
            }
            guard !program.isEmpty else {
                throw UsageError(message: "COMMAND must not be an empty word", command: first)
            }
            return .every(interval: interval, tolerance: tolerance, count: count, command: command)
        default:
            let what = first.hasPrefix("-") ? "unknown option" : "unknown command"
            throw UsageError(message: "\(what) '\(first)'", command: nil)
        }
    }

    /// Whether `text` is a decimal number: an optional sign, digits with at most one point (at
    /// least one digit in all), then optionally `e` or `E`, an optional sign and digits.
    static func isDecimal(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        func digits() -> Int {
            let count = bytes.prefix(while: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }).count
            bytes = bytes.dropFirst(count)
            return count
        }
        func skipSign() {
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        }
        skipSign()
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            skipSign()
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    private static func expectNothing(after word: String, _ rest: [String], command: String?) throws(UsageError) {
        if let extra = rest.first {
            throw UsageError(message: "unexpected argument '\(extra)' after \(word)", command: command)
        }
    }
}

/// The options and positional words that follow one command.
private struct Options {
    let command: String
    var positionals: [String] = []
    var values: [String: String] = [:]
    var wantsHelp = false

    init(command: String, arguments: [String], names: Set<String>) throws(UsageError) {
        self.command = command
        var index = 0
        var onlyPositionals = false
        for word in arguments.prefix(while: { $0 != "--" }) where word == "-h" || word == "--help" {
            wantsHelp = true
            return
        }
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if onlyPositionals || !word.hasPrefix("-") || Double(word) != nil {
                positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            var name = word
            var value: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                value = String(word[word.index(after: equals)...])
            }
            guard names.contains(name) else {
                throw UsageError(message: "unknown option '\(name)'", command: command)
            }
            if value == nil {
                guard index < arguments.count else {
                    throw UsageError(message: "\(name) needs a value", command: command)
                }
                value = arguments[index]
                index += 1
            }
            guard values[name] == nil else {
                throw UsageError(message: "\(name) given more than once", command: command)
            }
            values[name] = value
        }
    }

    func expectPositionals(_ count: Int, missing: String = "") throws(UsageError) {
        if positionals.count > count {
            throw UsageError(message: "unexpected argument '\(positionals[count])'", command: command)
        }
        if positionals.count < count {
            throw UsageError(message: missing, command: command)
        }
    }

    /// The value of option `name` in seconds, or `fallback` when it is absent.
    func seconds(_ name: String, default fallback: Double, allowZero: Bool) throws(UsageError) -> Double {
        guard let text = values[name] else { return fallback }
        return try seconds(text, named: name, allowZero: allowZero)
    }

    /// `text` as a count: a whole number from 1 to ``Arguments/maximumCount``.
    func count(_ text: String, named name: String) throws(UsageError) -> Int {
        guard let value = Int(text) else {
            throw UsageError(message: "\(name): '\(text)' is not a whole number", command: command)
        }
        guard value >= 1 else {
            throw UsageError(message: "\(name) must be at least 1, got \(text)", command: command)
        }
        guard value <= Arguments.maximumCount else {
            throw UsageError(message: "\(name) must be at most \(Arguments.maximumCount), got \(text)",
                             command: command)
        }
        return value
    }

    /// `text` as a duration in seconds: a decimal number (digits with an optional point and
    /// exponent, as `0.25` or `1e-3`; not hexadecimal, which `Double(_:)` would also read), finite,
    /// not negative, not zero unless allowed, and at most ``Arguments/maximumSeconds``.
    func seconds(_ text: String, named name: String, allowZero: Bool) throws(UsageError) -> Double {
        guard let value = Double(text) else {
            throw UsageError(message: "\(name): '\(text)' is not a number", command: command)
        }
        guard !value.isFinite || Arguments.isDecimal(text) else {
            throw UsageError(message: "\(name): '\(text)' is not a decimal number of seconds "
                             + "(such as 0.25 or 1e-3)", command: command)
        }
        guard value.isFinite else {
            throw UsageError(message: "\(name) must be a finite number of seconds, not '\(text)'",
                             command: command)
        }
        guard value >= 0 else {
            throw UsageError(message: "\(name) must not be negative, got \(text)", command: command)
        }
        guard allowZero || value > 0 else {
            throw UsageError(message: "\(name) must be greater than 0, got \(text)", command: command)
        }
        guard value <= Arguments.maximumSeconds else {
            let limit = Format.seconds(Arguments.maximumSeconds)
            throw UsageError(message: "\(name) must be at most \(limit) seconds, got \(text)", command: command)
        }
        return value
    }
}
