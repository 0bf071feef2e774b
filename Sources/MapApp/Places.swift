import Foundation
import Synchronization
import TerminalCells

/// A populated place of Natural Earth.
package struct City: Hashable, Sendable {
    package var name: String
    package var latitude: Double
    package var longitude: Double
    /// The most people Natural Earth gives it (its `POP_MAX`): larger places are labelled first.
    package var population: Int
    /// Natural Earth's `ADM0_A3` (ISO 3166-1 alpha-3 for most), e.g. "JPN".
    package var countryCode: String
    package var country: String

    package init(
        name: String, latitude: Double, longitude: Double, population: Int = 0, countryCode: String = "",
        country: String = ""
    ) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.population = population
        self.countryCode = countryCode
        self.country = country
    }
}

/// The places the Map labels and searches.
package struct CityCatalog: Hashable, Sendable {
    /// Largest first (then by name), the order labels are placed in.
    package let cities: [City]
    /// Each city's name and country folded for search (``fold(_:)``), in the order of ``cities``:
    /// folded at the first search, not when the Map starts (folding goes through Foundation and
    /// costs more than reading the file).
    private let folded: FoldedNames
    /// Each city's name's width in cells, in the order of ``cities`` (measured once: a frame
    /// places hundreds of names).
    let nameWidths: [Int]

    package static func == (lhs: CityCatalog, rhs: CityCatalog) -> Bool { lhs.cities == rhs.cities }
    package func hash(into hasher: inout Hasher) { hasher.combine(cities) }

    package init(cities: [City]) {
        self.cities = cities.sorted { ($0.population, $1.name) > ($1.population, $0.name) }
        folded = FoldedNames()
        nameWidths = self.cities.map { MapRenderer.narrowWidth($0.name) ?? TextWidth.of($0.name) }
    }

    /// Reads `places.tsv`: `#` comments, then one place a line: name, latitude, longitude,
    /// population, country code, country (tab-separated; the last three may be empty).
    ///
    /// - Throws: ``MapError/malformed(file:line:reason:)`` naming the line and the field.
    package init(tsv text: String, file: String = "places.tsv") throws(MapError) {
        var cities: [City] = []
        for row in try PlaceRow.rows(
            of: text, file: file, minimumFields: 3,
            expected: "at least 3 tab-separated fields (name, latitude, longitude)")
        {
            let (number, fields) = (row.line, row.fields)
            var population = 0
            if fields.count > 3, !fields[3].isEmpty {
                guard let value = Int(fields[3]), value >= 0 else {
                    throw .malformed(
                        file: file, line: number,
                        reason: "population \"\(fields[3].prefix(20))\" is not a whole number from 0")
                }
                population = value
            }
            cities.append(
                City(
                    name: row.name, latitude: row.latitude, longitude: row.longitude, population: population,
                    countryCode: fields.count > 4 ? fields[4] : "", country: fields.count > 5 ? fields[5] : ""))
        }
        guard !cities.isEmpty else { throw .malformed(file: file, line: nil, reason: "no places") }
        self.init(cities: cities)
    }

    /// Reads the catalogue at `url`.
    package init(contentsOf url: URL) throws(MapError) {
        try self.init(tsv: Self.text(of: url), file: url.lastPathComponent)
    }

    static func text(of url: URL) throws(MapError) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(file: url.lastPathComponent, reason: error.localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .unreadable(file: url.lastPathComponent, reason: "not UTF-8 text")
        }
        return text
    }

    /// The places whose name (or country) matches `query`, best first: ignoring case and
    /// accents, names that equal it, then names starting with it, then names with a word
    /// starting with it, then names containing it; then places of the country it names; larger
    /// places first among equals.
    package func search(_ query: String, limit: Int = 8) -> [City] {
        let needle = Self.fold(query.trimmingCharacters(in: .whitespaces))
        guard !needle.isEmpty, limit > 0 else { return [] }
        var ranked: [(rank: Int, index: Int)] = []
        for (index, entry) in folded.names(of: cities).enumerated() {
            let name = entry.name
            let rank: Int
            if name == needle {
                rank = 0
            } else if name.hasPrefix(needle) {
                rank = 1
            } else if name.contains(needle) {
                rank =
                    name.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains(where: {
                        $0.hasPrefix(needle)
                    }) ? 2 : 3
            } else if entry.country.hasPrefix(needle) || entry.code == needle {
                rank = 4
            } else {
                continue
            }
            ranked.append((rank, index))
        }
        return ranked.sorted { ($0.rank, $0.index) < ($1.rank, $1.index) }.prefix(limit).map { cities[$0.index] }
    }

    /// Lower case without accents ("São Paulo" → "sao paulo").
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }
}

/// A catalogue's names folded for search, made once, by the first search that needs them.
final class FoldedNames: Sendable {
    typealias Entry = (name: String, country: String, code: String)
    private let names = Mutex<[Entry]?>(nil)

    func names(of cities: [City]) -> [Entry] {
        names.withLock { names in
            if let names { return names }
            let folded = cities.map {
                (CityCatalog.fold($0.name), CityCatalog.fold($0.country), CityCatalog.fold($0.countryCode))
            }
            names = folded
            return folded
        }
    }
}

/// A country's name and where Natural Earth puts it.
package struct CountryLabel: Hashable, Sendable {
    package var name: String
    package var latitude: Double
    package var longitude: Double
    /// The Map's zoom from which the name is shown.
    package var minimumZoom: Double
    package var code: String

    package init(name: String, latitude: Double, longitude: Double, minimumZoom: Double, code: String = "") {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.minimumZoom = minimumZoom
        self.code = code
    }

    /// Reads `countries.tsv`: `#` comments, then name, label latitude, label longitude, smallest
    /// zoom, code (tab-separated), most important first.
    ///
    /// - Throws: ``MapError/malformed(file:line:reason:)`` naming the line and the field.
    package static func read(tsv text: String, file: String = "countries.tsv") throws(MapError) -> [CountryLabel] {
        var labels: [CountryLabel] = []
        for row in try PlaceRow.rows(
            of: text, file: file, minimumFields: 4,
            expected: "4 or 5 tab-separated fields (name, latitude, longitude, zoom)")
        {
            let (number, fields) = (row.line, row.fields)
            guard let zoom = Double(fields[3]), zoom.isFinite, (-10...30).contains(zoom) else {
                throw .malformed(
                    file: file, line: number, reason: "zoom \"\(fields[3].prefix(20))\" is not a number from -10 to 30")
            }
            labels.append(
                CountryLabel(
                    name: row.name, latitude: row.latitude, longitude: row.longitude, minimumZoom: zoom,
                    code: fields.count > 4 ? fields[4] : ""))
        }
        return labels
    }

    /// Reads the labels at `url`.
    package static func read(contentsOf url: URL) throws(MapError) -> [CountryLabel] {
        try read(tsv: CityCatalog.text(of: url), file: url.lastPathComponent)
    }
}

/// One row of a place file (`places.tsv`, `countries.tsv`): its line, its checked name and
/// position, and every field. `#` lines and blank lines are skipped.
struct PlaceRow {
    var line: Int
    var name: String
    var latitude: Double
    var longitude: Double
    var fields: [String]

    /// - Throws: ``MapError/malformed(file:line:reason:)`` naming the line and the field.
    static func rows(of text: String, file: String, minimumFields: Int, expected: String) throws(MapError) -> [PlaceRow]
    {
        var rows: [PlaceRow] = []
        // Lines and fields are split on the bytes of "\n" and "\t", which UTF-8 never uses inside
        // another character, and every field is made a `String` once, from its bytes: the Map
        // reads its 7,000 places when a device starts, and splitting characters and slicing
        // substrings there took some 50 ms of the start (docs/bench.md, "First frame").
        let bytes = Array(text.utf8)
        var fields: [String] = []
        var lineStart = 0
        var number = 0
        while lineStart <= bytes.count {
            number += 1
            var lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let next = lineEnd + 1
            defer { lineStart = next }
            if lineEnd > lineStart, bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            if lineEnd == lineStart || bytes[lineStart] == UInt8(ascii: "#") { continue }
            fields.removeAll(keepingCapacity: true)
            var fieldStart = lineStart
            for index in lineStart...lineEnd where index == lineEnd || bytes[index] == UInt8(ascii: "\t") {
                fields.append(String(decoding: bytes[fieldStart..<index], as: UTF8.self))
                fieldStart = index + 1
            }
            guard fields.count >= minimumFields else {
                throw .malformed(file: file, line: number, reason: "expected \(expected), found \(fields.count)")
            }
            let name = Self.trimmingSpaces(fields[0])
            guard !name.isEmpty, Self.isPrintable(name), Self.characterCount(name) <= 80 else {
                throw .malformed(file: file, line: number, reason: "the name must be 1 to 80 printable characters")
            }
            guard let latitude = Double(fields[1]), latitude.isFinite, (-90...90).contains(latitude) else {
                throw .malformed(
                    file: file, line: number,
                    reason: "latitude \"\(fields[1].prefix(20))\" is not a number from -90 to 90")
            }
            guard let longitude = Double(fields[2]), longitude.isFinite, (-180...180).contains(longitude) else {
                throw .malformed(
                    file: file, line: number,
                    reason: "longitude \"\(fields[2].prefix(20))\" is not a number from -180 to 180")
            }
            rows.append(PlaceRow(line: number, name: name, latitude: latitude, longitude: longitude, fields: fields))
        }
        return rows
    }

    /// Whether `name` has no control character (below U+0020, or U+007F). Checked on its bytes:
    /// in UTF-8 those scalars are single bytes that no other character uses.
    static func isPrintable(_ name: String) -> Bool {
        !name.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// `name.count`, without breaking printable ASCII into grapheme clusters (one each).
    static func characterCount(_ name: String) -> Int {
        name.utf8.allSatisfy { $0 < 0x80 } ? name.utf8.count : name.count
    }

    /// `text` without the spaces and tabs at either end (what Foundation's `.whitespaces` holds:
    /// Unicode's space separators and the tab).
    static func trimmingSpaces(_ text: String) -> String {
        // Printable ASCII with no space or tab at either end (nearly every name): as it is.
        let utf8 = text.utf8
        if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F {
            return text
        }
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
