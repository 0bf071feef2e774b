import Foundation

/// A populated place of Natural Earth.
public struct City: Hashable, Sendable {
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// ISO 3166-1 alpha-3 (Natural Earth's `ADM0_A3`), e.g. "JPN".
    public var countryCode: String
    public var country: String
    /// The country's population: the labels of bigger countries' cities are placed first.
    public var countryPopulation: Int

    public init(name: String, latitude: Double, longitude: Double, countryCode: String = "", country: String = "",
                countryPopulation: Int = 0) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.countryCode = countryCode
        self.country = country
        self.countryPopulation = countryPopulation
    }
}

/// The cities the Map labels and searches.
public struct CityCatalog: Hashable, Sendable {
    /// Most important first (country population, then name), the order labels are placed in.
    public let cities: [City]

    public init(cities: [City]) {
        self.cities = cities.sorted { ($0.countryPopulation, $1.name) > ($1.countryPopulation, $0.name) }
    }

    /// Reads `cities.tsv`: `#` comments, then one city a line: name, latitude, longitude,
    /// country code, country, country population (tab-separated; the last three may be empty).
    ///
    /// - Throws: ``MapError/malformed(file:line:reason:)`` naming the line and the field.
    public init(tsv text: String, file: String = "cities.tsv") throws(MapError) {
        var cities: [City] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 3 else {
                throw .malformed(file: file, line: number, reason: "expected at least 3 tab-separated fields (name, latitude, longitude), found \(fields.count)")
            }
            let name = fields[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.count <= 80, !name.contains(where: { $0.isNewline || $0.unicodeScalars.contains { $0.value < 0x20 } }) else {
                throw .malformed(file: file, line: number, reason: "the name must be 1 to 80 printable characters")
            }
            guard let latitude = Double(fields[1]), latitude.isFinite, (-90...90).contains(latitude) else {
                throw .malformed(file: file, line: number, reason: "latitude \"\(fields[1].prefix(20))\" is not a number from -90 to 90")
            }
            guard let longitude = Double(fields[2]), longitude.isFinite, (-180...180).contains(longitude) else {
                throw .malformed(file: file, line: number, reason: "longitude \"\(fields[2].prefix(20))\" is not a number from -180 to 180")
            }
            var population = 0
            if fields.count > 5, !fields[5].isEmpty {
                guard let value = Int(fields[5]), value >= 0 else {
                    throw .malformed(file: file, line: number, reason: "country population \"\(fields[5].prefix(20))\" is not a whole number from 0")
                }
                population = value
            }
            cities.append(City(name: name, latitude: latitude, longitude: longitude,
                               countryCode: fields.count > 3 ? fields[3] : "", country: fields.count > 4 ? fields[4] : "",
                               countryPopulation: population))
        }
        guard !cities.isEmpty else { throw .malformed(file: file, line: nil, reason: "no cities") }
        self.init(cities: cities)
    }

    /// Reads the catalogue at `url`.
    public init(contentsOf url: URL) throws(MapError) {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw .unreadable(file: url.lastPathComponent, reason: "not UTF-8 text (\(error.localizedDescription))")
        }
        try self.init(tsv: text, file: url.lastPathComponent)
    }

    /// The cities whose name (or country) matches `query`, best first: ignoring case and
    /// accents, names that equal it, then names starting with it, then names with a word
    /// starting with it, then names containing it; then cities of the country it names.
    public func search(_ query: String, limit: Int = 8) -> [City] {
        let needle = Self.fold(query.trimmingCharacters(in: .whitespaces))
        guard !needle.isEmpty, limit > 0 else { return [] }
        var ranked: [(rank: Int, index: Int)] = []
        for (index, city) in cities.enumerated() {
            let name = Self.fold(city.name)
            let rank: Int
            if name == needle { rank = 0 }
            else if name.hasPrefix(needle) { rank = 1 }
            else if name.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains(where: { $0.hasPrefix(needle) }) { rank = 2 }
            else if name.contains(needle) { rank = 3 }
            else if Self.fold(city.country).hasPrefix(needle) || Self.fold(city.countryCode) == needle { rank = 4 }
            else { continue }
            ranked.append((rank, index))
        }
        return ranked.sorted { ($0.rank, $0.index) < ($1.rank, $1.index) }.prefix(limit).map { cities[$0.index] }
    }

    /// Lower case without accents ("São Paulo" → "sao paulo").
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }
}
