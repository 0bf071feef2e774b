import Foundation
import HandoffCore
import HandoffWeb
import Logging
import Synchronization

/// Writes log lines to a file (never to the screen: the terminal belongs to curses).
///
/// One line per message: an ISO 8601 timestamp, the level, the label and the message, then any
/// metadata as `key=value`. Lines are written whole with one `write(2)` each, from any thread.
struct FileLogHandler: LogHandler {
    let sink: FileLogSink
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let details =
            all.isEmpty
            ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink.write("\(sink.timestamp()) \(event.level) [\(label)] \(event.message)\(details)")
    }
}

/// The open log file, shared by every handler.
final class FileLogSink: Sendable {
    let url: URL
    /// The open file; writes hold the lock so lines from different threads never interleave.
    private let handle: Mutex<FileHandle>
    /// The file's descriptor, for sending standard error to the log.
    let fileDescriptor: Int32?

    /// Opens (creating folders as needed) `url` for appending, readable by the user only.
    init(url: URL) throws {
        self.url = url
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        if !FileManager.default.fileExists(atPath: url.path) {
            guard
                FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
            else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        // Appending (O_APPEND): standard error shares this descriptor while curses runs, so a
        // crash report written there lands after the last line, never over it.
        let descriptor = open(url.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
        fileDescriptor = descriptor
        handle = Mutex(FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
    }

    func timestamp() -> String {
        Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Writes `line` whole; what peers said in it (names, reasons) goes through the sanitizer, so
    /// `tail -f` on the log never runs a peer's escape sequence.
    func write(_ line: String) {
        let safe = TerminalText.sanitized(line)
        handle.withLock { $0.write(Data((safe + "\n").utf8)) }
    }

    /// The default log file: `$XDG_STATE_HOME/handoff/<device>.log`, else `~/.local/state/…`.
    static func defaultURL(
        deviceName: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        let safeName = String(deviceName.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
        return WebFolder.stateFolder(environment: environment).appendingPathComponent("\(safeName).log")
    }
}
