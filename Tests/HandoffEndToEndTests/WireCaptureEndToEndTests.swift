import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real continuation recorded with dumpcap on loopback while both headless devices write their
/// TLS secrets to one key log (SSLKEYLOGFILE), then read back by tshark with the project's Lua
/// dissector (tools/wireshark/handoff.lua) and by `handoff wire decode` (docs/wire.md, "Looking
/// at the wire"). Skipped where tshark and dumpcap are not installed or cannot capture on `lo`
/// (`.ci/run` installs them; capturing needs root or CAP_NET_RAW).
@Suite(
    "A capture that opens in Wireshark", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil),
    .enabled(
        if: WireTools.canCapture,
        "tshark and dumpcap are not installed, or dumpcap cannot capture on lo (apt-get install tshark; run as root or with CAP_NET_RAW)"
    ))
struct WireCaptureEndToEndTests {
    static let readingType = "com.handoffsim.reader.reading"

    @Test func tsharkNamesEverySessionFrameAndFindsTheActivityType() throws {
        let world = try HeadlessProcessWorld()
        let keyLog = world.directory.appendingPathComponent("keylog.txt").path
        let capture = world.directory.appendingPathComponent("demo.pcapng").path
        var environment = ProcessInfo.processInfo.environment
        environment["SSLKEYLOGFILE"] = keyLog
        // The capture starts before the devices, on session ports chosen here: every session
        // (lifecycle sharing opens one as soon as the two meet, and the continuation reuses it) is
        // captured from its TLS handshake on, which tshark needs to decrypt it with the key log.
        let sessionPorts = DiscoveryPort.freeSessionPorts(2)
        try #require(sessionPorts.count == 2, "no free TCP ports below the ephemeral range")
        let dumpcap = try WireTools.startCapture(
            to: capture, filter: "udp port \(world.port) or tcp port \(sessionPorts[0]) or tcp port \(sessionPorts[1])",
            in: world.directory)
        defer {
            dumpcap.terminate()
            if dumpcap.waitForExit(timeout: 10) == nil { dumpcap.send(SIGKILL) }
        }
        let shared = ["--share-lifecycle"]
        let laptop = try world.start(
            "Laptop", kind: "laptop", extra: shared + ["--session-port", String(sessionPorts[0])],
            environment: environment)
        let phone = try world.start(
            "Phone", extra: shared + ["--session-port", String(sessionPorts[1])], environment: environment)
        let warned = Date().addingTimeInterval(5)
        while !laptop.standardError.contains("secrecy is weakened"), Date() < warned {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(laptop.standardError.contains("secrecy is weakened"), "no warning: \(laptop.standardError)")
        for (device, port) in zip([laptop, phone], sessionPorts) {
            let ready = device.received.first { $0["event"] as? String == "ready" }
            #expect(ready?["sessionPort"] as? Int == port, "the session port asked for was not used")
        }

        // A continuation with its payload, the `continued` notification, a stream each way and
        // shared lifecycle events.
        try laptop.send([
            "cmd": "become-current", "type": Self.readingType, "title": "Moby-Dick", "userInfo": ["page": 3],
            "streams": true,
        ])
        _ = try #require(
            phone.waitForLifecycle("offerReceived", timeout: 10) { ($0["peer"] as? String) == "Laptop" }, "no offer")
        try phone.send(["cmd": "continue", "peer": try #require(world.id(of: laptop))])
        _ = try #require(phone.waitFor(timeout: 10) { $0["event"] as? String == "restored" }, "not restored")
        try phone.send(["cmd": "streams-open"])
        _ = try #require(phone.waitFor(timeout: 10) { $0["event"] as? String == "streams-opened" }, "no streams")
        try phone.send(["cmd": "stream-send", "bytes": 4096, "seed": 7])
        try phone.send(["cmd": "stream-close"])
        _ = try #require(phone.waitFor(timeout: 20) { $0["event"] as? String == "stream-finished" }, "stream")
        _ = try #require(laptop.waitForLifecycle("wasContinued", timeout: 10), "no wasContinued")
        // Two beacon refreshes and the lifecycle batches (50 ms) reach the capture.
        Thread.sleep(forTimeInterval: 2)
        dumpcap.terminate()
        #expect(dumpcap.waitForExit(timeout: 10) != nil, "dumpcap did not stop")

        let secrets = try String(contentsOfFile: keyLog, encoding: .utf8)
        #expect(secrets.contains("CLIENT_TRAFFIC_SECRET_0 "), "no TLS 1.3 secrets in the key log")
        let mode = try FileManager.default.attributesOfItem(atPath: keyLog)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let tools = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("tools/wireshark/handoff.lua").path
        let (termination, output) = try ChildProcess.run(
            WireTools.tshark,
            [
                "-X", "lua_script:\(tools)", "-o", "tls.keylog_file:\(keyLog)", "-o",
                "handoff.beacon.port:\(world.port)", "-r", capture, "-V",
            ])
        #expect(termination == .exited(0), "tshark: \(output.suffix(2000))")
        try? output.write(
            toFile: world.directory.appendingPathComponent("tshark.txt").path, atomically: true, encoding: .utf8)
        let frames = [
            "hello", "payloadRequest", "payloadResponse", "continued", "streamOpen", "streamAccepted", "streamData",
            "streamEnd", "lifecycle",
        ]
        for frame in frames {
            #expect(output.contains("Handoff session frame: \(frame) ("), "tshark named no \(frame) frame")
        }
        #expect(output.contains("activityType: \(Self.readingType)"), "tshark did not find the activity type")
        #expect(output.contains("Handoff simulator beacon"), "tshark found no beacon")
        #expect(!output.contains("Malformed"), "tshark reports a malformed frame")

        let executable = try #require(HandoffExecutable.url)
        let decoded = try ChildProcess.run(
            executable.path,
            [
                "wire", "decode", capture, "--account", world.account, "--config-dir", world.configDirectory.path,
                "--port", String(world.port),
            ])
        #expect(decoded.termination == .exited(0), "wire decode: \(decoded.output.suffix(2000))")
        #expect(decoded.output.contains("beacon from \"Laptop\" (laptop, "), "no Laptop beacon opened")
        #expect(decoded.output.contains("activityTypeHash: "), "no advertisement annotated")
        #expect(decoded.output.contains("TLS records: handshake"), "no TLS handshake listed")
        #expect(decoded.output.contains("--key-log FILE"), "no word on how to see the session frames")

        // With the key log, tshark decrypts and `handoff wire decode` reads every session frame.
        let common = [
            "wire", "decode", capture, "--account", world.account, "--config-dir", world.configDirectory.path,
            "--port", String(world.port),
        ]
        let sessions = try ChildProcess.run(executable.path, common + ["--key-log", keyLog])
        try? sessions.output.write(
            toFile: world.directory.appendingPathComponent("decode-sessions.txt").path, atomically: true,
            encoding: .utf8)
        #expect(sessions.termination == .exited(0), "wire decode --key-log: \(sessions.output.suffix(2000))")
        #expect(sessions.output.contains("beacon from \"Laptop\" (laptop, "), "no beacon opened with --key-log")
        for frame in frames {
            #expect(sessions.output.contains(": \(frame), "), "wire decode named no \(frame) frame")
        }
        #expect(
            sessions.output.contains("payload.activityType: \"\(Self.readingType)\""),
            "wire decode did not find the activity type")
        #expect(sessions.output.contains("\"Phone\" → \"Laptop\", offset 0: hello"), "no hello from Phone")
        #expect(sessions.output.contains("\"Laptop\" → \"Phone\", offset 0: hello"), "no hello from Laptop")
        #expect(!sessions.output.contains("bad session frame"), "a frame was refused")
        #expect(sessions.output.contains(" frames, 0 refused; "), "not every frame was read")

        // A key log without these sessions' secrets: one line per session, the beacons still there.
        let emptyKeyLog = world.directory.appendingPathComponent("empty-keylog.txt").path
        try Data().write(to: URL(fileURLWithPath: emptyKeyLog))
        let withoutSecrets = try ChildProcess.run(executable.path, common + ["--key-log", emptyKeyLog])
        #expect(withoutSecrets.termination == .exited(0), "\(withoutSecrets.output.suffix(2000))")
        #expect(withoutSecrets.output.contains("beacon from \"Laptop\" (laptop, "))
        #expect(
            withoutSecrets.output.contains("the key log holds no secrets for it"),
            "\(withoutSecrets.output.suffix(2000))")
        #expect(!withoutSecrets.output.contains(": hello, "))

        // No tshark: one line, the beacons still there.
        let noTshark = try ChildProcess.run(
            executable.path,
            common + ["--key-log", keyLog, "--tshark", world.directory.appendingPathComponent("none").path])
        #expect(noTshark.termination == .exited(0), "\(noTshark.output.suffix(2000))")
        #expect(noTshark.output.contains("beacon from \"Laptop\" (laptop, "))
        #expect(noTshark.output.contains("session frames not read: there is no tshark at "))
    }
}

/// tshark and dumpcap, where installed and able to capture on loopback.
enum WireTools {
    static let tshark = "/usr/bin/tshark"
    static let dumpcap = "/usr/bin/dumpcap"

    static let canCapture: Bool = {
        let files = FileManager.default
        guard files.isExecutableFile(atPath: tshark), files.isExecutableFile(atPath: dumpcap) else { return false }
        guard let listed = try? ChildProcess.run(dumpcap, ["-D"]), listed.termination == .exited(0) else {
            return false
        }
        return listed.output.split(separator: "\n").contains { $0.hasSuffix(". lo") || $0.contains(". lo ") }
    }()

    /// Starts dumpcap on `lo` with the capture `filter`, and waits until it captures.
    static func startCapture(to path: String, filter: String, in folder: URL) throws -> ChildProcess {
        let log = folder.appendingPathComponent("dumpcap.log").path
        let process = try ChildProcess(
            executable: dumpcap,
            arguments: ["-i", "lo", "-f", filter, "-w", path, "-a", "duration:120"],
            standardError: .file(log))
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: log, encoding: .utf8), text.contains("Capturing on") {
                return process
            }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.send(SIGKILL)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        Issue.record("dumpcap did not start capturing: \(text)")
        throw CaptureFailed()
    }

    struct CaptureFailed: Error {}
}
