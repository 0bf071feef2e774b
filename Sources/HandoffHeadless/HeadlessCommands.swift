import Foundation
import HandoffCore

/// A command the headless controller understands: its name, its fields, its help and what it
/// does. ``HeadlessController/commands`` is the one table of them: `help` lists it, a line's
/// command and fields are looked up in it, and its ``perform`` runs the command.
package struct HeadlessCommand: Sendable {
    package var name: String
    /// The fields it accepts besides `cmd` and `id` (a trailing `?` marks an optional one).
    package var fields: [String]
    package var summary: String
    /// Runs the command on the controller with its checked fields; returns the result's fields
    /// (besides `result`, `ok` and `id`).
    let perform: @Sendable (HeadlessController, Arguments) throws(CommandError) -> [String: JSONValue]

    init(
        _ name: String, fields: [String] = [], _ summary: String,
        perform: @escaping @Sendable (HeadlessController, Arguments) throws(CommandError) -> [String: JSONValue]
    ) {
        self.name = name
        self.fields = fields
        self.summary = summary
        self.perform = perform
    }

    var fieldNames: [String] { fields.map { $0.hasSuffix("?") ? String($0.dropLast()) : $0 } }
}

extension HeadlessController {
    /// Every command, in the order `help` lists them. A new command is one entry here: its
    /// handler is a method of the controller taking its ``Arguments`` (docs/headless.md lists it
    /// for people).
    package static let commands: [HeadlessCommand] = [
        .init(
            "become-current",
            fields: [
                "type?", "app?", "title?", "userInfo?", "webpageURL?", "streams?", "eligible?", "expiresIn?",
                "requiredKeys?", "file?",
            ],
            "create an activity in an app, attached to the app's state, and make it current (\"file\": as an activity file describes it; without type or file: make the app's last activity current again)",
            perform: { controller, args throws(CommandError) in try controller.becomeCurrent(args) }),
        .init(
            "update", fields: ["userInfo", "merge?", "needsSave?", "app?"],
            "change the app's state (merged by default) and set needsSave (\"needsSave\": false forgets it: the next payload carries the state saved last; the default is the app's behaviour)",
            perform: { controller, args throws(CommandError) in try controller.update(args) }),
        .init(
            "set", fields: ["title?", "webpageURL?", "eligible?", "streams?", "expiresIn?", "requiredKeys?", "app?"],
            "change properties of the activity (null clears title, webpageURL, expiresIn)",
            perform: { controller, args throws(CommandError) in try controller.set(args) }),
        .init(
            "resign", fields: ["app?"], "the activity stops being current (it stays valid)",
            perform: { controller, args throws(CommandError) in try controller.resign(args) }),
        .init(
            "invalidate", fields: ["app?"], "invalidate the activity for good",
            perform: { controller, args throws(CommandError) in try controller.invalidate(args) }),
        .init(
            "peers", "list the offers of nearby devices",
            perform: { controller, _ throws(CommandError) in controller.peers() }),
        .init(
            "status", "the device, its apps, its activity and continuation",
            perform: { controller, _ throws(CommandError) in controller.status() }),
        .init(
            "continue", fields: ["peer?"],
            "continue the activity a peer offers (by id or name); the outcome arrives as events",
            perform: { controller, args throws(CommandError) in try controller.continueOffer(args) }),
        .init(
            "cancel", "cancel the continuation in progress",
            perform: { controller, _ throws(CommandError) in controller.cancel() }),
        .init(
            "decline-next", fields: ["decline?"],
            "the next willContinue answers false: the system, not the app, shows the progress (it does not cancel)",
            perform: { controller, args throws(CommandError) in try controller.decline(args) }),
        .init(
            "open-document", fields: ["name", "text?", "app?"],
            "write a text document into this device's iCloud container (\"text\", or a line naming it) and open it: its automatic activity becomes current",
            perform: { controller, args throws(CommandError) in try controller.openDocument(args) }),
        .init(
            "security-scope", fields: ["start?"],
            "whether the scripted apps call startAccessingSecurityScopedResource before reading the document URL a continued activity brought (default true; false: they forget, and reading fails: a document-read event says why)",
            perform: { controller, args throws(CommandError) in try controller.securityScope(args) }),
        .init(
            "fault", fields: ["kind", "sticky?", "off?", "latencyMs?", "kbps?"],
            "arm a fault for the next occasion (\"sticky\": true keeps it armed; \"off\": true disarms it; kind \"none\" disarms all; "
                + "slow-link takes \"latencyMs\" and \"kbps\", kilobytes per second): " + Fault.names,
            perform: { controller, args throws(CommandError) in try controller.fault(args) }),
        .init(
            "step", fields: ["on?"],
            "step mode on (default) or off: the device pauses before each phase of a continuation (a stepPaused event), its timeouts suspended",
            perform: { controller, args throws(CommandError) in try controller.step(args) }),
        .init(
            "next", "in step mode, go on from the pause to the next phase",
            perform: { controller, _ throws(CommandError) in try controller.next() }),
        .init(
            "quit-app", fields: ["app?"],
            "quit an app from the app switcher (default: the activity's app): its activities end and its next launch is cold",
            perform: { controller, args throws(CommandError) in try controller.quitApp(args) }),
        .init(
            "lock",
            "lock the device: its current activity stays offered for 8 s (Apple's delay), then is withdrawn until unlock",
            perform: { controller, _ throws(CommandError) in controller.lock() }),
        .init(
            "unlock", "unlock the device: its current activity is offered again",
            perform: { controller, _ throws(CommandError) in controller.unlock() }),
        .init(
            "streams-open", "open continuation streams to the origin of the last continued activity",
            perform: { controller, _ throws(CommandError) in try controller.streamsOpen() }),
        .init(
            "stream-send", fields: ["text?", "base64?", "bytes?", "seed?", "close?", "side?", "stream?"],
            "send text, base64 data or N deterministic pseudo-random bytes on a stream",
            perform: { controller, args throws(CommandError) in try controller.streamSend(args) }),
        .init(
            "stream-close", fields: ["side?", "stream?"],
            "close this side's output of a stream (after what was queued)",
            perform: { controller, args throws(CommandError) in try controller.streamClose(args) }),
        .init(
            "stream-mode", fields: ["mode"], "what the origin does with streams it receives from now on: echo or sink",
            perform: { controller, args throws(CommandError) in try controller.streamMode(args) }),
        .init(
            "help", "list the commands",
            perform: { controller, _ throws(CommandError) in controller.help() }),
        // The controller ends the program after its result line.
        .init(
            "quit", "stop; the program exits with status 0",
            perform: { _, _ throws(CommandError) in [:] }),
    ]
}

/// A bad command: the message says what was wrong.
package struct CommandError: Error, CustomStringConvertible {
    package var message: String
    init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// The fields of one command, read with type checks whose errors name the field.
struct Arguments {
    let command: String
    let fields: [String: JSONValue]

    /// Whether the field is present (null included).
    func has(_ key: String) -> Bool { fields[key] != nil }

    /// The field, nil when absent or null.
    func value(_ key: String) -> JSONValue? {
        guard let value = fields[key], !value.isNull else { return nil }
        return value
    }

    func wrongType(_ key: String, _ expected: String, _ value: JSONValue) -> CommandError {
        CommandError(
            "\(command): \"\(key)\" must be \(expected), not \(value.kindDescription) (\(Self.clip(value.jsonText)))")
    }

    func string(_ key: String) throws(CommandError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let s) = value else { throw wrongType(key, "a string", value) }
        return s
    }

    func requiredString(_ key: String) throws(CommandError) -> String {
        guard let s = try string(key) else { throw CommandError("\(command): \"\(key)\" is required") }
        return s
    }

    func bool(_ key: String) throws(CommandError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let b) = value else { throw wrongType(key, "true or false", value) }
        return b
    }

    func number(_ key: String) throws(CommandError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let d = value.doubleValue, d.isFinite else { throw wrongType(key, "a number", value) }
        return d
    }

    /// An integer; an integral floating-point number (`1e6`) is accepted too.
    func integer(_ key: String) throws(CommandError) -> Int64? {
        guard let value = value(key) else { return nil }
        switch value {
        case .integer(let i): return i
        case .double(let d) where d == d.rounded() && abs(d) < 9e15: return Int64(d)
        default: throw wrongType(key, "an integer", value)
        }
    }

    func strings(_ key: String) throws(CommandError) -> [String]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, "an array of strings", value) }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let s) = element else {
                throw CommandError("\(command): \"\(key)\"[\(index)] must be a string, not \(element.kindDescription)")
            }
            result.append(s)
        }
        return result
    }

    func userInfo(_ key: String) throws(CommandError) -> UserInfo? {
        guard let value = value(key) else { return nil }
        do {
            return try UserInfoJSON.userInfo(from: value, path: key)
        } catch {
            throw CommandError("\(command): invalid \(key): \(error)")
        }
    }

    static func clip(_ text: String) -> String {
        text.count <= 80 ? text : String(text.prefix(77)) + "…"
    }
}
