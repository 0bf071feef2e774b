import Foundation
import HandoffCore

/// A property-list value, as far as a manifest check needs to know it: strings with their
/// contents, every other kind by its kind only.
indirect enum PropertyListValue: Sendable, Equatable {
    case string(String)
    case integer
    case real
    case boolean(Bool)
    case date
    case data
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
    /// A value no property-list file should hold (a null or a keyed-archiver UID from a binary
    /// property list), described for messages.
    case unsupported(String)

    /// The kind of value with an article, for messages such as "expected a string, found an integer".
    var kindDescription: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a real number"
        case .boolean: "a Boolean"
        case .date: "a date"
        case .data: "data"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .unsupported(let description): description
        }
    }
}

/// A parsed property-list file whose top level is a dictionary.
struct PropertyListFile: Sendable {
    /// The file's name, as problems report it.
    var name: String
    var root: [String: PropertyListValue]
}

/// Reads property-list files with Foundation's `PropertyListSerialization`, guarding it against
/// input it mishandles on Linux.
///
/// - XML comments and a DOCTYPE are accepted by swift-corelibs-foundation between elements, but
///   a comment inside an element's content (`<string>com.example.<!-- c -->app</string>`, or in
///   a `<key>`, `<integer>`, `<date>`…) makes the parse fail. Comments are therefore removed
///   before parsing, outside CDATA sections and processing instructions. When the result does not
///   parse, the original is parsed again so that the error's line numbers are the file's.
/// - A binary property list containing a set (marker `0xCn`) crashes the process while Foundation
///   bridges the parsed `NSSet` (a null-pointer dereference, not an error). Binary input is
///   therefore checked structurally first and rejected when it holds a set, a dictionary key that
///   is not a string, or an inconsistent trailer or offset table.
/// - Foundation already limits nesting (deeper than 512 levels fails) and rejects cyclic binary
///   object graphs.
enum PropertyListReader {
    /// The largest file read. Info.plist and entitlements files are a few kilobytes.
    static let maximumSize = 8 << 20

    /// Reads and parses the file at `url`, naming it `name` in errors.
    static func read(contentsOf url: URL, name: String) throws(ManifestReadError) -> PropertyListFile {
        try parse(readData(at: url, name: name), name: name)
    }

    /// Reads at most ``maximumSize`` bytes (plus one, to detect larger files) from `url`.
    static func readData(at url: URL, name: String) throws(ManifestReadError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ManifestReadError(file: name, reason: .unreadable(detail: "no such file"))
        }
        guard !isDirectory.boolValue else {
            throw ManifestReadError(file: name, reason: .unreadable(detail: "it is a directory"))
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw ManifestReadError(file: name, reason: .unreadable(detail: describe(error)))
        }
        defer { try? handle.close() }
        var data = Data()
        do {
            while data.count <= maximumSize {
                guard let chunk = try handle.read(upToCount: maximumSize + 1 - data.count), !chunk.isEmpty else {
                    break
                }
                data.append(chunk)
            }
        } catch {
            throw ManifestReadError(file: name, reason: .unreadable(detail: describe(error)))
        }
        guard data.count <= maximumSize else {
            throw ManifestReadError(file: name, reason: .tooLarge(limit: maximumSize))
        }
        return data
    }

    /// Parses `data` as a property list whose top level is a dictionary.
    static func parse(_ data: Data, name: String) throws(ManifestReadError) -> PropertyListFile {
        guard data.count <= maximumSize else {
            throw ManifestReadError(file: name, reason: .tooLarge(limit: maximumSize))
        }
        guard !data.isEmpty else {
            throw ManifestReadError(file: name, reason: .malformed(detail: "the file is empty"))
        }
        let object = try foundationObject(from: data, name: name)
        let value: PropertyListValue
        do {
            value = try convert(object)
        } catch {
            throw ManifestReadError(file: name, reason: .malformed(detail: error.detail))
        }
        guard case .dictionary(let root) = value else {
            throw ManifestReadError(file: name, reason: .notADictionary(found: value.kindDescription))
        }
        return PropertyListFile(name: name, root: root)
    }

    /// What `PropertyListSerialization` makes of `data` (XML, binary or OpenStep), guarded as the
    /// type's documentation says: comments stripped, binary input checked structurally first.
    /// The activity-file decoder (``ActivityFile``) reads its property lists through it too.
    static func foundationObject(from data: Data, name: String) throws(ManifestReadError) -> Any {
        let object: Any
        do {
            if data.starts(with: Array("bplist".utf8)) {
                if let problem = BinaryPropertyListCheck.problem(in: data) {
                    throw ManifestReadError(file: name, reason: .malformed(detail: "binary property list: \(problem)"))
                }
                object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            } else {
                let withoutComments = XMLCommentStripper.strippingComments(from: data)
                if withoutComments != data,
                    let parsed = try? PropertyListSerialization.propertyList(
                        from: withoutComments, options: [], format: nil)
                {
                    object = parsed
                } else {
                    object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                }
            }
        } catch let error as ManifestReadError {
            throw error
        } catch {
            throw ManifestReadError(
                file: name, reason: .malformed(detail: describeParseError(error).escapingInvisibleCharacters))
        }
        return object
    }

    private struct ConversionError: Error {
        var detail: String
    }

    /// Converts what `PropertyListSerialization` returned. Booleans and numbers are told apart by
    /// their Objective-C type code, never by `as? Bool`: an `NSNumber` holding the integer 0 or 1,
    /// or the real 0.0 or 1.0, casts to `Bool` too.
    private static func convert(_ object: Any) throws(ConversionError) -> PropertyListValue {
        // Containers before `NSNumber`: asking a Swift dictionary or array whether it is an
        // `NSNumber` bridges it, and every value in it, to Objective-C first (most of reading
        // a manifest, at a device's start: docs/bench.md, "First frame").
        switch object {
        case let string as String:
            return .string(string)
        case let dictionary as [AnyHashable: Any]:
            var values: [String: PropertyListValue] = [:]
            values.reserveCapacity(dictionary.count)
            for (key, element) in dictionary {
                guard let key = key.base as? String else {
                    throw ConversionError(detail: "a dictionary key is not a string")
                }
                values[key] = try convert(element)
            }
            return .dictionary(values)
        case let array as [Any]:
            var values: [PropertyListValue] = []
            values.reserveCapacity(array.count)
            for element in array { values.append(try convert(element)) }
            return .array(values)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": return .boolean(number.boolValue)
            case "f", "d": return .real
            default: return .integer
            }
        case is Date:
            return .date
        case is Data:
            return .data
        case is NSNull:
            return .unsupported("a null")
        default:
            return .unsupported("an unsupported value (\(type(of: object)))")
        }
    }

    /// How much of Foundation's reason a message keeps, in UTF-8 bytes.
    static let parseErrorLimit = 200

    /// Foundation's own explanation (`NSDebugDescription`), which names the line, in preference
    /// to its generic "The data is not in the correct format.", cut to ``parseErrorLimit``
    /// bytes: some reasons quote the document itself (an unknown encoding's name runs to the end
    /// of the file), and a message must stay a line, not the file again (found by
    /// fuzz-manifest-plist: 17,933 bytes).
    private static func describeParseError(_ error: any Error) -> String {
        let nsError = error as NSError
        let reason: String
        if let debug = nsError.userInfo["NSDebugDescription"] as? String, !debug.isEmpty {
            reason = debug
        } else {
            reason = nsError.localizedDescription
        }
        guard reason.utf8.count > parseErrorLimit else { return reason }
        let kept = reason.utf8Prefix(parseErrorLimit)
        return kept + "… (\(reason.unicodeScalars.count - kept.unicodeScalars.count) more characters)"
    }

    private static func describe(_ error: any Error) -> String {
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileReadNoPermission: return "permission denied"
            case .fileReadNoSuchFile, .fileNoSuchFile: return "no such file"
            default: break
            }
        }
        return (error as NSError).localizedDescription
    }
}

/// Removes XML comments (`<!-- … -->`) from an XML property list, leaving CDATA sections and
/// processing instructions untouched. As in XML, a comment is no part of the character data
/// around it: `a<!-- c -->b` becomes `ab`.
enum XMLCommentStripper {
    private static let commentOpening = Array("<!--".utf8)
    private static let commentClosing = Array("-->".utf8)
    private static let cdataOpening = Array("<![CDATA[".utf8)
    private static let cdataClosing = Array("]]>".utf8)
    private static let instructionOpening = Array("<?".utf8)
    private static let instructionClosing = Array("?>".utf8)

    /// `data` without its comments, or `data` itself when it is not ASCII-compatible XML (UTF-16
    /// or UTF-32 text is passed through for Foundation to handle) or contains no comment.
    static func strippingComments(from data: Data) -> Data {
        let bytes = [UInt8](data)
        guard isASCIICompatibleXML(bytes), firstIndex(of: commentOpening, in: bytes, from: 0) != nil else {
            return data
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                output.append(bytes[index])
                index += 1
                continue
            }
            if matches(cdataOpening, in: bytes, at: index) {
                let end = endOf(cdataClosing, in: bytes, from: index + cdataOpening.count)
                output.append(contentsOf: bytes[index..<end])
                index = end
            } else if matches(instructionOpening, in: bytes, at: index) {
                let end = endOf(instructionClosing, in: bytes, from: index + instructionOpening.count)
                output.append(contentsOf: bytes[index..<end])
                index = end
            } else if matches(commentOpening, in: bytes, at: index) {
                guard let close = firstIndex(of: commentClosing, in: bytes, from: index + commentOpening.count) else {
                    // Unterminated: leave it for the parser to report.
                    output.append(contentsOf: bytes[index...])
                    break
                }
                index = close + commentClosing.count
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return Data(output)
    }

    /// Whether the bytes start (after an optional UTF-8 byte-order mark and whitespace) with `<`.
    private static func isASCIICompatibleXML(_ bytes: [UInt8]) -> Bool {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index < bytes.count && bytes[index] == UInt8(ascii: "<")
    }

    private static func matches(_ pattern: [UInt8], in bytes: [UInt8], at index: Int) -> Bool {
        guard index + pattern.count <= bytes.count else { return false }
        for offset in pattern.indices where bytes[index + offset] != pattern[offset] { return false }
        return true
    }

    /// The index of the first occurrence of `pattern` at or after `start`.
    private static func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = pattern.first else { return nil }
        var index = start
        while index + pattern.count <= bytes.count {
            if bytes[index] == first, matches(pattern, in: bytes, at: index) { return index }
            index += 1
        }
        return nil
    }

    /// The index just past `terminator`, or the end of `bytes` when there is none.
    private static func endOf(_ terminator: [UInt8], in bytes: [UInt8], from start: Int) -> Int {
        firstIndex(of: terminator, in: bytes, from: start).map { $0 + terminator.count } ?? bytes.count
    }
}

/// A structural check of a binary property list (`bplist00`) before Foundation parses it.
///
/// Every object Foundation can reach is found through the offset table, so checking the marker
/// of every object in the table is enough to keep sets (which crash Foundation on Linux) out.
enum BinaryPropertyListCheck {
    /// Why `data` must not be handed to Foundation, or `nil` when it may be.
    static func problem(in data: Data) -> String? {
        let bytes = [UInt8](data)
        guard bytes.starts(with: Array("bplist00".utf8)) else {
            return "unsupported header (expected bplist00)"
        }
        let trailerSize = 32
        guard bytes.count >= 8 + 1 + 1 + trailerSize else { return "the file is truncated" }
        let trailer = bytes.count - trailerSize
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let objectCount = readInteger(bytes, at: trailer + 8, size: 8)
        let topObject = readInteger(bytes, at: trailer + 16, size: 8)
        let tableOffset = readInteger(bytes, at: trailer + 24, size: 8)

        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            return "invalid integer sizes in the trailer"
        }
        guard objectCount >= 1, objectCount <= UInt64(bytes.count), topObject < objectCount else {
            return "invalid object count in the trailer"
        }
        guard tableOffset >= 9, tableOffset < UInt64(trailer),
            UInt64(trailer) - tableOffset >= objectCount * UInt64(offsetSize)
        else {
            return "the offset table lies outside the file"
        }
        let count = Int(objectCount)
        let table = Int(tableOffset)
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for index in 0..<count {
            let offset = readInteger(bytes, at: table + index * offsetSize, size: offsetSize)
            guard offset >= 8, offset < tableOffset else { return "object \(index) lies outside the object area" }
            offsets.append(Int(offset))
        }
        for offset in offsets {
            let marker = bytes[offset]
            switch marker >> 4 {
            case 0xC:
                return "it contains a set, which manifests never use (and Foundation on Linux cannot read)"
            case 0xD:
                guard let keys = dictionaryKeys(bytes, at: offset, limit: table, referenceSize: referenceSize) else {
                    return "a dictionary extends past the object area"
                }
                for key in keys {
                    guard key < objectCount else { return "a dictionary key refers to a missing object" }
                    let keyMarker = bytes[offsets[Int(key)]] >> 4
                    guard keyMarker == 0x5 || keyMarker == 0x6 else { return "a dictionary key is not a string" }
                }
            default:
                continue
            }
        }
        return nil
    }

    /// The object references of the keys of the dictionary whose marker is at `offset`, or `nil`
    /// when it does not fit before `limit`.
    private static func dictionaryKeys(_ bytes: [UInt8], at offset: Int, limit: Int, referenceSize: Int) -> [UInt64]? {
        var position = offset + 1
        var count = UInt64(bytes[offset] & 0x0F)
        if count == 0x0F {
            // The count follows as an integer object: marker 0x1n, then 2^n big-endian bytes.
            guard position < limit, bytes[position] >> 4 == 0x1 else { return nil }
            let size = 1 << Int(bytes[position] & 0x0F)
            guard size <= 8, position + 1 + size <= limit else { return nil }
            count = readInteger(bytes, at: position + 1, size: size)
            position += 1 + size
        }
        guard count <= UInt64(limit - position) / UInt64(referenceSize) else { return nil }
        return (0..<Int(count)).map { readInteger(bytes, at: position + $0 * referenceSize, size: referenceSize) }
    }

    /// The big-endian unsigned integer of `size` bytes at `offset` (the caller checked the bounds).
    private static func readInteger(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}

extension String {
    /// The string with control and other invisible characters written as `\u{…}` escapes, so
    /// that text taken from a hostile file never reaches a terminal as control sequences.
    var escapingInvisibleCharacters: String {
        var result = ""
        for scalar in unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator:
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
