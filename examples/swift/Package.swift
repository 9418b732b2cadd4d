// swift-tools-version:6.0
// A separate package that uses Cadence the way any Swift consumer would: as a path dependency.
import PackageDescription

let package = Package(
    name: "TickerExample",
    dependencies: [.package(name: "Cadence", path: "../..")],
    targets: [
        .executableTarget(name: "Ticker", dependencies: [.product(name: "Cadence", package: "Cadence")]),
    ],
    swiftLanguageModes: [.v6]
)
