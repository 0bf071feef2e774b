import Foundation
import HandoffCore
import NIOCore
import NIOPosix
import Testing

@testable import HandoffNetwork

/// Reasons that reach the screens (the lifecycle log's "4609 …: could not reach Laptop: …", a
/// Reader's "Could not receive …") say what the system said in words, never "(errno: 111)".
@Suite("Network errors in words")
struct NetworkErrorWordsTests {
    @Test func systemErrorsAreWordsWithoutErrno() {
        let refused = IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)")
        #expect("\(refused)".contains("errno"), "NIO's own text, which the screens must not show")
        #expect(NetworkErrorWords.describe(refused) == "connection refused (nothing listens there)")
        for code in [ECONNRESET, ECONNABORTED, EPIPE, ETIMEDOUT, EHOSTUNREACH, 9999] {
            let text = NetworkErrorWords.describe(IOError(errnoCode: code, reason: "read(descriptor:pointer:size:)"))
            #expect(!text.contains("errno") && !text.contains("descriptor"), "\(text)")
        }
        #expect(NetworkErrorWords.describe(ContinuationStreamError.closed) == "the stream is closed")
    }

    /// A real refused connect on loopback, as NIO reports it.
    @Test func aRefusedConnectIsSaidInWords() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // A port nothing listens on: bound, read, closed.
        let server = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        try await server.close()
        var caught: (any Error)?
        do {
            let channel = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get()
            try await channel.close()
        } catch {
            caught = error
        }
        try await group.shutdownGracefully()
        let error = try #require(caught)
        let text = NetworkErrorWords.describe(error)
        #expect(text.hasPrefix("connection refused"), "\(text) (from \(error))")
        #expect(!text.contains("errno"), "\(text)")
    }
}
