import Foundation
import HandoffCore

/// A command the headless controller understands: its name, its fields and what it does.
public struct HeadlessCommandSpec: Sendable, Hashable {
    public var name: String
    /// The fields it accepts besides `cmd` and `id` (a trailing `?` marks an optional one).
    public var fields: [String]
    public var summary: String

    var fieldNames: [String] { fields.map { $0.hasSuffix("?") ? String($0.dropLast()) : $0 } }
}

extension HeadlessController {
    /// Every command, in the order `help` lists them.
    public static let commands: [HeadlessCommandSpec] = [
        .init(name: "become-current",
              fields: ["type?", "app?", "title?", "userInfo?", "webpageURL?", "streams?", "eligible?", "expiresIn?", "requiredKeys?"],
              summary: "create an activity in an app, attached to the app's state, and make it current (without type: make the last activity current again)"),
        .init(name: "update", fields: ["userInfo", "merge?", "needsSave?"],
              summary: "change the app's state (merged by default) and set needsSave (\"needsSave\": false forgets it: the next payload carries the state saved last)"),
        .init(name: "set", fields: ["title?", "webpageURL?", "eligible?", "streams?", "expiresIn?", "requiredKeys?"],
              summary: "change properties of the activity (null clears title, webpageURL, expiresIn)"),
        .init(name: "resign", fields: [], summary: "the activity stops being current (it stays valid)"),
        .init(name: "invalidate", fields: [], summary: "invalidate the activity for good"),
        .init(name: "peers", fields: [], summary: "list the offers of nearby devices"),
        .init(name: "status", fields: [], summary: "the device, its apps, its activity and continuation"),
        .init(name: "continue", fields: ["peer?"], summary: "continue the activity a peer offers (by id or name); the outcome arrives as events"),
        .init(name: "cancel", fields: [], summary: "cancel the continuation in progress"),
        .init(name: "decline-next", fields: ["decline?"],
              summary: "the next willContinue answers false: the system, not the app, shows the progress (it does not cancel)"),
        .init(name: "fault", fields: ["kind", "sticky?", "off?", "latencyMs?", "kbps?"],
              summary: "arm a fault for the next occasion (\"sticky\": true keeps it armed; \"off\": true disarms it; kind \"none\" disarms all; "
                + "slow-link takes \"latencyMs\" and \"kbps\", kilobytes per second): " + Fault.names),
        .init(name: "step", fields: ["on?"],
              summary: "step mode on (default) or off: the device pauses before each phase of a continuation (a stepPaused event), its timeouts suspended"),
        .init(name: "next", fields: [], summary: "in step mode, go on from the pause to the next phase"),
        .init(name: "quit-app", fields: ["app?"],
              summary: "quit an app from the app switcher (default: the activity's app): its activities end and its next launch is cold"),
        .init(name: "streams-open", fields: [], summary: "open continuation streams to the origin of the last continued activity"),
        .init(name: "stream-send", fields: ["text?", "base64?", "bytes?", "seed?", "close?", "side?", "stream?"],
              summary: "send text, base64 data or N deterministic pseudo-random bytes on a stream"),
        .init(name: "stream-close", fields: ["side?", "stream?"], summary: "close this side's output of a stream (after what was queued)"),
        .init(name: "stream-mode", fields: ["mode"], summary: "what the origin does with streams it receives from now on: echo or sink"),
        .init(name: "help", fields: [], summary: "list the commands"),
        .init(name: "quit", fields: [], summary: "stop; the program exits with status 0"),
    ]
}

/// A bad command: the message says what was wrong.
struct CommandError: Error {
    var message: String
    init(_ message: String) { self.message = message }
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
        CommandError("\(command): \"\(key)\" must be \(expected), not \(value.kindDescription) (\(Self.clip(value.jsonText)))")
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
