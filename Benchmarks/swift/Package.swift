// swift-tools-version:6.0
// The Swift column of the timer benchmarks: Cadence's Swift API measured with the peers' metric
// definitions (docs/BENCHMARKS.md). Build: swift build -c release
// Sources/CadenceBench/Common.swift (Glibc only) is also compiled into the Foundation and Dispatch
// peers (Benchmarks/peers), so the Swift programs share one clock, CPU, RSS and percentile code.
import PackageDescription

let package = Package(
    name: "CadenceBenchmarks",
    dependencies: [.package(name: "Cadence", path: "../..")],
    targets: [
        .executableTarget(name: "CadenceBench", dependencies: [
            .product(name: "Cadence", package: "Cadence"),
            // The wake group through Task.sleep: a loop as the program's executor (TaskSleep.swift).
            .product(name: "CadenceTasks", package: "Cadence"),
        ]),
        // Where the memory of many cancelled sleeps goes (CadenceMemory PART N [trim]).
        .executableTarget(name: "CadenceMemory", dependencies: [
            .product(name: "Cadence", package: "Cadence"), .product(name: "CadenceTasks", package: "Cadence"), "CMalloc",
        ]),
        .target(name: "CMalloc"),
    ],
    // Language mode 5, as the Swift peers: single-threaded benchmark state lives in globals.
    swiftLanguageModes: [.v5]
)
