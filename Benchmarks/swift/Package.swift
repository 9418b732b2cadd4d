// swift-tools-version:6.0
// The Swift column of the timer benchmarks: Cadence's Swift API measured with the peers' metric
// definitions (../../../shared/peers/README.md). Build: swift build -c release
import PackageDescription

let package = Package(
    name: "CadenceBenchmarks",
    dependencies: [.package(name: "Cadence", path: "../..")],
    targets: [
        .executableTarget(name: "CadenceBench", dependencies: [.product(name: "Cadence", package: "Cadence")]),
    ],
    // Language mode 5, as the Swift peers: single-threaded benchmark state lives in globals.
    swiftLanguageModes: [.v5]
)
