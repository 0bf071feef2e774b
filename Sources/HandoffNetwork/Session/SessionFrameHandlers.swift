import NIOCore

/// The inbound half of a session pipeline: turns the byte stream into ``SessionFrame``s.
///
/// Same wire format and checks as ``SessionFrameDecoder`` (the length is bounded before any body
/// byte is kept, then ``SessionFrameDecoder/decodeBody(_:)`` checks the body), but it does not
/// keep the buffers it is given: a frame's body is copied once into a buffer of its own, and the
/// decoded frame owns that buffer alone. A cumulation buffer shared with frames still in use
/// would be copied again on every append (copy-on-write), and the TLS handler's read buffer would
/// be reallocated on every record; at stream rates those copies cost more than the decryption.
/// The one exception, once a ``StreamChannelHandler`` carries the connection
/// (``slicesWholeDataFrames``): a data frame that arrives whole in one read is passed on as a
/// slice of that read, because that handler copies its bytes into the app's queue before the
/// read returns, so no reference to the read outlives it.
///
/// The body's buffer grows as its bytes arrive (it starts at ``initialBodyCapacity`` at most),
/// never at the length a peer announces, and every byte held is taken from the device's
/// ``SessionReadBudget``: a peer that announces 8 MiB and sends one byte holds one byte.
///
/// A malformed frame, or one that does not fit the budget, fires the error and closes the
/// connection; later bytes are ignored.
final class SessionFrameReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = SessionFrame

    /// A stream chunk (64 KiB) and its header fit at once; larger bodies grow from here.
    static let initialBodyCapacity = 64 * 1024 + 16

    private let maximumFrameLength: Int
    private let budget: SessionReadBudget
    /// The length prefix being read (at most 4 bytes).
    private var prefix: [UInt8] = []
    /// The body being collected, once its length is known.
    private var body: ByteBuffer?
    private var bodyLength = 0
    /// Whether the body's kind was checked against its length (once its first two bytes are in).
    private var kindChecked = false
    /// Bytes of ``body`` taken from the budget.
    private var reserved = 0
    private var failed = false
    /// Set by ``StreamChannelHandler`` when it is added: whole data frames pass as slices.
    var slicesWholeDataFrames = false

    init(maximumFrameLength: Int, budget: SessionReadBudget) {
        self.maximumFrameLength = maximumFrameLength
        self.budget = budget
        prefix.reserveCapacity(4)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        var input = unwrapInboundIn(data)
        while input.readableBytes > 0 {
            if body == nil {
                while prefix.count < 4, let byte = input.readInteger(as: UInt8.self) { prefix.append(byte) }
                guard prefix.count == 4 else { return }
                let length = prefix.withUnsafeBytes { Int(UInt32(bigEndian: $0.loadUnaligned(as: UInt32.self))) }
                prefix.removeAll(keepingCapacity: true)
                guard length >= 2 else {
                    return fail(context, SessionFrameError("frame of \(length) bytes is shorter than its header"))
                }
                guard length <= maximumFrameLength else {
                    return fail(
                        context,
                        SessionFrameError("frame of \(length) bytes exceeds the \(maximumFrameLength)-byte limit"))
                }
                if slicesWholeDataFrames, input.readableBytes >= length,
                    input.getInteger(at: input.readerIndex + 1, as: UInt8.self) == SessionFrame.Kind.streamData.rawValue
                {
                    // A whole data frame in this read: passed on as a slice (see above).
                    var whole = input.readSlice(length: length)!
                    guard deliver(context, &whole) else { return }
                    continue
                }
                body = context.channel.allocator.buffer(capacity: min(length, Self.initialBodyCapacity))
                bodyLength = length
                kindChecked = false
            }
            guard var collected = body else { return }
            body = nil  // keeps `collected` uniquely referenced, so appending never copies it
            let take = min(bodyLength - collected.readableBytes, input.readableBytes)
            guard budget.reserve(take) else {
                return fail(
                    context,
                    SessionFrameError(
                        "no room for the frame: the device already holds \(budget.inUse) bytes of incomplete frames (budget \(budget.total))"
                    ))
            }
            reserved += take
            var part = input.readSlice(length: take)!
            collected.writeBuffer(&part)
            if !kindChecked, collected.readableBytes >= 2 {
                kindChecked = true
                let kind = collected.getInteger(at: collected.readerIndex + 1, as: UInt8.self)
                if kind == SessionFrame.Kind.streamData.rawValue, bodyLength > SessionFrame.maximumStreamDataLength {
                    return fail(context, SessionFrameError.streamDataTooLong(bodyLength))
                }
            }
            guard collected.readableBytes == bodyLength else {
                body = collected
                return
            }
            giveBack()
            guard deliver(context, &collected) else { return }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        body = nil
        giveBack()
    }

    func channelInactive(context: ChannelHandlerContext) {
        body = nil
        giveBack()
        context.fireChannelInactive()
    }

    private func giveBack() {
        budget.release(reserved)
        reserved = 0
    }

    /// Decodes a complete body and passes the frame on; false if the connection failed.
    private func deliver(_ context: ChannelHandlerContext, _ body: inout ByteBuffer) -> Bool {
        let frame: SessionFrame
        do {
            frame = try SessionFrameDecoder.decodeBody(&body)
        } catch {
            fail(context, error)
            return false
        }
        context.fireChannelRead(wrapInboundOut(frame))
        return !failed
    }

    private func fail(_ context: ChannelHandlerContext, _ error: any Error) {
        failed = true
        body = nil
        giveBack()
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }
}

/// The outbound half of a session pipeline: writes ``SessionFrame``s with ``SessionFrameEncoder``,
/// except that a `streamData` frame's bytes are passed on as they are instead of being copied
/// behind the header into a new buffer: with the header already in the buffer just before them
/// (as ``StreamBridge`` packs its frames), as one buffer; otherwise after a separate 6-byte header.
final class SessionFrameWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = SessionFrame
    typealias OutboundOut = ByteBuffer

    /// Below this, copying the data behind the header is cheaper than a second write.
    static let separateHeaderThreshold = 1024

    private let encoder = SessionFrameEncoder()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = unwrapOutboundIn(data)
        if case .streamData(let bytes) = frame, bytes.readableBytes >= Self.separateHeaderThreshold {
            if let whole = Self.withOwnHeader(bytes) {
                // The header is already in the buffer, just before the data (StreamBridge puts it
                // there): one buffer, and one pass through TLS, for the whole frame.
                context.write(wrapOutboundOut(whole), promise: promise)
                return
            }
            var header = context.channel.allocator.buffer(capacity: 6)
            header.writeInteger(UInt32(bytes.readableBytes + 2))
            header.writeInteger(HandoffNetwork.protocolVersion)
            header.writeInteger(SessionFrame.Kind.streamData.rawValue)
            context.write(wrapOutboundOut(header), promise: nil)
            context.write(wrapOutboundOut(bytes), promise: promise)
            return
        }
        var out = context.channel.allocator.buffer(capacity: 64)
        do {
            try encoder.encode(data: frame, out: &out)
        } catch {
            promise?.fail(error)
            return
        }
        context.write(wrapOutboundOut(out), promise: promise)
    }

    /// The data frame's buffer with its header included, if the 6 bytes just before the readable
    /// ones are exactly that header. (Moving the reader index back never copies the buffer.)
    static func withOwnHeader(_ bytes: ByteBuffer) -> ByteBuffer? {
        guard bytes.readerIndex >= StreamBridge.headerLength else { return nil }
        var whole = bytes
        whole.moveReaderIndex(to: bytes.readerIndex - StreamBridge.headerLength)
        let at = whole.readerIndex
        guard whole.getInteger(at: at, as: UInt32.self) == UInt32(bytes.readableBytes + 2),
            whole.getInteger(at: at + 4, as: UInt8.self) == HandoffNetwork.protocolVersion,
            whole.getInteger(at: at + 5, as: UInt8.self) == SessionFrame.Kind.streamData.rawValue
        else { return nil }
        return whole
    }
}
