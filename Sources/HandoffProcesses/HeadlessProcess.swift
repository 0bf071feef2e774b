import Foundation
import HandoffCore

#if canImport(Glibc)
import Glibc
#endif

/// A `handoff device --headless` process driven through its JSON lines: for end-to-end tests
/// and for `handoff scenario`.
///
/// Every stdout line is parsed (HandoffCore's ``JSONValue``, the one JSON model) and kept;
/// ``waitForMessage(after:timeout:where:)`` waits for a matching line with a deadline (never a
/// fixed sleep). ``received`` and ``waitFor(after:timeout:where:)`` give the same lines as
/// Foundation objects (`[String: Any]`, numbers as `NSNumber`, as `JSONSerialization` gave them),
/// for the callers written against them.
package final class HeadlessProcess: @unchecked Sendable {
    package let name: String
    package let process: ChildProcess
    private let lock = NSCondition()
    /// The lines that are JSON objects.
    private var messages: [[String: JSONValue]] = []
    /// The same lines as Foundation objects, made once per line.
    private var lines: [[String: Any]] = []
    private var rawLines: [String] = []
    private var errorText = ""

    /// Starts a headless device. `arguments` come after `device --headless`. `fileLimit` starts
    /// it with at most that many open descriptors (`ulimit -n`), as a starved device would be.
    /// `environment`: the child's variables (this process's when nil), e.g. with `SSLKEYLOGFILE`.
    package convenience init(
        name: String, arguments: [String], executable: URL, fileLimit: Int? = nil,
        environment: [String: String]? = nil
    ) throws {
        try self.init(
            name: name, command: ["device", "--headless", "--name", name] + arguments, executable: executable,
            fileLimit: fileLimit, environment: environment)
    }

    /// Starts `executable` with `command` (another of its commands, such as `web serve`), read
    /// line by line the same way.
    package init(
        name: String, command: [String], executable: URL, fileLimit: Int? = nil, environment: [String: String]? = nil
    ) throws {
        self.name = name
        if let fileLimit {
            process = try ChildProcess(
                executable: "/bin/sh",
                arguments: ["-c", "ulimit -n \(fileLimit) && exec \"$0\" \"$@\"", executable.path] + command,
                environment: environment, standardInput: .pipe, standardOutput: .pipe, standardError: .pipe)
        } else {
            process = try ChildProcess(
                executable: executable.path, arguments: command, environment: environment,
                standardInput: .pipe, standardOutput: .pipe, standardError: .pipe)
        }
        // Blocking reads on threads of their own, not readabilityHandler: see drainOnOwnThread.
        drainOnOwnThread(process.standardOutput!, named: "\(name) stdout") { [weak self] data in
            self?.append(data)
        }
        drainOnOwnThread(process.standardError!, named: "\(name) stderr") { [weak self] data in
            guard let self else { return }
            self.lock.lock()
            self.errorText += String(decoding: data, as: UTF8.self)
            self.lock.unlock()
        }
    }

    deinit {
        process.terminate()
    }

    private var partial = Data()

    private func append(_ data: Data) {
        lock.lock()
        partial.append(data)
        while let newline = partial.firstIndex(of: 0x0A) {
            let lineData = partial[partial.startIndex..<newline]
            partial = Data(partial[partial.index(after: newline)...])
            let line = String(decoding: lineData, as: UTF8.self)
            rawLines.append(line)
            if case .object(let object)? = try? JSONValue.parse(line) {
                messages.append(object)
                lines.append(object.mapValues(\.foundationObject))
            }
        }
        lock.broadcast()
        lock.unlock()
    }

    /// Sends one command (a JSON object of strings, numbers, Booleans, `NSNull`, arrays and
    /// objects of them), written as one line with its keys sorted.
    package func send(_ command: [String: Any]) throws {
        sendLine(try JSONValue(foundationObject: command).jsonText)
    }

    /// Sends one line of text (a command already in JSON).
    package func sendLine(_ line: String) {
        process.standardInput!.write(Data((line + "\n").utf8))
    }

    /// Closes standard input (the device quits).
    package func closeInput() { try? process.standardInput!.close() }

    /// Every line so far that is a JSON object.
    package var receivedMessages: [[String: JSONValue]] {
        lock.lock()
        defer { lock.unlock() }
        return messages
    }

    /// Waits until a JSON object line (after the first `after` of them) matches, or the deadline
    /// passes. Returns the line, or nil on timeout.
    package func waitForMessage(
        after start: Int = 0, timeout: TimeInterval = 10,
        where matches: ([String: JSONValue]) -> Bool
    ) -> [String: JSONValue]? {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        var index = start
        while true {
            while index < messages.count {
                if matches(messages[index]) { return messages[index] }
                index += 1
            }
            if !lock.wait(until: deadline) { return nil }
        }
    }

    /// Every parsed line so far, as Foundation objects.
    package var received: [[String: Any]] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    package var standardError: String {
        lock.lock()
        defer { lock.unlock() }
        return errorText
    }

    /// Waits until a line (after the first `after` lines) matches, or the deadline passes.
    /// Returns the line, or nil on timeout.
    package func waitFor(
        after start: Int = 0, timeout: TimeInterval = 10, where matches: ([String: Any]) -> Bool
    ) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        var index = start
        while true {
            while index < lines.count {
                if matches(lines[index]) { return lines[index] }
                index += 1
            }
            if !lock.wait(until: deadline) { return nil }
        }
    }

    /// How many lines (JSON or not) arrived so far.
    package var rawLineCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return rawLines.count
    }

    /// The lines from index `start` on, as received.
    package func rawLines(from start: Int) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return start < rawLines.count ? Array(rawLines[max(0, start)...]) : []
    }

    /// The last `count` lines, as received.
    package func lastRawLines(_ count: Int) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return Array(rawLines.suffix(count))
    }

    /// Waits until a raw line at index `start` or later satisfies `matches`; returns it with its
    /// index, or nil when the deadline passes.
    package func waitForRawLine(
        from start: Int, timeout: TimeInterval, where matches: (String) -> Bool
    ) -> (index: Int, line: String)? {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        var index = start
        while true {
            while index < rawLines.count {
                if matches(rawLines[index]) { return (index, rawLines[index]) }
                index += 1
            }
            if !lock.wait(until: deadline) { return nil }
        }
    }

    /// Waits for a lifecycle event of `kind`.
    package func waitForLifecycle(
        _ kind: String, after start: Int = 0, timeout: TimeInterval = 10,
        where extra: ([String: Any]) -> Bool = { _ in true }
    ) -> [String: Any]? {
        waitFor(after: start, timeout: timeout) {
            $0["event"] as? String == "lifecycle" && $0["kind"] as? String == kind && extra($0)
        }
    }

    /// Waits for the process to exit; returns its status, or nil on timeout.
    package func waitForExit(timeout: TimeInterval = 10) -> Int32? {
        process.waitForExit(timeout: timeout)?.status
    }

    /// Asks the process to stop (SIGTERM): a headless device says goodbye and exits.
    package func terminate() {
        process.terminate()
    }

    /// Stops the process without letting it clean up.
    package func kill() {
        process.send(SIGKILL)
    }
}

/// What a received line is as Foundation objects, and what a command given as them is in JSON.
extension JSONValue {
    /// The value as `JSONSerialization` gave it: `NSNull`, `NSNumber` (Booleans, integers and
    /// doubles alike, so `as? Int`, `as? Double` and `as? Bool` answer as they did), `String`,
    /// `[Any]`, `[String: Any]`.
    var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let flag): NSNumber(value: flag)
        case .integer(let number): NSNumber(value: number)
        case .double(let number): NSNumber(value: number)
        case .string(let text): text
        case .array(let elements): elements.map(\.foundationObject)
        case .object(let members): members.mapValues(\.foundationObject)
        }
    }

    /// Why a Foundation object is not JSON.
    struct NotJSON: Error, CustomStringConvertible {
        var description: String
    }

    /// The JSON of a Foundation object: Swift's `Bool`, integers, `Double`, `Float`, `String`,
    /// arrays and `[String: Any]`, `NSNull`, `NSNumber` and `JSONValue` itself.
    init(foundationObject object: Any) throws {
        switch object {
        case let value as JSONValue: self = value
        case is NSNull: self = .null
        case let text as String: self = .string(text)
        case let members as [String: Any]: self = .object(try members.mapValues { try JSONValue(foundationObject: $0) })
        case let elements as [Any]: self = .array(try elements.map { try JSONValue(foundationObject: $0) })
        default:
            // Numbers by their exact type: a native Int must not become a Boolean by bridging.
            switch type(of: object) {
            case is Bool.Type: self = .bool(object as! Bool)
            case is Double.Type: self = .double(object as! Double)
            case is Float.Type: self = .double(Double(object as! Float))
            case is Int.Type: self = .integer(Int64(object as! Int))
            case is Int64.Type: self = .integer(object as! Int64)
            case is Int32.Type: self = .integer(Int64(object as! Int32))
            case is UInt64.Type, is UInt.Type, is UInt32.Type:
                guard let number = Int64(exactly: (object as! any BinaryInteger)) else {
                    throw NotJSON(description: "\(object) does not fit in a JSON integer of 64 bits")
                }
                self = .integer(number)
            case is NSNumber.Type:
                let number = object as! NSNumber
                switch String(cString: number.objCType) {
                case "c", "B": self = .bool(number.boolValue)
                case "f", "d": self = .double(number.doubleValue)
                default: self = .integer(number.int64Value)
                }
            default:
                throw NotJSON(description: "\(type(of: object)) is not a JSON value")
            }
        }
    }
}
