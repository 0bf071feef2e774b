import Foundation
import HandoffCore
import HandoffRules

/// Why a lesson file was refused: the file, the line, and the reason.
package struct LessonError: Error, Sendable, Hashable, CustomStringConvertible {
    package var file: String
    package var line: Int?
    package var reason: String

    package var description: String { "\(file)\(line.map { ":\($0)" } ?? ""): \(reason)" }
}

/// Reads a lesson file (JSON; docs/lessons.md): every key known, every value of the right type,
/// every event kind one the simulator records, the rule one the rule book has, the story one of
/// `stories`, and a goal that can hold. Errors name the file and, where the text shows it, the line.
package enum LessonFile {
    /// The keys a lesson may have.
    static let keys: Set<String> = [
        "title", "story", "goal", "text", "teaches", "rule", "source", "hint", "hintAfterSeconds", "steps",
        "unless", "solution", "mistake",
    ]
    static let patternKeys: Set<String> = ["on", "kind", "fields"]

    /// The largest lesson file read (a lesson is a page of text, not a book).
    package static let maximumBytes = 64 * 1024

    package static func parse(
        _ text: String, file: String, number: Int, stories: Set<String>
    ) throws(LessonError) -> Lesson {
        func fail(_ reason: String, near token: String? = nil) -> LessonError {
            LessonError(file: file, line: token.flatMap { line(of: $0, in: text) }, reason: reason)
        }
        guard text.utf8.count <= maximumBytes else {
            throw fail("is \(text.utf8.count) bytes, over the \(maximumBytes)-byte limit of a lesson")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw LessonError(
                file: file, line: line(atByte: error.offset, in: text), reason: "not JSON: \(error.message)")
        }
        guard let object = value.objectValue else { throw fail("is not a JSON object") }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw fail(
                "unknown key \"\(key)\" (a lesson has \(keys.sorted().joined(separator: ", ")))", near: "\"\(key)\"")
        }
        func string(_ key: String) throws(LessonError) -> String {
            guard let value = object[key] else { throw fail("missing \"\(key)\"") }
            guard let text = value.stringValue, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw fail("\"\(key)\" is not a non-empty string", near: "\"\(key)\"")
            }
            return text
        }
        let story = try string("story")
        guard stories.contains(story) else {
            throw fail(
                "unknown story \"\(story)\" (handoff demo --list: \(stories.sorted().joined(separator: ", ")))",
                near: "\"\(story)\"")
        }
        var paragraphs: [String] = []
        switch object["text"] {
        case .string(let one)?: paragraphs = [one]
        case .array(let many)?:
            for item in many {
                guard let paragraph = item.stringValue else {
                    throw fail("\"text\" holds something other than strings", near: "\"text\"")
                }
                paragraphs.append(paragraph)
            }
        case nil: throw fail("missing \"text\"")
        default: throw fail("\"text\" is neither a string nor a list of strings", near: "\"text\"")
        }
        var rule: String?
        if let value = object["rule"] {
            guard let id = value.stringValue, RuleBook.rule(id: id) != nil else {
                throw fail(
                    "\"rule\" is not a rule of the rule book (docs/rules.md): \(value.jsonText)", near: "\"rule\"")
            }
            rule = id
        }
        var source: String?
        if object["source"] != nil { source = try string("source") }
        var hintAfter: TimeInterval = 60
        if let value = object["hintAfterSeconds"] {
            guard let seconds = value.doubleValue, seconds >= 0, seconds <= 3600 else {
                throw fail(
                    "\"hintAfterSeconds\" is not a number of seconds from 0 to 3600", near: "\"hintAfterSeconds\"")
            }
            hintAfter = seconds
        }
        func patterns(_ key: String, required: Bool) throws(LessonError) -> [EventPattern] {
            guard let value = object[key] else {
                if required { throw fail("missing \"\(key)\"") }
                return []
            }
            guard let items = value.arrayValue else { throw fail("\"\(key)\" is not a list", near: "\"\(key)\"") }
            if required, items.isEmpty {
                throw fail("\"\(key)\" is empty: a goal must wait for at least one event", near: "\"\(key)\"")
            }
            var result: [EventPattern] = []
            for (index, item) in items.enumerated() {
                result.append(try pattern(item, where: "\(key)[\(index)]", fail: fail))
            }
            return result
        }
        let steps = try patterns("steps", required: true)
        let unless = try patterns("unless", required: false)
        // A goal that can never hold: a step that is also a mistake (the mistake is seen first).
        for step in steps {
            for wrong in unless
            where Set(step.kinds).isSubset(of: wrong.kinds)
                && (wrong.device == .any || wrong.device == step.device)
                && wrong.fields.allSatisfy({ step.fields[$0.key] == $0.value })
            {
                throw fail(
                    "the goal can never hold: its step \(step) is also in \"unless\" (\(wrong))",
                    near: "\"\(step.kind.rawValue)\"")
            }
        }
        func scenarioSteps(_ key: String) throws(LessonError) -> [JSONValue] {
            guard let value = object[key] else { throw fail("missing \"\(key)\" (the lesson's test plays it)") }
            guard let items = value.arrayValue, !items.isEmpty, items.allSatisfy({ $0.objectValue != nil }) else {
                throw fail("\"\(key)\" is not a non-empty list of scenario steps (objects)", near: "\"\(key)\"")
            }
            return items
        }
        return Lesson(
            number: number, file: file, title: try string("title"), story: story, goal: try string("goal"),
            text: paragraphs, teaches: try string("teaches"), rule: rule, source: source, hint: try string("hint"),
            hintAfter: hintAfter,
            steps: steps, unless: unless, solution: try scenarioSteps("solution"), mistake: try scenarioSteps("mistake")
        )
    }

    static func pattern(
        _ value: JSONValue, where place: String, fail: (String, String?) -> LessonError
    ) throws(LessonError) -> EventPattern {
        guard let object = value.objectValue else { throw fail("\(place) is not an object", nil) }
        for key in object.keys.sorted() where !patternKeys.contains(key) {
            throw fail("\(place): unknown key \"\(key)\" (an event has on, kind, fields)", "\"\(key)\"")
        }
        guard let on = object["on"]?.stringValue, let device = EventPattern.Device(rawValue: on) else {
            throw fail(
                "\(place): \"on\" is not one of \(EventPattern.Device.allCases.map(\.rawValue).joined(separator: ", "))",
                object["on"].map { $0.jsonText })
        }
        // One kind, or a list of kinds any of which matches (the same step by several paths).
        var kinds: [LifecycleEvent.Kind] = []
        let names: [JSONValue]
        switch object["kind"] {
        case .array(let list)?:
            guard !list.isEmpty else { throw fail("\(place): \"kind\" is an empty list", "\"kind\"") }
            names = list
        case let one?: names = [one]
        case nil: throw fail("\(place): missing \"kind\"", nil)
        }
        for name in names {
            guard let text = name.stringValue, let kind = LifecycleEvent.Kind(rawValue: text) else {
                throw fail(
                    "\(place): \"kind\" is not a lifecycle event kind the simulator records: \(name.jsonText)",
                    name.jsonText)
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        var fields: [String: JSONValue] = [:]
        if let value = object["fields"] {
            guard let given = value.objectValue else {
                throw fail("\(place): \"fields\" is not an object", "\"fields\"")
            }
            for (key, field) in given.sorted(by: { $0.key < $1.key }) {
                switch field {
                case .string, .integer, .double, .bool: fields[key] = field
                default: throw fail("\(place): field \"\(key)\" is not a string, number or boolean", "\"\(key)\"")
                }
                guard key.hasPrefix(EventPattern.userInfoPrefix) else {
                    guard EventPattern.knownFields.contains(key) else {
                        throw fail(
                            "\(place): unknown field \"\(key)\": no recorded event has it (docs/headless.md lists each kind's fields; a value in the userInfo is \"userInfo.KEY\")",
                            "\"\(key)\"")
                    }
                    continue
                }
                let path = key.dropFirst(EventPattern.userInfoPrefix.count).split(
                    separator: ".", omittingEmptySubsequences: false)
                guard !path.isEmpty, path.allSatisfy({ !$0.isEmpty }) else {
                    throw fail(
                        "\(place): field \"\(key)\" names no userInfo key (\"userInfo.KEY\", \"userInfo.KEY.SUBKEY\")",
                        "\"\(key)\"")
                }
                for kind in kinds where !EventPattern.kindsWithUserInfo.contains(kind) {
                    let carriers = EventPattern.kindsWithUserInfo.map(\.rawValue).sorted().joined(separator: ", ")
                    throw fail(
                        "\(place): the goal can never hold: \(kind.rawValue) carries no userInfo for \"\(key)\" (\(carriers) do)",
                        "\"\(key)\"")
                }
            }
        }
        return EventPattern(device: device, kinds: kinds, fields: fields)
    }

    /// The line (1-based) of the first occurrence of `token` in `text`.
    static func line(of token: String, in text: String) -> Int? {
        guard let range = text.range(of: token) else { return nil }
        return text[..<range.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
    }

    /// The line (1-based) of byte `offset` of `text`.
    static func line(atByte offset: Int, in text: String) -> Int {
        1 + text.utf8.prefix(offset).reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
    }

    /// The lessons in `folder` (`NN-name.json`, numbered by their first digits), in order.
    package static func load(folder: URL, stories: Set<String>) throws(LessonError) -> [Lesson] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw LessonError(
                file: folder.path, line: nil, reason: "cannot list the folder: \(error.localizedDescription)")
        }
        var lessons: [Lesson] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            let path = folder.appendingPathComponent(name).path
            guard let number = Int(name.prefix { $0.isNumber }), number > 0 else {
                throw LessonError(
                    file: path, line: nil, reason: "the name does not start with the lesson's number (01-…)")
            }
            lessons.append(try read(path, number: number, stories: stories))
        }
        var seen: [Int: String] = [:]
        for lesson in lessons {
            if let other = seen[lesson.number] {
                throw LessonError(file: lesson.file, line: nil, reason: "lesson \(lesson.number) again (also \(other))")
            }
            seen[lesson.number] = lesson.file
        }
        return lessons
    }

    /// Reads one lesson file.
    package static func read(_ path: String, number: Int, stories: Set<String>) throws(LessonError) -> Lesson {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw LessonError(file: path, line: nil, reason: "cannot be read")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maximumBytes + 1)) ?? Data()
        guard data.count <= maximumBytes else {
            throw LessonError(file: path, line: nil, reason: "over the \(maximumBytes)-byte limit of a lesson")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw LessonError(file: path, line: nil, reason: "is not UTF-8 text")
        }
        return try parse(text, file: path, number: number, stories: stories)
    }
}
