// swift-tools-version: 6.0
// Fuzzing: one libFuzzer target per decoder of the simulator. Its own package, depending on the
// project by path, so the product's build is untouched. Build and run with `scripts/fuzz`
// (libFuzzer + AddressSanitizer, release, `-enable-testing` so targets reach internal decoders).
import PackageDescription

let targets: [(name: String, dependencies: [Target.Dependency])] = [
    ("fuzz-payload", [.product(name: "HandoffCore", package: "Handoff")]),
    ("fuzz-headless-json", [.product(name: "HandoffCore", package: "Handoff")]),
    (
        "fuzz-userinfo-json",
        [.product(name: "HandoffHeadless", package: "Handoff"), .product(name: "HandoffCore", package: "Handoff")]
    ),
    ("fuzz-beacon-plaintext", [.product(name: "HandoffNetwork", package: "Handoff")]),
    ("fuzz-beacon-sealed", [.product(name: "HandoffNetwork", package: "Handoff")]),
    (
        "fuzz-session-frame",
        [.product(name: "HandoffNetwork", package: "Handoff"), .product(name: "NIOCore", package: "swift-nio")]
    ),
    (
        "fuzz-session-frame-reader",
        [
            .product(name: "HandoffNetwork", package: "Handoff"), .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ]
    ),
    ("fuzz-pcapng", [.product(name: "HandoffNetwork", package: "Handoff")]),
    ("fuzz-tshark-output", [.product(name: "HandoffNetwork", package: "Handoff")]),
    ("fuzz-apple-advertisement", [.product(name: "HandoffNetwork", package: "Handoff")]),
    ("fuzz-account-file", [.product(name: "HandoffNetwork", package: "Handoff")]),
    ("fuzz-account-code", [.product(name: "HandoffNetwork", package: "Handoff")]),
    ("fuzz-manifest-plist", [.product(name: "HandoffManifest", package: "Handoff")]),
    ("fuzz-build-settings", [.product(name: "HandoffManifest", package: "Handoff")]),
    ("fuzz-xcode-project", [.product(name: "HandoffManifest", package: "Handoff")]),
    (
        "fuzz-activity-file",
        [.product(name: "HandoffManifest", package: "Handoff"), .product(name: "HandoffCore", package: "Handoff")]
    ),
    ("fuzz-site-association", [.product(name: "HandoffCore", package: "Handoff")]),
    ("fuzz-page-parser", [.product(name: "BrowserApp", package: "Handoff")]),
    ("fuzz-reader-document", [.product(name: "ReaderApp", package: "Handoff")]),
    ("fuzz-web-response", [.product(name: "HandoffWeb", package: "Handoff")]),
    (
        "fuzz-recording",
        [.product(name: "HandoffRecordings", package: "Handoff"), .product(name: "HandoffCore", package: "Handoff")]
    ),
    (
        "fuzz-recording-check",
        [.product(name: "HandoffRecordings", package: "Handoff"), .product(name: "HandoffRules", package: "Handoff")]
    ),
    (
        "fuzz-web-request",
        [
            .product(name: "HandoffWeb", package: "Handoff"), .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]
    ),
]

let package = Package(
    name: "HandoffFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Handoff", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: targets.map { .executableTarget(name: $0.name, dependencies: $0.dependencies) }
        + [
            .executableTarget(
                name: "fuzz-seeds",
                dependencies: [
                    .product(name: "HandoffCore", package: "Handoff"),
                    .product(name: "HandoffHeadless", package: "Handoff"),
                    .product(name: "HandoffNetwork", package: "Handoff"),
                    .product(name: "ReaderApp", package: "Handoff"),
                    .product(name: "NIOCore", package: "swift-nio"),
                ])
        ],
    swiftLanguageModes: [.v6]
)
