import Foundation

/// Build settings read from a file in Xcode's configuration-settings (`.xcconfig`) syntax: the
/// values that `$(NAME)` references in an Info.plist or entitlements file expand to
/// (``BuildSettingExpander``).
///
/// ```
/// // The Reader demo app.
/// PRODUCT_BUNDLE_IDENTIFIER = com.handoffsim.reader
/// DEVELOPMENT_TEAM = SIMTEAM001
/// ```
///
/// Each line is blank, a comment (`//` to the end of the line, also after a value, as in Xcode),
/// or `NAME = VALUE`: a name of letters, digits and underscores not starting with a digit, and
/// the value trimmed of surrounding spaces and of one trailing `;`. The value may refer to other
/// settings (`$(PRODUCT_NAME:lower)`); they are expanded when the manifest is, not here. A name
/// defined twice takes its last value, as in Xcode. `#include` and conditional settings
/// (`NAME[sdk=…]`) are not supported: such a line is an error naming it, never silently skipped.
///
/// `handoff manifest lint` reads ``defaultFileName`` next to the Info.plist it is given, so that
/// an app's manifest lints with the app's own settings and no arguments.
public struct BuildSettingsFile: Sendable, Hashable {
    /// The file `handoff manifest lint` looks for in the Info.plist's folder.
    public static let defaultFileName = "BuildSettings.xcconfig"
    /// The largest file read (far more than any settings file needs).
    public static let maximumSize = 256 << 10

    /// The settings, by name.
    public var settings: [String: String]

    /// Reads settings from `text`; `file` names it in errors.
    ///
    /// - Throws: ``BuildSettingsFileError`` naming the file, the line and what is wrong with it.
    public init(parsing text: String, file: String) throws(BuildSettingsFileError) {
        var settings: [String: String] = [:]
        var lineNumber = 0
        for rawLine in text.split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        {
            lineNumber += 1
            var line = Substring(rawLine)
            if let comment = line.range(of: "//") { line = line[..<comment.lowerBound] }
            line = line.trimmingWhitespace
            guard !line.isEmpty else { continue }
            func fail(_ message: String) -> BuildSettingsFileError {
                BuildSettingsFileError(file: file, line: lineNumber, message: message)
            }
            if line.hasPrefix("#") {
                throw fail(
                    "\(line.split(separator: " ").first ?? line) is not supported: write every setting in this file")
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw fail("expected NAME = VALUE, found \"\(Self.clip(line))\"")
            }
            if let bracket = line[..<equals].firstIndex(of: "[") {
                // `NAME[sdk=…] = VALUE`: the condition may hold an equals sign of its own.
                let end = line[bracket...].firstIndex(of: "]").map { line.index(after: $0) } ?? equals
                throw fail(
                    "conditional settings such as \"\(Self.clip(line[..<end].trimmingWhitespace))\" are not supported")
            }
            let name = line[..<equals].trimmingWhitespace
            guard Self.isSettingName(name) else {
                throw fail(
                    "\"\(Self.clip(name))\" is not a build-setting name (letters, digits and _, not starting with a digit)"
                )
            }
            var value = line[line.index(after: equals)...].trimmingWhitespace
            if value.hasSuffix(";") { value = value.dropLast().trimmingWhitespace }
            settings[String(name)] = String(value)
        }
        self.settings = settings
    }

    /// Reads the file at `url` (named by its path as given in errors).
    ///
    /// - Throws: ``BuildSettingsFileError`` when the file cannot be read, is too large, is not
    ///   UTF-8, or has a line that is not a setting.
    public init(contentsOf url: URL) throws(BuildSettingsFileError) {
        let file = url.relativePath
        let data: Data
        do {
            let size = try url.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0
            guard size <= Self.maximumSize else {
                throw BuildSettingsFileError(
                    file: file, line: nil, message: "the file is larger than \(Self.maximumSize >> 10) KiB")
            }
            data = try Data(contentsOf: url)
        } catch let error as BuildSettingsFileError {
            throw error
        } catch {
            throw BuildSettingsFileError(
                file: file, line: nil, message: "cannot read the file: \((error as NSError).localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw BuildSettingsFileError(file: file, line: nil, message: "the file is not UTF-8 text")
        }
        try self.init(parsing: text, file: file)
    }

    private static func isSettingName(_ name: Substring) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
    }

    private static func clip(_ text: Substring) -> String {
        let shown = text.count > 40 ? String(text.prefix(39)) + "…" : String(text)
        return String(shown.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
    }
}

/// A build-settings file that cannot be used: which file, which line (when one is at fault) and why.
public struct BuildSettingsFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// The line at fault, from 1 (nil when the whole file is).
    public var line: Int?
    public var message: String

    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `<file>:<line>: <message>`, e.g. `BuildSettings.xcconfig:3: expected NAME = VALUE, found "x"`.
    public var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
