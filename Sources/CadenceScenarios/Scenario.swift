import FoundationEssentials
import Glibc

/// One scenario of the corpus in `Tests/Scenarios` (its README.md describes the format): the
/// header line and the steps that follow it, each a flat JSON object.
public struct Scenario: Sendable {
    /// The scenario's name, unique in the corpus.
    public var name: String { header.text("scenario") ?? "" }
    /// Whether it runs on a real loop (`"loop": "real"`) rather than a virtual one.
    public var isReal: Bool { header.text("loop") == "real" }
    /// The tour row it provides (`"tour"`), if any.
    public var tourRow: String? { header.text("tour") }
    /// What it shows, in plain words (`"note"`).
    public var note: String { header.text("note") ?? "" }
    /// Where it starts, as `file:line`.
    public let location: String

    let header: Step
    var steps: [Step] = []
}

/// One line of a scenario file: a flat JSON object of strings, numbers and booleans.
struct Step: Sendable {
    var fields: [(key: String, value: Value)]

    enum Value: Sendable, Decodable {
        case text(String), number(Double), flag(Bool)

        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if let flag = try? single.decode(Bool.self) {
                self = .flag(flag)
            } else if let number = try? single.decode(Double.self) {
                self = .number(number)
            } else {
                self = .text(try single.decode(String.self))
            }
        }

        /// As the scenario file wrote it, for ranges and timelines.
        var text: String {
            switch self {
            case .text(let text): text
            case .number(let number): number == number.rounded() ? String(Int(number)) : String(number)
            case .flag(let flag): String(flag)
            }
        }
    }

    subscript(key: String) -> Value? { fields.first { $0.key == key }?.value }

    func text(_ key: String) -> String? { self[key]?.text }

    func number(_ key: String) -> Double? {
        switch self[key] {
        case .number(let number): number
        case .text(let text): Double(text)
        default: nil
        }
    }

    func flag(_ key: String) -> Bool { if case .flag(true) = self[key] { true } else { false } }
}

/// Errors reading the corpus.
public struct ScenarioFileError: Error, CustomStringConvertible {
    /// What was wrong and where.
    public let description: String
}

/// The corpus: every scenario in the `.jsonl` files of a folder, files in name order.
public struct ScenarioCorpus: Sendable {
    /// The scenarios, in file and line order.
    public let scenarios: [Scenario]
    /// FNV-1a 64 of the files' bytes in name order, as the C and Python runners compute it, so
    /// that results of different runs of the same corpus can be compared.
    public let digest: UInt64

    /// The repository's corpus, `Tests/Scenarios`, found from this source file's path (the
    /// tour and the tests run from a checkout), unless `CADENCE_SCENARIOS` names another folder.
    public static var defaultDirectory: String {
        if let path = getenv("CADENCE_SCENARIOS") { return String(cString: path) }
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Sources/CadenceScenarios/Scenario.swift
        return parts.joined(separator: "/") + "/Tests/Scenarios"
    }

    /// Where the runners leave their results for the parity check of the Python suite:
    /// `CADENCE_SCENARIO_RESULTS`, or `build/scenario-results` of the checkout.
    public static var resultsDirectory: String {
        if let path = getenv("CADENCE_SCENARIO_RESULTS") { return String(cString: path) }
        return defaultDirectory.replacing("/Tests/Scenarios", with: "/build/scenario-results")
    }

    /// Reads every `*.jsonl` file of `directory`.
    ///
    /// - Throws: ``ScenarioFileError`` for a folder or file that cannot be read, or a line that
    ///   is not a flat JSON object.
    public init(directory: String = ScenarioCorpus.defaultDirectory) throws(ScenarioFileError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0.hasSuffix(".jsonl") }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        } catch {
            throw ScenarioFileError(description: "\(directory): \(error)")
        }
        var scenarios: [Scenario] = []
        var digest: UInt64 = 0xCBF2_9CE4_8422_2325
        for name in names {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
                throw ScenarioFileError(description: "\(directory)/\(name): cannot be read")
            }
            for byte in data { digest = (digest ^ UInt64(byte)) &* 0x100_0000_01B3 }
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            var fileHasScenario = false  // a scenario ends with its file, as in the C and Python runners
            for (index, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
                let where_ = "\(name):\(index + 1)"
                let step: Step
                do {
                    step = try Self.parse(line)
                } catch {
                    throw ScenarioFileError(description: "\(where_): not a flat JSON object (\(error))")
                }
                if step["scenario"] != nil {
                    scenarios.append(Scenario(location: where_, header: step))
                    fileHasScenario = true
                } else if fileHasScenario {
                    scenarios[scenarios.count - 1].steps.append(step)
                } else {
                    throw ScenarioFileError(description: "\(where_): a step before the file's first scenario line")
                }
            }
        }
        self.scenarios = scenarios
        self.digest = digest
    }

    /// One line as its fields, in the order written (JSONDecoder gives a dictionary, so the
    /// keys' order is read from the line itself: the checks of an expect run in that order).
    private static func parse(_ line: Substring) throws -> Step {
        let values = try JSONDecoder().decode([String: Step.Value].self, from: Data(line.utf8))
        let order = values.keys.sorted {
            (line.firstRange(of: "\"\($0)\":")?.lowerBound ?? line.endIndex)
                < (line.firstRange(of: "\"\($1)\":")?.lowerBound ?? line.endIndex)
        }
        return Step(fields: order.map { ($0, values[$0]!) })
    }
}
