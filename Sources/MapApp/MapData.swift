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
    /// every test, shares it: it never changes while the program runs). Whoever asked
    /// ``whenRead(_:perform:)`` is told once it is read.
    package static func load(_ resources: MapResources) -> MapData {
        let key = resources.folder.standardizedFileURL.path
        // Read under the lock: a second Map starting meanwhile waits for this reading rather than
        // doing it again.
        let (data, waiting) = cache.withLock { cache in
            if let cached = cache.read[key] { return (cached, [@Sendable (MapData) -> Void]()) }
            let data = MapData(reading: resources)
            cache.read[key] = data
            return (data, cache.waiting.removeValue(forKey: key)?.done ?? [])
        }
        for done in waiting { done(data) }
        return data
    }

    /// Calls `done` with the data of `resources` once it is read (at once, here, when it already
    /// is), without reading it: a Map that has not needed its data yet learns what could not be
    /// read when a reading it did not start ends (``readAwaited()``).
    package static func whenRead(_ resources: MapResources, perform done: @escaping @Sendable (MapData) -> Void) {
        let key = resources.folder.standardizedFileURL.path
        let cached = cache.withLock { cache -> MapData? in
            if let cached = cache.read[key] { return cached }
            cache.waiting[key, default: (resources, [])].done.append(done)
            return nil
        }
        if let cached { done(cached) }
    }

    /// What was read, and what launched Maps wait for, by folder.
    private static let cache = Mutex<
        (read: [String: MapData], waiting: [String: (resources: MapResources, done: [@Sendable (MapData) -> Void])])
    >(([:], [:]))

    /// Starts reading, on a thread of its own, the data that launched Maps wait for
    /// (``whenRead(_:perform:)``): a Map that needs it meanwhile waits for the rest of that
    /// reading (``load(_:)`` reads under its lock) instead of starting it. A terminal device
    /// calls it once its first frame is drawn: the Map's data is the largest part of a start,
    /// and no first frame shows it (a start is CPU-bound on two cores, so reading it meanwhile on
    /// another thread delayed the frame).
    package static func readAwaited() {
        let awaited = cache.withLock { $0.waiting.values.map(\.resources) }
        guard !awaited.isEmpty else { return }
        Thread { for resources in awaited { _ = load(resources) } }.start()
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
