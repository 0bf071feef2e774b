import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Real `handoff device --headless` processes on loopback, each test with its own account,
/// configuration directory and discovery port, so they never see a device someone else runs.
@Suite(
    "Devices in separate processes", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil))
struct MultiProcessTests {
    static let readingType = "com.handoffsim.reader.reading"

    /// Makes a reading activity current on `origin` and waits until `receiver` lists the offer.
    func offer(
        from origin: HeadlessProcess, to receiver: HeadlessProcess, userInfo: [String: Any] = ["page": 3],
        streams: Bool = false
    ) throws {
        let before = receiver.received.count
        try origin.send([
            "cmd": "become-current", "type": Self.readingType, "title": "Moby-Dick", "userInfo": userInfo,
            "streams": streams,
        ])
        _ = try #require(
            receiver.waitForLifecycle("offerReceived", after: before, timeout: 10) {
                ($0["peer"] as? String) == origin.name
            },
            "no offer from \(origin.name)")
    }

    @Test func discoverOfferAndContinueWithTheOriginsState() throws {
        let world = try HeadlessProcessWorld()
        let laptop = try world.start("Laptop", kind: "laptop")
        let phone = try world.start("Phone")
        try offer(
            from: laptop, to: phone,
            userInfo: ["page": 3, "scroll": 0.25, "document": "moby.txt", "chapters": [1, 2, 3]])
        // The state changes after the offer; the origin saves right before the payload leaves.
        try laptop.send(["cmd": "update", "userInfo": ["page": 4]])
        let mark = phone.received.count
        try phone.send(["cmd": "continue", "peer": try #require(world.id(of: laptop))])
        let restored = try #require(phone.waitFor(after: mark, timeout: 10) { $0["event"] as? String == "restored" })
        let userInfo = try #require(restored["userInfo"] as? [String: Any])
        #expect(userInfo["page"] as? Int == 4)
        #expect(userInfo["scroll"] as? Double == 0.25)
        #expect(userInfo["document"] as? String == "moby.txt")
        #expect(userInfo["chapters"] as? [Int] == [1, 2, 3])
        #expect(laptop.waitForLifecycle("wasContinued", timeout: 5) != nil)
    }

    @Test func invalidateWithdrawsTheOfferWithinOneSecond() throws {
        let world = try HeadlessProcessWorld()
        let laptop = try world.start("Laptop", kind: "laptop")
        let phone = try world.start("Phone")
        try offer(from: laptop, to: phone)
        let mark = phone.received.count
        let start = Date()
        try laptop.send(["cmd": "invalidate"])
        #expect(
            phone.waitForLifecycle("offerWithdrawn", after: mark, timeout: 1) != nil,
            "the offer was not withdrawn within 1 s")
        #expect(Date().timeIntervalSince(start) < 1)
    }

    @Test func threeDevicesSeeEachOther() throws {
        let world = try HeadlessProcessWorld()
        let laptop = try world.start("Laptop", kind: "laptop")
        let tablet = try world.start("Tablet", kind: "tablet")
        let phone = try world.start("Phone")
        try offer(from: laptop, to: phone)
        try offer(from: tablet, to: phone)
        #expect(laptop.waitForLifecycle("offerReceived", timeout: 5) { $0["peer"] as? String == "Tablet" } != nil)
        let mark = phone.received.count
        try phone.send(["cmd": "peers", "id": "p"])
        let peers = try #require(phone.waitFor(after: mark) { $0["result"] as? String == "peers" })
        let names = ((peers["peers"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
        #expect(Set(names) == ["Laptop", "Tablet"])
    }

    @Test func devicesOfAnotherAccountAreNeverSeen() throws {
        let world = try HeadlessProcessWorld()
        let laptop = try world.start("Laptop", kind: "laptop")
        let stranger = try world.start("Stranger", account: "other-\(UUID().uuidString.prefix(6).lowercased())")
        let phone = try world.start("Phone")
        try offer(from: laptop, to: phone)
        try stranger.send(["cmd": "become-current", "type": Self.readingType, "title": "secret"])
        #expect(phone.waitForLifecycle("offerReceived", timeout: 2) { $0["peer"] as? String == "Stranger" } == nil)
        #expect(
            stranger.waitForLifecycle("offerReceived", timeout: 0.5) == nil,
            "the stranger decoded a beacon of another account")
    }

    @Test func streamsRoundTrip10MiBWithAChecksum() throws {
        let world = try HeadlessProcessWorld()
        let laptop = try world.start("Laptop", kind: "laptop")
        let phone = try world.start("Phone")
        try offer(from: laptop, to: phone, streams: true)
        try phone.send(["cmd": "continue", "peer": try #require(world.id(of: laptop))])
        _ = try #require(phone.waitFor(timeout: 10) { $0["event"] as? String == "restored" })
        try phone.send(["cmd": "streams-open"])
        _ = try #require(
            phone.waitFor(timeout: 10) { $0["event"] as? String == "streams-opened" }, "streams did not open")
        try phone.send(["cmd": "stream-send", "bytes": 10 * 1024 * 1024, "seed": 7])
        try phone.send(["cmd": "stream-close"])
        let sent = try #require(phone.waitFor(timeout: 60) { $0["event"] as? String == "stream-sent" })
        let finished = try #require(phone.waitFor(timeout: 60) { $0["event"] as? String == "stream-finished" })
        #expect(finished["bytes"] as? Int == 10 * 1024 * 1024)
        #expect(finished["sha256"] as? String == sent["sha256"] as? String)
    }

    @Test func originKilledBeforeTheFetch() throws {
        let world = try HeadlessProcessWorld()
        let laptop = try world.start("Laptop", kind: "laptop")
        let phone = try world.start("Phone")
        try offer(from: laptop, to: phone)
        let laptopID = try #require(world.id(of: laptop))
        laptop.kill()
        _ = laptop.waitForExit()
        let mark = phone.received.count
        try phone.send(["cmd": "continue", "peer": laptopID])
        let failed = try #require(
            phone.waitFor(after: mark, timeout: 5) { $0["event"] as? String == "continue-failed" })
        #expect(failed["code"] as? Int == 4609)
        #expect(phone.received.contains { $0["event"] as? String == "restored" } == false)
    }

    @Test func originKilledDuringTheFetch() throws {
        let world = try HeadlessProcessWorld()
        let laptop = try world.start("Laptop", kind: "laptop")
        let phone = try world.start("Phone")
        try offer(from: laptop, to: phone)
        let laptopID = try #require(world.id(of: laptop))
        // Freeze the origin so the fetch is in flight, then kill it.
        Foundation.kill(laptop.process.processIdentifier, SIGSTOP)
        let mark = phone.received.count
        try phone.send(["cmd": "continue", "peer": laptopID])
        _ = try #require(phone.waitForLifecycle("fetchStarted", after: mark, timeout: 5), "the fetch did not start")
        laptop.kill()
        let failed = try #require(
            phone.waitFor(after: mark, timeout: 6) { $0["event"] as? String == "continue-failed" })
        #expect([4609, 4610].contains(failed["code"] as? Int ?? 0))
        #expect(phone.received.contains { $0["event"] as? String == "restored" } == false)
    }

    @Test func originKilledDuringAStreamEndsItWithAnError() throws {
        let world = try HeadlessProcessWorld()
        let laptop = try world.start("Laptop", kind: "laptop")
        let phone = try world.start("Phone")
        try offer(from: laptop, to: phone, streams: true)
        try phone.send(["cmd": "continue", "peer": try #require(world.id(of: laptop))])
        _ = try #require(phone.waitFor(timeout: 10) { $0["event"] as? String == "restored" })
        try phone.send(["cmd": "streams-open"])
        _ = try #require(phone.waitFor(timeout: 10) { $0["event"] as? String == "streams-opened" })
        try laptop.send(["cmd": "stream-mode", "mode": "sink"])
        laptop.kill()
        try phone.send(["cmd": "stream-send", "bytes": 64 * 1024 * 1024, "seed": 1])
        let error = phone.waitFor(timeout: 20) { $0["event"] as? String == "stream-error" }
        #expect(error != nil, "the stream did not end with an error")
    }

    @Test func aRevokedDeviceCanNoLongerContinue() throws {
        let world = try HeadlessProcessWorld()
        let laptop = try world.start("Laptop", kind: "laptop")
        let phone = try world.start("Phone")
        try offer(from: laptop, to: phone)
        let laptopID = try #require(world.id(of: laptop))
        let phoneID = try #require(world.id(of: phone))
        // Revoke the phone on this host; the laptop re-reads the account for every session.
        let revoke = try ChildProcess.run(
            try #require(HandoffExecutable.url).path,
            ["account", "devices", world.account, "--revoke", phoneID, "--config-dir", world.directory.path])
        #expect(revoke.termination == .exited(0), "\(revoke.output)")
        let mark = phone.received.count
        try phone.send(["cmd": "continue", "peer": laptopID])
        let failed = try #require(
            phone.waitFor(after: mark, timeout: 10) { $0["event"] as? String == "continue-failed" })
        #expect(failed["code"] as? Int == 4609)
        #expect(phone.received[mark...].contains { $0["event"] as? String == "restored" } == false)
        // The laptop keeps its activity: a device that is still trusted continues it.
        let tablet = try world.start("Tablet", kind: "tablet")
        try laptop.send(["cmd": "update", "userInfo": ["page": 5]])
        let tabletMark = tablet.received.count
        _ = try #require(
            tablet.waitForLifecycle("offerReceived", timeout: 10) { $0["peer"] as? String == "Laptop" },
            "the tablet saw no offer from the laptop")
        try tablet.send(["cmd": "continue", "peer": laptopID])
        let restored = try #require(
            tablet.waitFor(after: tabletMark, timeout: 10) { $0["event"] as? String == "restored" },
            "tablet: \(tablet.received.map { "\($0)" }.joined(separator: "\n"))\nlaptop: \(laptop.received.suffix(15).map { "\($0)" }.joined(separator: "\n"))\n\(laptop.standardError)"
        )
        #expect((restored["userInfo"] as? [String: Any])?["page"] as? Int == 5)
    }

    @Test func garbageOnTheSessionPortNeverHurtsTheDevice() throws {
        let world = try HeadlessProcessWorld()
        let laptop = try world.start("Laptop", kind: "laptop")
        let phone = try world.start("Phone")
        try offer(from: laptop, to: phone)
        let port = try #require(laptop.received.first { $0["event"] as? String == "ready" }?["sessionPort"] as? Int)
        // Plain bytes, a truncated TLS record and an immediate close, several times.
        for payload in [
            Array("GET / HTTP/1.1\r\n\r\n".utf8), [0x16, 0x03, 0x01, 0x00],
            (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }, [],
        ] {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #expect(descriptor >= 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            #expect(connected == 0)
            if !payload.isEmpty { _ = payload.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } }
            close(descriptor)
        }
        let mark = phone.received.count
        try phone.send(["cmd": "continue", "peer": try #require(world.id(of: laptop))])
        #expect(
            phone.waitFor(after: mark, timeout: 10) { $0["event"] as? String == "restored" } != nil,
            "the origin did not survive: \(laptop.standardError)")
    }

    @Test func aThousandContinuationsLeakNoFileDescriptors() throws {
        let world = try HeadlessProcessWorld()
        let laptop = try world.start("Laptop", kind: "laptop")
        let phone = try world.start("Phone")
        try offer(from: laptop, to: phone)
        let laptopID = try #require(world.id(of: laptop))
        func descriptors(_ process: HeadlessProcess) -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.process.processIdentifier)/fd").count)
                ?? -1
        }
        // Warm up: the first continuation opens the pooled session.
        try phone.send(["cmd": "continue", "peer": laptopID])
        _ = try #require(phone.waitFor(timeout: 10) { $0["event"] as? String == "restored" })
        let before = (descriptors(laptop), descriptors(phone))
        var restoredCount = 1
        for round in 0..<1000 {
            let mark = phone.received.count
            try phone.send(["cmd": "continue", "peer": laptopID])
            guard phone.waitFor(after: mark, timeout: 10, where: { $0["event"] as? String == "restored" }) != nil else {
                Issue.record("continuation \(round) did not complete")
                break
            }
            restoredCount += 1
        }
        #expect(restoredCount == 1001)
        let after = (descriptors(laptop), descriptors(phone))
        #expect(after.0 <= before.0 + 2, "laptop descriptors: \(before.0) → \(after.0)")
        #expect(after.1 <= before.1 + 2, "phone descriptors: \(before.1) → \(after.1)")
    }
}
