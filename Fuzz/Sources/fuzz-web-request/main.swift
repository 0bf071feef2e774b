// The local web server's request path, as `handoff web serve` runs it: the raw bytes of an
// HTTP/1.1 connection go through the same channel handlers Hummingbird's HTTP/1 server puts in
// front of its responder (NIOHTTP1's decoder with the server's header limits, then the
// conversion to Swift HTTP types), and every complete request reaches the server's own handler
// (`Responder.respond`, with the demo sites and a rehearsal chosen by the input's first byte).
// Checks: no crash on any Host, target or header; every answer is a status the server means to
// give, with a body under 1 MiB; a host the server does not serve gets 421 and no page; every
// log line is printable (no control character from the request reaches a terminal) and short.
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization

@testable import HandoffWeb

/// The repository's demo sites, next to this package.
let sites = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("demos/sites", isDirectory: true)
let hosts = ["handoffsim.example", "maps.handoffsim.example", "reader.handoffsim.example"]
let rehearsals: [Rehearsal?] = [
    nil, .missing, .notJSON, .wrong, .unapproving, .wrongContentType, .redirect, .redirectLoop, .tooLarge,
]
let logged = Mutex<[String]>([])

func responder(_ rehearsal: Rehearsal?) -> Responder {
    let configuration = SiteServer.Configuration(
        sites: sites, hosts: hosts,
        pages: { url in
            SiteResponse(status: 200, contentType: "text/plain", body: Data(url.absoluteString.utf8.prefix(4096)))
        },
        folder: WebFolder(url: URL(fileURLWithPath: "/nonexistent/handoff-fuzz")),
        rehearsals: rehearsal.map { rehearsal in ["maps.handoffsim.example": rehearsal] } ?? [:],
        writesHostsMap: false)
    return Responder(configuration: configuration, log: { line in logged.withLock { $0.append(line) } })
}
let responders = rehearsals.map(responder)

/// Runs `body` to its end on the concurrency pool and waits for it (the handler is async).
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await body()
            result.withLock { $0 = .success(value) }
        } catch { result.withLock { $0 = .failure(error) } }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebRequest(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    guard let first = bytes.first else { return 0 }
    let handler = responders[Int(first) % responders.count]
    let channel = EmbeddedChannel()
    defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
    let limits = HTTP1Channel.Configuration().httpDecoder
    var decoderLimits = NIOHTTPDecoderLimitConfiguration()
    decoderLimits.maxHeaderFieldSize = limits.maxHeaderFieldSize
    decoderLimits.maxHeaderListSize = limits.maxHeaderListSize
    decoderLimits.maxHeaderFieldCount = limits.maxHeaderFieldCount
    do {
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
            withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoderLimits)
        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: first & 0x80 != 0))
    } catch {
        fatalError("pipeline: \(error)")
    }
    // The connection's bytes, in reads of 1 to 64 bytes or whole (the second byte chooses).
    let stream = bytes.dropFirst()
    let step = stream.first.map { $0 == 0 ? stream.count : Int($0 % 64) + 1 } ?? 1
    var offset = stream.startIndex
    var parts: [HTTPRequestPart] = []
    while offset < stream.endIndex {
        let end = min(offset + max(step, 1), stream.endIndex)
        do {
            try channel.writeInbound(ByteBuffer(bytes: stream[offset..<end]))
        } catch {
            break  // the decoder refused the bytes: the server closes the connection
        }
        while let part = try? channel.readInbound(as: HTTPRequestPart.self) { parts.append(part) }
        offset = end
    }
    // Every request whose head arrived reaches the handler, as the server's would.
    for case .head(let head) in parts {
        let request = Request(head: head, body: .init(buffer: ByteBuffer()))
        logged.withLock { $0.removeAll() }
        let result = blocking { try await handler.respond(to: request) }
        guard case .success(let response) = result else {
            fatalError("the handler threw: \(result)")
        }
        let status = response.status.code
        check([200, 301, 302, 400, 404, 421].contains(status), "status \(status)")
        if let authority = head.authority {
            let host = Responder.hostName(of: authority)
            let served = hosts.contains(host) || hosts.contains { host.hasSuffix("." + $0) }
            check(served || status == 421, "an unserved host \(authority.debugDescription) got \(status)")
        } else {
            check(status == 421, "no Host got \(status)")
        }
        for line in logged.withLock({ $0 }) {
            check(line.utf8.count <= 1024, "a log line of \(line.utf8.count) bytes")
            check(
                !line.unicodeScalars.contains { $0.properties.generalCategory == .control },
                "a control character in the log: \(line.debugDescription)")
        }
        // The answer's head goes out through the same encoder.
        try? channel.writeOutbound(HTTPResponsePart.head(response.head))
        if let out = try? channel.readOutbound(as: ByteBuffer.self) {
            check(
                out.readableBytesView.starts(with: Array("HTTP/1.1 ".utf8)), "the answer does not start with HTTP/1.1")
        }
    }
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
