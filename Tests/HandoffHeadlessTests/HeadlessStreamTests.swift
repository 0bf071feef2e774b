import Crypto
import Foundation
import HandoffCore
import HandoffHeadless
import HandoffTestSupport
import Testing

@Suite("Headless continuation streams", .ownThread)
struct HeadlessStreamTests {
    func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// The laptop offers a streams activity, the phone continues it and opens the streams.
    func openStreams(_ world: HeadlessWorld, laptop: HeadlessNode, phone: HeadlessNode) async throws {
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "title": "Big", "streams": true])
        world.hood.settle()
        let offer = try #require(phone.ok(["cmd": "peers"])["peers"]?.arrayValue?.first)
        #expect(offer["options"]?.arrayValue?.contains("supportsContinuationStreams") == true)
        phone.ok(["cmd": "continue", "peer": "Laptop"])
        world.hood.settle()
        #expect(phone.events("restored").first?["streams"] == true)
        phone.ok(["cmd": "streams-open", "id": 1])
        // The neighbourhood delivers the request and the answer as time passes.
        for _ in 0..<20 where phone.events("streams-opened").isEmpty && phone.events("stream-error").isEmpty {
            world.hood.settle()
        }
        let opened = try await phone.waitForEvent("streams-opened")
        #expect(opened.first?["side"] == "continuing")
        let originOpened = try await laptop.waitForEvent("streams-opened")
        #expect(originOpened.first?["side"] == "origin")
        #expect(laptop.lifecycleKinds.contains("streamsOpened"))
        #expect(phone.lifecycleKinds.contains("streamsOpened"))
    }

    @Test func oneMebibyteIsEchoedWithAMatchingDigest() async throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        try await openStreams(world, laptop: laptop, phone: phone)
        #expect(laptop.events("streams-opened").first?["mode"] == "echo")
        let size = 1 << 20
        let queued = phone.ok(["cmd": "stream-send", "bytes": .integer(Int64(size)), "seed": 42, "close": true])
        #expect(queued["queued"] == .integer(Int64(size)))
        let expected = sha256(PseudoRandomBytes.bytes(size, seed: 42))

        let sent = try #require(try await phone.waitForEvent("stream-sent").first)
        #expect(sent["bytes"] == .integer(Int64(size)))
        #expect(sent["sha256"] == .string(expected))
        let back = try #require(try await phone.waitForEvent("stream-finished").first)
        #expect(back["side"] == "continuing")
        #expect(back["bytes"] == .integer(Int64(size)))
        #expect(back["sha256"] == .string(expected))
        #expect(back["text"] == nil)
        let atOrigin = try #require(try await laptop.waitForEvent("stream-finished").first)
        #expect(atOrigin["side"] == "origin")
        #expect(atOrigin["sha256"] == .string(expected))
        let echoClosed = try #require(try await laptop.waitForEvent("stream-closed").first)
        #expect(echoClosed["bytes"] == .integer(Int64(size)))
        let closed = try #require(try await phone.waitForEvent("stream-closed").first)
        #expect(closed["sha256"] == .string(expected))
        #expect(phone.events("stream-error").isEmpty && laptop.events("stream-error").isEmpty)
        // Echo mode owns the origin's output.
        #expect(laptop.fails(raw: #"{"cmd":"stream-send","side":"origin","text":"x"}"#).contains("echoes"))
        #expect(phone.fails(raw: #"{"cmd":"stream-send","text":"late"}"#).contains("closed"))
    }

    @Test func sinkModeLetsTheOriginAnswer() async throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "stream-mode", "mode": "sink"])
        try await openStreams(world, laptop: laptop, phone: phone)
        #expect(laptop.events("streams-opened").first?["mode"] == "sink")
        phone.ok(["cmd": "stream-send", "text": "send me chapter 3"])
        phone.ok(["cmd": "stream-send", "base64": "AQID"])
        phone.ok(["cmd": "stream-close"])
        let request = try #require(try await laptop.waitForEvent("stream-finished").first)
        #expect(request["bytes"] == .integer(Int64("send me chapter 3".utf8.count + 3)))
        #expect(request["sha256"] == .string(sha256(Array("send me chapter 3".utf8) + [1, 2, 3])))
        let sent = try await phone.waitForEvent("stream-sent", count: 2)
        #expect(sent.last?["totalBytes"] == .integer(Int64("send me chapter 3".utf8.count + 3)))
        #expect(sent.last?["totalSha256"] == request["sha256"])

        laptop.ok(["cmd": "stream-send", "side": "origin", "text": "Chapter 3. The Spouter-Inn."])
        laptop.ok(["cmd": "stream-close", "side": "origin"])
        let answer = try #require(try await phone.waitForEvent("stream-finished").first)
        #expect(answer["text"] == "Chapter 3. The Spouter-Inn.")
        #expect(laptop.fails(raw: #"{"cmd":"stream-close","side":"origin"}"#).contains("already closed"))
        #expect(laptop.fails(raw: #"{"cmd":"stream-send","stream":99,"text":"x"}"#).contains("no stream 99"))
    }

    @Test func streamsNeedAStreamsActivity() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType)])
        world.hood.settle()
        phone.ok(["cmd": "continue"])
        world.hood.settle()
        #expect(phone.fails(raw: #"{"cmd":"streams-open"}"#).contains("does not support continuation streams"))
    }

    @Test func aSecondOpeningIsRefused() async throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        try await openStreams(world, laptop: laptop, phone: phone)
        phone.ok(["cmd": "streams-open"])
        for _ in 0..<20 where phone.events("stream-error").isEmpty { world.hood.settle() }
        let error = try #require(phone.events("stream-error").first)
        #expect(error["stage"] == "open")
        #expect(error["error"]?.stringValue?.contains("refused") == true)
        #expect(laptop.lifecycleKinds.contains("streamsRefused"))
    }
}
