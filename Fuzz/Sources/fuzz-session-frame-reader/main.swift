// The frame reader the session pipeline uses (`SessionFrameReader`), in an embedded channel: the
// input is a byte stream cut into reads at sizes taken from the input itself, so partial length
// prefixes and bodies split across reads are exercised. Frames come out whole or the channel
// fails and closes; nothing is delivered after a failure.
import NIOCore
import NIOEmbedded

@testable import HandoffNetwork

final class Collect: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = SessionFrame
    var frames: [SessionFrame] = []
    var errors = 0
    func channelRead(context: ChannelHandlerContext, data: NIOAny) { frames.append(unwrapInboundIn(data)) }
    func errorCaught(context: ChannelHandlerContext, error: any Error) { errors += 1 }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSessionFrameReader(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    guard let first = bytes.first else { return 0 }
    // The first byte sets the read size (1 to 128 bytes), so one input is one way to split it, and
    // its top bit whether whole data frames pass as slices of the read (as on a connection that
    // carries a stream). A long input is cut into at most 64 reads: split prefixes and bodies need
    // only a few cuts, and thousands of one-byte reads per input made the run ten times slower
    // without new coverage.
    let stream = bytes.dropFirst()
    let step = max(Int(first & 0x7F) + 1, (stream.count + 63) / 64)
    let channel = EmbeddedChannel()
    let collect = Collect()
    // A small maximum, so the over-length branch is reachable by the fuzzer.
    let budget = SessionReadBudget(total: 1 << 16)
    let reader = SessionFrameReader(maximumFrameLength: 4096, budget: budget)
    reader.slicesWholeDataFrames = first & 0x80 != 0
    try! channel.pipeline.syncOperations.addHandler(reader)
    try! channel.pipeline.syncOperations.addHandler(collect)
    // An embedded channel starts inactive, and the loop below feeds only an active one (a reader
    // that fails closes it): without this, no byte ever reached the reader.
    try! channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
    precondition(channel.isActive)
    var index = stream.startIndex
    while index < stream.endIndex, channel.isActive {
        let end = min(index + step, stream.endIndex)
        _ = try? channel.writeInbound(ByteBuffer(bytes: stream[index..<end]))
        index = end
    }
    // Every frame delivered decodes again from its own encoding.
    for frame in collect.frames {
        var encoded = ByteBuffer()
        try! SessionFrameEncoder().encode(data: frame, out: &encoded)
        encoded.moveReaderIndex(forwardBy: 4)
        check((try? SessionFrameDecoder.decodeBody(&encoded)) == frame, "a delivered frame does not round-trip")
    }
    check(collect.errors <= 1, "more than one error from one connection")
    _ = try? channel.finish()
    // A reader that failed closed the channel itself; the pipeline's teardown after a close is a
    // task on the embedded loop, run only when asked (finish() throws for a closed channel before
    // it runs them), and until then the channel and its pipeline hold each other.
    channel.embeddedEventLoop.run()
    check(budget.inUse == 0, "the read budget still holds \(budget.inUse) bytes after the connection ended")
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
