import Foundation
import HandoffCore
import NIOCore

/// Carries continuation-stream bytes between a session connection and an app's
/// ``ContinuationStreams``, in both directions, with backpressure.
///
/// Socket to app: each data frame is written into `toApp`, which waits until the app has taken
/// earlier chunks; the next frame is read only then. App to socket: each chunk the app writes is
/// sent as a frame, waiting for the channel to accept it. A clean end or a failure on either side
/// ends the other side: if the connection drops, the app's reads throw, so nothing hangs.
package enum StreamBridge {
    /// The largest chunk of stream bytes in one frame (the bench, HandoffBench, writes chunks of it).
    package static let chunkSize = 64 * 1024

    static func run(inbound: NIOAsyncChannelInboundStream<SessionFrame>.AsyncIterator,
                    outbound: NIOAsyncChannelOutboundWriter<SessionFrame>,
                    toApp: ContinuationOutputStream,
                    fromApp: ContinuationInputStream) async {
        let reader = UncheckedIterator(inbound)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = reader.take()
                do {
                    while let frame = try await iterator.next() {
                        switch frame {
                        case .streamData(let buffer):
                            try await toApp.write(Array(buffer.readableBytesView))
                        case .streamEnd:
                            await toApp.close()
                            return
                        case .streamFailed(let reason):
                            await toApp.close(with: ContinuationStreamError.unavailable("the peer failed the stream: \(reason)"))
                            return
                        default:
                            await toApp.close(with: ContinuationStreamError.unavailable("unexpected frame in a stream"))
                            return
                        }
                    }
                    await toApp.close(with: ContinuationStreamError.unavailable("the connection closed before the stream ended"))
                } catch {
                    await toApp.close(with: ContinuationStreamError.unavailable("the connection failed: \(error)"))
                }
            }
            group.addTask {
                do {
                    for try await chunk in fromApp {
                        var start = 0
                        while start < chunk.count {
                            let end = min(start + chunkSize, chunk.count)
                            try await outbound.write(.streamData(ByteBuffer(bytes: chunk[start..<end])))
                            start = end
                        }
                    }
                    try await outbound.write(.streamEnd)
                } catch {
                    try? await outbound.write(.streamFailed(reason: "\(error)"))
                    fromApp.cancel()
                }
            }
        }
    }
}

/// Moves a non-Sendable iterator into exactly one child task.
final class UncheckedIterator<Iterator>: @unchecked Sendable {
    private var iterator: Iterator?
    init(_ iterator: Iterator) { self.iterator = iterator }
    func take() -> Iterator {
        defer { iterator = nil }
        return iterator!
    }
}
