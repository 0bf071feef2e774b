import Foundation
import Synchronization

/// Everything the Map draws, read from its resources: the geography's levels, the places and
/// the countries' names, with what could not be read.
///
/// A damaged or missing file does not stop the Map: it draws what loaded and says what did not
/// (``problems``, one error naming each file).
package struct MapData: Sendable {
    package let geography: MapGeography
    package let cities: CityCatalog
    package let countries: [CountryLabel]
    /// What could not be read, one error per file: the geography's levels, then the places and the
    /// countries' names.
    package var problems: [MapError] { geography.problems + otherProblems }
    private let otherProblems: [MapError]
    /// How long reading took.
    package let loadTime: Duration

    package init(
        geography: MapGeography, cities: CityCatalog, countries: [CountryLabel], problems: [MapError] = [],
        loadTime: Duration = .zero
    ) {
        self.geography = geography
        self.cities = cities
        self.countries = countries
        otherProblems = problems
        self.loadTime = loadTime
    }

    /// Reads every file of `resources` now (no cache).
    package init(reading resources: MapResources) {
        let clock = ContinuousClock()
        let start = clock.now
        let geography = MapGeography(resources: resources)
        var problems: [MapError] = []
        var cities = CityCatalog(cities: [])
        do {
            cities = try CityCatalog(contentsOf: resources.places)
        } catch {
            problems.append(error)
        }
        var countries: [CountryLabel] = []
        do {
            countries = try CountryLabel.read(contentsOf: resources.countries)
        } catch {
            problems.append(error)
        }
        self.init(
            geography: geography, cities: cities, countries: countries, problems: problems, loadTime: clock.now - start)
    }

    /// The data of `resources`, read once per process and folder (every Map of a process, and
    /// every test, shares it: it never changes while the program runs).
    package static func load(_ resources: MapResources) -> MapData {
        let key = resources.folder.standardizedFileURL.path
        // Read under the lock: a second Map starting meanwhile waits for this reading rather than
        // doing it again.
        return cache.withLock { cache in
            if let cached = cache[key] { return cached }
            let data = MapData(reading: resources)
            cache[key] = data
            return data
        }
    }

    private static let cache = Mutex<[String: MapData]>([:])

    /// Starts reading the data of `resources` on a thread of its own: a Map made later finds it
    /// read, or waits for the rest of that reading (``load(_:)`` reads under its lock) instead of
    /// starting it. A terminal device calls it first, so the reading overlaps its other start-up
    /// work (the account, the identity, TLS, the sockets) on another core.
    package static func prefetch(_ resources: MapResources) {
        Thread { _ = load(resources) }.start()
    }

    /// One line for the user about what could not be read, or nil when everything was.
    package var problemSummary: String? {
        guard let first = problems.first else { return nil }
        let more =
            problems.count > 1
            ? " (and \(problems.count - 1) more file\(problems.count > 2 ? "s" : ""); see the log)" : ""
        return "Some map data could not be read; showing what could. \(first)\(more)"
    }
}
