import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads the headless device's commands from a file descriptor, one line at a time, never
/// holding more than ``maximumLineBytes`` of one line.
///
/// The largest legal command is a `become-current` or `update` whose userInfo makes a payload at
/// the largest payload limit (512 KiB by default; binary data goes as base64, a third larger),
/// far below the limit. A longer line is read through to its end without being kept and comes
/// out as ``Line/tooLong(bytes:)``, which the device answers with an error, and the next line is
/// read as usual.
package struct HeadlessInput {
    /// The longest command line accepted, in bytes (without its newline).
    package static let maximumLineBytes = 8 << 20

    package enum Line: Sendable, Hashable {
        case text(String)
        /// A line of `bytes` bytes (at least, when the input ended inside it) over the limit.
        case tooLong(bytes: Int)

        /// The error a too-long line gets.
        package static func tooLongMessage(bytes: Int, limit: Int = HeadlessInput.maximumLineBytes) -> String {
            "line of \(bytes) bytes is longer than the \(limit)-byte limit of a command; it was skipped"
        }
    }

    private let descriptor: Int32
    private let limit: Int
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    private var chunkStart = 0
    private var chunkEnd = 0
    private var atEnd = false

    package init(descriptor: Int32 = 0, limit: Int = HeadlessInput.maximumLineBytes) {
        self.descriptor = descriptor
        self.limit = limit
    }

    /// The next line, or nil at the end of the input. A final line without a newline counts.
    package mutating func next() -> Line? {
        buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
        var skipped = 0
        while true {
            if chunkStart == chunkEnd {
                guard !atEnd, refill() else {
                    atEnd = true
                    if skipped > 0 { return .tooLong(bytes: skipped) }
                    return buffer.isEmpty ? nil : .text(decode())
                }
            }
            let newline = chunk[chunkStart..<chunkEnd].firstIndex(of: 0x0A)
            let end = newline ?? chunkEnd
            let count = end - chunkStart
            if skipped > 0 || buffer.count + count > limit {
                skipped += buffer.count + count
                buffer.removeAll()
            } else {
                buffer.append(contentsOf: chunk[chunkStart..<end])
            }
            chunkStart = end
            if newline != nil {
                chunkStart += 1
                if skipped > 0 { return .tooLong(bytes: skipped) }
                return .text(decode())
            }
        }
    }

    private func decode() -> String {
        var bytes = buffer[...]
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads the next chunk; false at the end of the input or on an error.
    private mutating func refill() -> Bool {
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            chunkStart = 0
            chunkEnd = count
            return true
        }
    }
}
