// swift-tools-version:6.0
// A separate package that uses Cadence the way any Swift consumer would: as a path dependency.
import PackageDescription

let package = Package(
    name: "TickerExample",
    dependencies: [.package(name: "Cadence", path: "../..")],
    targets: [
        .executableTarget(name: "Ticker", dependencies: [.product(name: "Cadence", package: "Cadence")]),
        // A program whose main executor is a Cadence loop (Loop.runMain, in the CadenceTasks product).
        .executableTarget(name: "MainLoop", dependencies: [
            .product(name: "Cadence", package: "Cadence"),
            .product(name: "CadenceTasks", package: "Cadence"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
