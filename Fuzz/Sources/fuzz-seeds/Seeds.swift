// Writes the seed corpora (Fuzz/Corpus/TARGET/) from the project's own encoders: every kind of
// value each decoder reads, as the project writes it. Fixtures (manifests, sites, pages) are
// copied by `scripts/fuzz --seeds`. Run: `scripts/fuzz --seeds`.
import Crypto
import Foundation
import HandoffCore
import NIOCore

@testable import HandoffHeadless
@testable import HandoffNetwork
@testable import ReaderApp

// Built like the fuzz targets (libFuzzer provides `main`): the work is done in
// `LLVMFuzzerInitialize`, which libFuzzer calls first, and the process exits there.
@_cdecl("LLVMFuzzerInitialize")
public func writeSeedsAndExit(
    _ argc: UnsafeMutablePointer<CInt>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    Seeds.main()
    exit(0)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func noInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt { 0 }

enum Seeds {
    static func main() {
        let root = URL(fileURLWithPath: ProcessInfo.processInfo.environment["FUZZ_SEEDS_DIR"] ?? "Corpus")

        func write(_ target: String, _ name: String, _ bytes: some Sequence<UInt8>) {
            let folder = root.appendingPathComponent(target)
            try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try! Data(bytes).write(to: folder.appendingPathComponent(name))
        }

        // Payloads and userInfo: every value kind, nesting, sets, edge doubles.
        let when = Date(timeIntervalSinceReferenceDate: 800_000_000.25)
        let userInfos: [(String, UserInfo)] = [
            ("empty", [:]),
            (
                "reader",
                [
                    "documentName": .string("moby-dick.txt"), "page": .integer(3), "line": .integer(12),
                    "handoffVersion": .integer(2),
                ]
            ),
            (
                "map",
                ["lat": .double(38.7223), "lon": .double(-9.1393), "zoom": .double(2.0), "query": .string("Lisbon")]
            ),
            (
                "kinds",
                [
                    "a": .array([.integer(1), .null, .bool(true)]), "d": .data(Data([0, 1, 2, 255])), "t": .date(when),
                    "u": .url(URL(string: "https://reader.handoffsim.example/moby?page=3")!),
                    "id": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
                    "s": .set([.string("x"), .integer(2)]),
                    "n": .dictionary(["$k": .double(-0.0), "nan": .double(.nan)]),
                ]
            ),
            ("deep", ["x": (0..<30).reduce(UserInfoValue.integer(1)) { inner, _ in .array([inner]) }]),
            ("unicode", ["名前": .string("😀 é\u{301}"), "": .string("")]),
        ]
        for (name, userInfo) in userInfos {
            let payload = ActivityPayload(
                activityIdentifier: UUID(uuidString: "6B1E8B7A-2C4D-4E5F-9A0B-1C2D3E4F5A6B")!,
                activityType: "com.handoffsim.reader.reading",
                title: "Moby-Dick", userInfo: userInfo,
                webpageURL: URL(string: "https://reader.handoffsim.example/moby?page=3"),
                teamIdentifier: "ABCDE12345", bundleIdentifier: "com.handoffsim.reader",
                expirationDate: name == "map" ? when : nil,
                requiredUserInfoKeys: name == "reader" ? ["page", "documentName"] : [],
                targetContentIdentifier: name == "kinds" ? "doc-1" : nil,
                supportsContinuationStreams: name == "reader",
                streamToken: name == "reader" ? Data(repeating: 7, count: 16) : Data())
            write("fuzz-payload", name, payload.encoded())
            write("fuzz-userinfo-json", name, Array(UserInfoJSON.json(from: userInfo).jsonText.utf8))
        }
        for (name, text) in [
            (
                "command",
                #"{"cmd":"become-current","type":"com.handoffsim.reader.reading","title":"Moby-Dick","userInfo":{"page":3},"streams":true}"#
            ),
            ("numbers", #"[0,-0,1.5e300,-2.25E-7,9223372036854775807,-9223372036854775808,1e-400]"#),
            ("strings", #"{"a":"\u00e9\ud83d\ude00\n\t\"\\\/","b":"","c":null,"d":[true,false]}"#),
            ("nested", String(repeating: "[", count: 40) + String(repeating: "]", count: 40)),
            (
                "tags",
                #"{"$data":"AAEC","x":{"$date":"2026-03-01T09:30:00.250Z"},"y":{"$double":"nan"},"z":{"$dict":{"$k":1}},"w":{"$set":[1,2]}}"#
            ),
        ] {
            write("fuzz-headless-json", name, Array(text.utf8))
            write("fuzz-userinfo-json", "text-" + name, Array(text.utf8))
        }

        // Beacons: every message kind, names of every length, plaintext and sealed with the fuzz key.
        let sealer = BeaconSealer(accountKey: SymmetricKey(data: Array(repeating: UInt8(0x42), count: 32)))
        let device = PeerInfo(id: DeviceID("6b1e8b7a-2c4d-4e5f-9a0b-1c2d3e4f5a6b"), name: "Phone 1", kind: .phone)
        let advertisement = Advertisement(
            device: device.id, activityTypeHash: ActivityTypeHash(activityType: "com.handoffsim.reader.reading"),
            teamHash: TeamHash(teamIdentifier: "ABCDE12345"), options: Advertisement.Options(rawValue: 7),
            activitySerial: 7, savedAt: Date(timeIntervalSince1970: 1_795_000_000), expiresAt: nil)
        let messages: [(String, Beacon.Message)] = [
            ("presence", .presence), ("advertisement", .advertisement(advertisement)),
            ("goodbye", .goodbye), ("leaving", .leaving),
        ]
        for (name, message) in messages {
            for (suffix, peer) in [
                ("", device),
                ("-long-name", PeerInfo(id: device.id, name: "Laptop of Someone With a Long Name ✓", kind: .laptop)),
            ] {
                let beacon = Beacon(
                    device: peer, bootIdentifier: 1_794_999_000_456, counter: 42,
                    sentAt: Date(timeIntervalSince1970: 1_795_000_000.123),
                    sessionPort: 50_123, message: message)
                write("fuzz-beacon-plaintext", name + suffix, BeaconSealer.encode(beacon))
                write("fuzz-beacon-sealed", name + suffix, sealer.seal(beacon))
            }
        }

        // Session frames: every type, as bodies (fuzz-session-frame) and as a length-prefixed stream
        // with a first byte choosing the read size (fuzz-session-frame-reader).
        let frames: [(String, SessionFrame)] = [
            ("hello", .hello(name: "Laptop 1", kind: .laptop)),
            (
                "payload-request",
                .payloadRequest(
                    id: 42, continuation: UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!,
                    activityTypeHash: ActivityTypeHash(activityType: "com.example.reader.reading"))
            ),
            (
                "payload-response",
                .payloadResponse(
                    id: 42,
                    payload: Array(
                        ActivityPayload(
                            activityType: "com.example.a", teamIdentifier: "T",
                            bundleIdentifier: "b"
                        ).encoded()))
            ),
            (
                "payload-error",
                .payloadError(id: 42, code: .remoteApplicationTimedOut, reason: "the origin app did not save in time")
            ),
            (
                "continued",
                .continued(
                    activityIdentifier: UUID(uuidString: "6B1E8B7A-2C4D-4E5F-9A0B-1C2D3E4F5A6B")!,
                    continuation: UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!)
            ),
            ("stream-open", .streamOpen(token: Array(repeating: 9, count: 16))),
            ("stream-accepted", .streamAccepted),
            ("stream-refused", .streamRefused(reason: "unknown token")),
            ("stream-data", .streamData(ByteBuffer(bytes: Array("chunk of a document".utf8)))),
            ("stream-end", .streamEnd),
            ("stream-failed", .streamFailed(reason: "the app closed its stream")),
            (
                "lifecycle",
                .lifecycle(
                    LifecycleShare(
                        entries: [
                            LifecycleEntry(
                                LifecycleEvent(
                                    time: Date(timeIntervalSince1970: 1_800_000_000.25), device: "Laptop 1",
                                    .payloadSent(
                                        ContinuationID(
                                            rawValue: UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!),
                                        PeerReference(id: DeviceID(rawValue: "phone-1"), name: "Phone 1"),
                                        ActivityReference(
                                            id: UUID(uuidString: "6B1E8B7A-2C4D-4E5F-9A0B-1C2D3E4F5A6B")!,
                                            activityType: "com.example.reader.reading",
                                            bundleIdentifier: "com.example.reader"),
                                        bytes: 412,
                                        userInfo: ["page": .integer(3), "zoom": .double(1.5), "dark": .bool(true)])))
                        ], dropped: 2))
            ),
        ]
        var all: [UInt8] = []
        for (name, frame) in frames {
            var buffer = ByteBuffer()
            try! SessionFrameEncoder().encode(data: frame, out: &buffer)
            let bytes = Array(buffer.readableBytesView)
            write("fuzz-session-frame", name, bytes.dropFirst(4))
            write("fuzz-session-frame-reader", name, [0xFF] + bytes)
            write("fuzz-session-frame-reader", name + "-bytewise", [0x00] + bytes)
            all += bytes
        }
        write("fuzz-session-frame-reader", "all-frames-split-7", [0x06] + all)

        // The Reader's document protocol: requests (first byte even) and responses (odd).
        write(
            "fuzz-reader-document", "request",
            [0x0E] + DocumentRequest(documentName: "moby-dick.txt", requesterName: "Phone 1").encoded())
        write("fuzz-reader-document", "request-bytewise", [0x00] + DocumentRequest(documentName: "a.txt").encoded())
        let header = DocumentHeader(documentName: "moby-dick.txt", size: 12, senderName: "Laptop 1").encoded()
        write("fuzz-reader-document", "response", [0x1F] + header + Array("Call me Ishm".utf8))
        write("fuzz-reader-document", "response-bytewise", [0x01] + header + Array("Call me Ishm".utf8))
        write("fuzz-reader-document", "refusal", [0x3F] + DocumentRefusal(.notFound, "no such document here").encoded())

        // Apple's Handoff advertisement: the forms `handoff wire apple` reads (first byte 0 bytes
        // with the demo key, 1 a key then bytes, 2 hex text), from the codec.
        let appleKey = [UInt8](repeating: 0x5C, count: 32)
        for (name, flags, counter, options) in [
            ("messages", UInt8(0), UInt16(42), AppleHandoffAdvertisement.Options()),
            ("clipboard", AppleHandoffAdvertisement.clipboardFlag, UInt16(0xB157), [.pasteboardAvailable]),
            ("webpage", UInt8(0), UInt16(0xFFFF), [.hasWebpageURL, .hasMoreActivities]),
        ] as [(String, UInt8, UInt16, AppleHandoffAdvertisement.Options)] {
            let advertisement = AppleHandoffAdvertisement(
                flags: flags, counter: counter,
                activityHash: ActivityTypeHash(activityType: "com.apple.Messages").bytes,
                options: options, timeOffset: 0x85)
            let data = try! advertisement.manufacturerData(key: AppleHandoffAdvertisement.demoKey)
            write("fuzz-apple-advertisement", name, [0x00] + data)
            write("fuzz-apple-advertisement", name + "-tlv", [0x00] + data.dropFirst(2))
            write(
                "fuzz-apple-advertisement", name + "-structure",
                [0x00, UInt8(data.count + 1 + 8), 0xFF] + data + [0x10, 0x06, 0x31, 0x1C, 0x00, 0x00, 0x00, 0x00])
            write(
                "fuzz-apple-advertisement", name + "-key",
                [0x01] + appleKey + (try! advertisement.manufacturerData(key: appleKey)))
            write(
                "fuzz-apple-advertisement", name + "-hex",
                [0x02] + Array(data.map { String(format: "%02x", $0) }.joined(separator: " ").utf8))
        }

        // Account files and codes, from a real account made by the store in a temporary directory.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-fuzz-seeds-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = AccountStore(directory: directory)
        _ = try! store.createAccount(named: "seed")
        write("fuzz-account-file", "account", try! Data(contentsOf: store.accountFile("seed")))
        write("fuzz-account-code", "code", Array(try! store.exportAccount(named: "seed").utf8))
        print("seeds written to \(root.path)")
    }
}
