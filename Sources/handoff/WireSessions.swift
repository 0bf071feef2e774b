import Foundation
import HandoffCore
import HandoffNetwork
import HandoffProcesses

/// `handoff wire decode --key-log`: the sessions' frames. tshark decrypts the TLS with the key
/// log the devices wrote (docs/wire.md, "Looking at the wire": NIOSSL does not expose record
/// decryption, and the project writes no cryptography of its own), and ``SessionTranscript``
/// reads its output with the session's own frame decoder. Nothing here stops the command: a
/// missing tshark, a failed run or output that does not read is one line, after the beacons.
struct WireSessions {
    var capture: String
    var keyLog: String
    /// The capture's size, which bounds how much tshark may print.
    var captureBytes: Int
    var listeners: [SessionTranscript.Listener]
    /// The tshark to run (nil: the first on the PATH, or /usr/bin/tshark).
    var tsharkPath: String?

    /// The most connections followed in one run.
    static let maximumFollowed = 2000
    /// How long one tshark run may take.
    static let timeout: TimeInterval = 600

    func lines() -> [String] {
        if let tsharkPath, !FileManager.default.isExecutableFile(atPath: tsharkPath) {
            return ["session frames not read: there is no tshark at \(tsharkPath) (--tshark)"]
        }
        guard let tshark = tsharkPath ?? Self.tshark() else {
            return [
                "session frames not read: tshark is not installed (apt-get install tshark); it decrypts the sessions' TLS with the key log"
            ]
        }
        // Without its list, nothing is disabled: a guessing dissector may then hide a frame.
        let guessing =
            (try? run(tshark, TsharkOutput.heuristicListArguments)).map(TsharkOutput.protocolsGuessingOnTLS) ?? []
        let streams: [TCPStreamSummary]
        do {
            let listing = try run(
                tshark, TsharkOutput.streamListArguments(capture: capture, keyLog: keyLog, disabling: guessing))
            streams = try TsharkOutput.streams(fromList: listing)
        } catch {
            return ["session frames not read: \(error)"]
        }
        let transcript = SessionTranscript(listeners: listeners)
        var (follow, _) = transcript.plan(streams)
        var lines = [
            "Session frames, decrypted by \(tshark) with the key log \(keyLog), connection by connection "
                + "(each connection's frames in capture order):"
        ]
        if follow.count > Self.maximumFollowed {
            lines.append("only the first \(Self.maximumFollowed) of \(follow.count) sessions are followed")
            follow.removeLast(follow.count - Self.maximumFollowed)
        }
        var followed: [FollowedStream] = []
        if !follow.isEmpty {
            do {
                let output = try run(
                    tshark,
                    TsharkOutput.followArguments(
                        capture: capture, keyLog: keyLog, streams: follow, disabling: guessing))
                followed = try TsharkOutput.followed(output)
            } catch {
                lines.append("session frames not read: \(error)")
                return lines
            }
        }
        let (told, counts) = transcript.lines(streams: streams, followed: followed)
        lines.append(contentsOf: told)
        lines.append(
            "\(counts.sessions) sessions read: \(counts.frames) frames, \(counts.refused) refused; "
                + "\(counts.notDecrypted) connections not decrypted, \(counts.notFollowed) not read")
        return lines
    }

    /// `tshark` on the PATH, or /usr/bin/tshark.
    static func tshark() -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for directory in directories + ["/usr/bin"] where !directory.isEmpty {
            let path = directory + "/tshark"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Why a tshark run gave nothing to read.
    struct RunFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs tshark to its end and returns its standard output (standard error only when it fails).
    private func run(_ tshark: String, _ arguments: [String]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-wire-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("stdout").path
        let errors = folder.appendingPathComponent("stderr").path
        let child = try ChildProcess(
            executable: tshark, arguments: arguments, standardOutput: .file(output), standardError: .file(errors))
        guard let termination = child.waitForExit(timeout: Self.timeout) else {
            child.send(SIGKILL)
            child.waitForExit()
            throw RunFailure(description: "tshark did not finish within \(Int(Self.timeout)) s")
        }
        guard termination == .exited(0) else {
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            let last = said.split(separator: "\n").last { !$0.contains("could be dangerous") }
            throw RunFailure(
                description:
                    "tshark ended with \(termination)\(last.map { ": \(TerminalText.sanitized(String($0.prefix(300))))" } ?? "")"
            )
        }
        // Hex doubles the decrypted bytes, which are fewer than the captured ones; lines add little.
        let limit = 4 * captureBytes + (1 << 20)
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        guard size <= limit else {
            throw RunFailure(description: "tshark printed \(size) bytes, more than \(limit) for this capture")
        }
        guard let data = FileManager.default.contents(atPath: output) else {
            throw RunFailure(description: "tshark's output could not be read back")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw RunFailure(description: "tshark's output is not UTF-8")
        }
        return text
    }
}
