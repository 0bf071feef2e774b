// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Handoff",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "handoff", targets: ["handoff"]),
        .library(name: "HandoffCore", targets: ["HandoffCore"]),
        // For the fuzzing package (Fuzz/), which depends on this one by path.
        .library(name: "HandoffNetwork", targets: ["HandoffNetwork"]),
        .library(name: "HandoffHeadless", targets: ["HandoffHeadless"]),
        .library(name: "HandoffRecordings", targets: ["HandoffRecordings"]),
        .library(name: "HandoffRules", targets: ["HandoffRules"]),
        .library(name: "HandoffManifest", targets: ["HandoffManifest"]),
        .library(name: "ReaderApp", targets: ["ReaderApp"]),
        .library(name: "BrowserApp", targets: ["BrowserApp"]),
        .library(name: "HandoffWeb", targets: ["HandoffWeb"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .target(
            name: "HandoffCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto")
            ]
        ),
        // Manifest tooling: property-list reading, build settings, lint, AppManifest from Info.plist.
        .target(name: "HandoffManifest", dependencies: ["HandoffCore"]),
        .target(
            name: "HandoffNetwork",
            dependencies: [
                "HandoffCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
                // AES.permute, the block function under Apple's short-IV GCM (Capture/Apple/).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // The local web: the demo sites over HTTPS on loopback (Hummingbird), the local certificate
        // authority, the hosts map, and the devices' association-file fetch.
        .target(
            name: "HandoffWeb",
            dependencies: [
                "HandoffCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // `handoff bench`: loopback floors and the simulator's own figures, with real DeviceHosts.
        .target(
            name: "HandoffBench",
            dependencies: [
                "HandoffCore",
                "HandoffNetwork",
                "HandoffProcesses",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The JSON-lines device (`handoff device --headless`): commands in, lifecycle events out,
        // scripted apps and continuation streams; UserInfoJSON, the userInfo's JSON form.
        .target(
            name: "HandoffHeadless",
            dependencies: [
                "HandoffCore",
                "HandoffManifest",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Child processes: posix_spawn with nothing inherited, pipes drained on threads of their
        // own, a headless device as a child (HeadlessProcess), private tmux servers (TmuxSession),
        // private discovery ports. Used by scenarios, the soak, the UI bench and the tests.
        .target(name: "HandoffProcesses", dependencies: ["HandoffCore"]),
        // Scripted scenarios (`handoff scenario`) and the soak (`handoff soak`), run with headless
        // device processes.
        .target(
            name: "HandoffScenarios",
            dependencies: ["HandoffCore", "HandoffProcesses", "HandoffRecordings", "HandoffRules"]),
        // Lifecycle recordings (`--record`, written with the headless device's event fields) and
        // the timeline drawn from them (`handoff timeline`: text, SVG, replay).
        // Apple's rules as invariants over typed lifecycle histories (`handoff check`); pure: no I/O.
        .target(name: "HandoffRules", dependencies: ["HandoffCore"]),
        // `handoff doctor`: why an activity does or does not continue from one app into another
        // (manifests, the activity, association files as values), and where recorded
        // continuations failed; pure: no I/O (docs/doctor.md).
        .target(name: "HandoffDoctor", dependencies: ["HandoffCore", "HandoffRules"]),
        // `handoff learn`: lessons as data (demos/lessons), each goal a predicate over the typed
        // lifecycle of both devices; pure: no I/O beyond reading lesson files (docs/lessons.md).
        .target(name: "HandoffLessons", dependencies: ["HandoffCore", "HandoffRules"]),
        .target(name: "HandoffRecordings", dependencies: ["HandoffCore", "HandoffHeadless", "HandoffRules"]),
        // `handoff check --explore`: random programs run in the in-process world (the manual
        // clock and the in-memory neighbourhood, which the tests use too), checked, and shrunk.
        .target(
            name: "HandoffExplore",
            dependencies: ["HandoffCore", "HandoffHeadless", "HandoffScenarios", "HandoffRecordings", "HandoffRules"]),
        .target(name: "TerminalCells"),
        .target(name: "DeviceAppKit", dependencies: ["HandoffCore", "TerminalCells"]),
        .systemLibrary(name: "CNcursesw", path: "Sources/CNcursesw", providers: [.apt(["libncursesw5-dev"])]),
        .target(name: "CursesTerminal", dependencies: ["CNcursesw", "TerminalCells"]),
        .executableTarget(name: "handoff-ui-bench", dependencies: ["HandoffProcesses"]),
        .executableTarget(name: "terminal-probe", dependencies: ["CursesTerminal", "TerminalCells"]),
        .target(
            name: "DeviceUI",
            dependencies: ["HandoffCore", "HandoffDoctor", "HandoffRules", "TerminalCells", "DeviceAppKit"]),
        .target(
            name: "ReaderApp", dependencies: ["HandoffCore", "HandoffManifest", "TerminalCells", "DeviceAppKit"],
            resources: [.copy("Resources")]),
        .target(
            name: "MapApp", dependencies: ["HandoffCore", "HandoffManifest", "TerminalCells", "DeviceAppKit"],
            resources: [.copy("Resources")]),
        .target(
            name: "BrowserApp", dependencies: ["HandoffCore", "HandoffManifest", "TerminalCells", "DeviceAppKit"],
            resources: [.copy("Resources")]),
        // Your own app on the terminal device (`handoff device --app`): a generic screen for its activity.
        .target(name: "OwnApp", dependencies: ["HandoffCore", "HandoffManifest", "TerminalCells", "DeviceAppKit"]),
        .executableTarget(name: "handoff-map-bench", dependencies: ["MapApp", "TerminalCells"]),
        .executableTarget(
            name: "handoff",
            dependencies: [
                "HandoffCore",
                "HandoffManifest",
                "HandoffNetwork",
                "HandoffBench",
                "HandoffHeadless",
                "HandoffProcesses",
                "HandoffScenarios",
                "HandoffRecordings",
                "HandoffRules",
                "HandoffExplore",
                "HandoffDoctor",
                "HandoffLessons",
                "TerminalCells",
                "CursesTerminal",
                "DeviceAppKit",
                "DeviceUI",
                "ReaderApp",
                "MapApp",
                "BrowserApp",
                "OwnApp",
                "HandoffWeb",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Where the runtime is linked in (below), and only there, the crash-report settings are
            // made before it starts (Sources/handoff/LinkedRuntime.swift): the same condition.
            swiftSettings: [.define("LINKED_SWIFT_RUNTIME", .when(platforms: [.linux], configuration: .release))],
            // Release links the Swift runtime and Foundation in: a device starts without loading
            // them (docs/bench.md, "First frame"; DECISIONS.md, 2026-11-28). The modules were
            // compiled against the shared Foundation, whose link names only itself: the group
            // names the static archives it needs.
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-static-stdlib", "-Xlinker", "--start-group", "-lFoundation", "-lFoundationEssentials",
                        "-lFoundationInternationalization", "-lCoreFoundation", "-l_FoundationICU",
                        "-l_FoundationCShims", "-l_FoundationCollections", "-lswiftSynchronization", "-Xlinker",
                        "--end-group",
                    ], .when(platforms: [.linux], configuration: .release))
            ]
        ),
        // Test-only modules (they import Testing), under Tests/: what the tests share (manual
        // clock, in-memory neighbourhood, sample manifests, the handoff executable, the
        // `.ownThread` trait and the `.endToEnd` tag), and the one snapshot comparison.
        .target(
            name: "HandoffTestSupport", dependencies: ["HandoffCore", "HandoffExplore"],
            path: "Tests/HandoffTestSupport"),
        .target(name: "GridSnapshots", dependencies: ["TerminalCells"], path: "Tests/GridSnapshots"),
        .testTarget(
            name: "HandoffCoreTests",
            dependencies: ["HandoffCore", "HandoffTestSupport"]
        ),
        .testTarget(
            name: "HandoffManifestTests",
            dependencies: ["HandoffManifest", "HandoffCore", "HandoffTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        // The end-to-end tier: every suite that spawns a process or a tmux server (the handoff
        // executable, the terminal probe, a shell). `swift test --skip HandoffEndToEndTests` runs
        // the rest (README, "Test").
        .testTarget(
            name: "HandoffEndToEndTests",
            dependencies: [
                "HandoffCore", "HandoffNetwork", "HandoffProcesses", "HandoffRecordings", "HandoffScenarios",
                "HandoffTestSupport",
                "TerminalCells", "terminal-probe",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "HandoffRulesTests",
            dependencies: ["HandoffRules", "HandoffCore", "HandoffRecordings", "HandoffHeadless"]
        ),
        .testTarget(
            name: "HandoffDoctorTests",
            dependencies: [
                "HandoffDoctor", "HandoffCore", "HandoffRules", "HandoffRecordings", "HandoffHeadless",
                "HandoffTestSupport",
            ]
        ),
        .testTarget(
            name: "HandoffLessonsTests",
            dependencies: [
                "HandoffLessons", "HandoffCore", "HandoffExplore", "HandoffHeadless", "HandoffManifest",
                "HandoffScenarios",
            ]
        ),
        .testTarget(
            name: "HandoffExploreTests",
            dependencies: [
                "HandoffCore", "HandoffExplore", "HandoffRecordings", "HandoffRules", "HandoffScenarios",
                "HandoffTestSupport",
            ]
        ),
        .testTarget(
            name: "HandoffHeadlessTests",
            dependencies: [
                "HandoffCore", "HandoffHeadless", "HandoffProcesses", "HandoffScenarios", "HandoffRecordings",
                "HandoffTestSupport",
            ]
        ),
        .testTarget(
            name: "HandoffNetworkTests",
            dependencies: [
                "HandoffCore", "HandoffNetwork", "HandoffBench", "HandoffTestSupport", "HandoffProcesses",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .testTarget(
            name: "HandoffWebTests",
            dependencies: [
                "HandoffWeb", "HandoffCore", "HandoffTestSupport", .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TerminalCellsTests",
            dependencies: ["TerminalCells", "HandoffCore"]
        ),
        .testTarget(
            name: "CursesTerminalTests",
            dependencies: ["CursesTerminal", "TerminalCells", "HandoffTestSupport"]
        ),
        .testTarget(
            name: "DeviceUITests",
            dependencies: [
                "DeviceUI", "DeviceAppKit", "TerminalCells", "HandoffCore", "HandoffTestSupport", "GridSnapshots",
            ],
            exclude: ["Snapshots"]
        ),
        .testTarget(
            name: "ReaderAppTests",
            dependencies: [
                "ReaderApp", "DeviceAppKit", "TerminalCells", "HandoffCore", "HandoffManifest", "HandoffTestSupport",
                "GridSnapshots",
            ],
            exclude: ["Snapshots"]
        ),
        .testTarget(
            name: "MapAppTests",
            dependencies: [
                "MapApp", "DeviceAppKit", "TerminalCells", "HandoffCore", "HandoffManifest", "HandoffTestSupport",
                "GridSnapshots",
            ],
            exclude: ["Snapshots"]
        ),
        .testTarget(
            name: "OwnAppTests",
            dependencies: [
                "OwnApp", "DeviceUI", "DeviceAppKit", "TerminalCells", "HandoffCore", "HandoffManifest",
                "HandoffTestSupport",
            ]
        ),
        .testTarget(
            name: "BrowserAppTests",
            dependencies: [
                "BrowserApp", "DeviceAppKit", "TerminalCells", "HandoffCore", "HandoffManifest", "HandoffTestSupport",
                "GridSnapshots",
            ],
            exclude: ["Snapshots"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Release code of ours names the metadata of its concrete generic types by accessor, not by
// mangled name: a mangled name is resolved at its first use by checking the type's generic
// requirements, and each conformance not yet looked up scans every conformance record of the
// program (about 10,500), a third of a terminal device's start (docs/bench.md, "First frame").
// The accessor is handed the conformances it needs.
for target in package.targets where target.type != .test && target.type != .system && target.type != .binary {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .unsafeFlags(
                ["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"],
                .when(configuration: .release))
        ]
}
