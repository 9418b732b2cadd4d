// swift-tools-version:6.0
// Cadence: Foundation- and Combine-style timers on a libuv event loop, for Swift, C and Python.
import PackageDescription

let package = Package(
    name: "Cadence",
    products: [
        .library(name: "Cadence", targets: ["Cadence"]),
        // The C ABI declared in include/cadence.h, as libcadence.so.
        .library(name: "CadenceC", type: .dynamic, targets: ["CCadence"]),
        .executable(name: "cadence", targets: ["cadence-tool"]),
        // Opt-in: tasks on a loop through the toolchain's SPI for executors (SE-0505's
        // SchedulingExecutor, and the custom main and default executors of Loop.runMain), which
        // may change with the toolchain; `Cadence` builds without it.
        .library(name: "CadenceTasks", targets: ["CadenceTasks"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibUV",
            pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]
        ),
        // The hand-written C header, imported by CCadence so that `@c @implementation`
        // checks every export against it.
        .systemLibrary(name: "CCadenceHeader", path: "include"),
        .target(name: "Cadence", dependencies: ["CLibUV"], exclude: ["CMakeLists.txt"]),
        .target(name: "CadenceTasks", dependencies: ["Cadence"]),
        .target(name: "CCadence", dependencies: ["Cadence", "CCadenceHeader"], exclude: ["CMakeLists.txt"]),
        // The scenario corpus of Tests/Scenarios, read and run on the Swift face: by the tests
        // and by `cadence tour`, whose rows are scenarios of the corpus.
        .target(name: "CadenceScenarios", dependencies: ["Cadence"]),
        .executableTarget(name: "cadence-tool", dependencies: ["Cadence", "CadenceScenarios"], path: "Sources/cadence"),
        .testTarget(name: "CadenceTests", dependencies: ["Cadence", "CadenceScenarios"]),
        .testTarget(name: "CadenceTasksTests", dependencies: ["Cadence", "CadenceTasks"]),
        // Top-level code that AsyncValuesTests runs: `for await` where iterators are never destroyed.
        .executableTarget(name: "TopLevelValues", dependencies: ["Cadence"], path: "Tests/TopLevelValues"),
        // A program whose main executor is a Cadence loop (Loop.runMain), run by RunMainTests.
        .executableTarget(name: "MainOnLoop", dependencies: ["Cadence", "CadenceTasks"], path: "Tests/MainOnLoop"),
        // 100,000 cancelled sleeps in a process of its own, which ManyCancelledSleepsTests runs.
        .executableTarget(name: "CancelledSleeps", dependencies: ["Cadence", "CadenceTasks"], path: "Tests/CancelledSleeps"),
        // The command-line tool: its parsing and formatting, and the built binary's output.
        .testTarget(name: "CadenceToolTests", dependencies: ["cadence-tool"]),
    ],
    swiftLanguageModes: [.v6]
)
