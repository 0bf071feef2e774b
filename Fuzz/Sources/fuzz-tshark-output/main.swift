// tshark's text as `handoff wire decode --key-log` reads it (`TsharkOutput`), then the session
// transcript (`SessionTranscript`) over what was read. The first byte chooses: the stream list
// alone, the follow output alone, or both (split at the first NUL byte) and the transcript.
// Errors must name a line of the text and stay short; what is read must be read the same way
// twice, and the transcript may count no more frames than the followed bytes could hold.
@testable import HandoffNetwork

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTsharkOutput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    guard let mode = bytes.first else { return 0 }
    let rest = bytes.dropFirst()
    let split = rest.firstIndex(of: 0) ?? rest.endIndex
    let list = String(decoding: mode % 3 == 1 ? [] : rest[..<split], as: UTF8.self)
    let follow = String(
        decoding: mode % 3 == 0 ? [] : (mode % 3 == 1 ? rest[...] : rest[split...].dropFirst()), as: UTF8.self)
    func checked(_ error: TsharkOutputError, in text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        check(error.line >= 1 && error.line <= lines, "error line \(error.line) outside the \(lines) lines")
        check(error.description.utf8.count < 4096, "error message over 4 KB")
    }
    var streams: [TCPStreamSummary] = []
    do {
        streams = try TsharkOutput.streams(fromList: list)
        check((try? TsharkOutput.streams(fromList: list)) == streams, "the same list read differently twice")
    } catch {
        checked(error, in: list)
    }
    var followed: [FollowedStream] = []
    do {
        followed = try TsharkOutput.followed(follow)
        check((try? TsharkOutput.followed(follow)) == followed, "the same follow output read differently twice")
    } catch {
        checked(error, in: follow)
    }
    let (_, counts) = SessionTranscript(listeners: []).lines(streams: streams, followed: followed)
    let followedBytes = followed.reduce(0) { $0 + $1.records.reduce(0) { $0 + $1.bytes.count } }
    check(counts.frames * 6 <= followedBytes, "more frames than the followed bytes hold")
    return 0
}

/// `precondition` whose message survives a release build (libFuzzer's report shows it).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
