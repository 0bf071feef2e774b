import Foundation
import HandoffCore
import TerminalCells

/// What the map shows: a centre and a zoom.
///
/// At zoom 0 the world is 128 columns wide; each step in doubles the scale. A terminal cell is
/// about twice as tall as wide, so a row spans twice the degrees of a column and the map keeps
/// its shape (plate carrée).
package struct MapCamera: Hashable, Sendable, CustomStringConvertible {
    /// The widest view: the world 64 columns wide.
    package static let minimumZoom = -1.0
    /// The closest view: a braille dot about 150 m wide (Natural Earth's 1:10m data holds a
    /// coast's shape to about this scale).
    package static let maximumZoom = 10.0
    /// The world, centred on the equator and the prime meridian.
    package static let world = MapCamera(latitude: 10, longitude: 0, zoom: 0)

    /// The centre's latitude, -90...90.
    package private(set) var latitude: Double
    /// The centre's longitude, -180..<180 (wrapped).
    package private(set) var longitude: Double
    /// ``minimumZoom``...``maximumZoom``.
    package private(set) var zoom: Double

    /// A camera with every value brought into range (non-finite values become 0).
    package init(latitude: Double, longitude: Double, zoom: Double) {
        self.latitude = latitude.isFinite ? min(max(latitude, -90), 90) : 0
        self.longitude = Self.wrap(longitude.isFinite ? longitude : 0)
        self.zoom = zoom.isFinite ? min(max(zoom, Self.minimumZoom), Self.maximumZoom) : 0
    }

    /// The camera that shows the whole of `region` in a view of `size` cells, as large as it fits.
    package init(fitting region: MapRegion, in size: Size) {
        let columns = Double(max(size.width, 1))
        let rows = Double(max(size.height, 1))
        let degreesPerColumn = max(region.longitudeDelta / columns, region.latitudeDelta / (2 * rows))
        self.init(latitude: region.latitude, longitude: region.longitude, zoom: log2(360 / (128 * degreesPerColumn)))
    }

    /// Degrees of longitude per column (a row spans twice as many degrees of latitude).
    package var degreesPerColumn: Double { 360 / (128 * exp2(zoom)) }

    /// The region a view of `size` cells shows (spans capped at the whole world).
    package func region(in size: Size) -> MapRegion {
        MapRegion(
            latitude: latitude, longitude: longitude,
            latitudeDelta: min(Double(size.height) * 2 * degreesPerColumn, 180),
            longitudeDelta: min(Double(size.width) * degreesPerColumn, 360))
    }

    /// Moved by `columns` and `rows` (east and south positive).
    package func panned(columns: Double, rows: Double) -> MapCamera {
        MapCamera(
            latitude: latitude - rows * 2 * degreesPerColumn, longitude: longitude + columns * degreesPerColumn,
            zoom: zoom)
    }

    /// Zoomed by `steps` (in positive), keeping the centre.
    package func zoomed(by steps: Double) -> MapCamera {
        MapCamera(latitude: latitude, longitude: longitude, zoom: zoom + steps)
    }

    /// The page a browser shows for this view: `https://maps.handoffsim.example/?lat=…&lon=…&z=…`.
    package var webpageURL: URL {
        var components = URLComponents()
        components.scheme = "https"
        components.host = MapRegion.webHost
        components.path = "/"
        components.queryItems = [
            URLQueryItem(name: "lat", value: MapRegion.format(latitude, decimals: 4)),
            URLQueryItem(name: "lon", value: MapRegion.format(longitude, decimals: 4)),
            URLQueryItem(name: "z", value: MapRegion.format(zoom, decimals: 2)),
        ]
        guard let url = components.url else { preconditionFailure("the map's URL is always valid: \(components)") }
        return url
    }

    package var description: String {
        "\(MapRegion.describe(latitude: latitude, longitude: longitude)) zoom \(MapRegion.format(zoom, decimals: 2))"
    }

    static func wrap(_ longitude: Double) -> Double {
        let wrapped = (longitude + 180).truncatingRemainder(dividingBy: 360)
        return (wrapped < 0 ? wrapped + 360 : wrapped) - 180
    }
}

/// A region of the map as it hands off: a centre and spans in degrees (MapKit's
/// `MKCoordinateRegion`, which Apple's MapOff sample hands off), written into `userInfo` as four
/// plain numbers.
package struct MapRegion: Hashable, Sendable {
    /// The `userInfo` keys the Map writes, each a floating-point number of degrees.
    package enum Key {
        package static let latitude = "latitude"
        package static let longitude = "longitude"
        package static let latitudeDelta = "latitudeDelta"
        package static let longitudeDelta = "longitudeDelta"
    }

    /// The host of ``MapCamera/webpageURL``, which the Browser knows.
    package static let webHost = "maps.handoffsim.example"

    package var latitude: Double
    package var longitude: Double
    package var latitudeDelta: Double
    package var longitudeDelta: Double

    package init(latitude: Double, longitude: Double, latitudeDelta: Double, longitudeDelta: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.latitudeDelta = latitudeDelta
        self.longitudeDelta = longitudeDelta
    }

    /// The four numbers, as doubles.
    package var userInfo: UserInfo {
        [
            Key.latitude: .double(latitude),
            Key.longitude: .double(longitude),
            Key.latitudeDelta: .double(latitudeDelta),
            Key.longitudeDelta: .double(longitudeDelta),
        ]
    }

    /// Reads a region from a continued activity's `userInfo`. Each key is required and must be a
    /// finite number (an integer is accepted): the latitude within ±90, the longitude within
    /// ±180, the spans above 0 and at most 180 and 360 degrees.
    ///
    /// - Throws: ``MapRestoreError`` naming the first key that is missing or wrong.
    package init(userInfo: UserInfo) throws(MapRestoreError) {
        func number(
            _ key: String, in range: ClosedRange<Double>, excludingLowerBound: Bool = false,
            expected: String
        ) throws(MapRestoreError) -> Double {
            guard let value = userInfo[key] else { throw .missingKey(key) }
            guard let number = value.doubleValue, number.isFinite, range.contains(number),
                !(excludingLowerBound && number == range.lowerBound)
            else { throw .badValue(key: key, found: value, expected: expected) }
            return number
        }
        self.init(
            latitude: try number(Key.latitude, in: -90...90, expected: "a latitude from -90 to 90"),
            longitude: try number(Key.longitude, in: -180...180, expected: "a longitude from -180 to 180"),
            latitudeDelta: try number(
                Key.latitudeDelta, in: 0...180, excludingLowerBound: true,
                expected: "a span above 0 and at most 180 degrees"),
            longitudeDelta: try number(
                Key.longitudeDelta, in: 0...360, excludingLowerBound: true,
                expected: "a span above 0 and at most 360 degrees"))
    }

    /// "48.86°N 2.35°E".
    package static func describe(latitude: Double, longitude: Double, decimals: Int = 2) -> String {
        let ns = latitude < 0 ? "S" : "N"
        let ew = longitude < 0 ? "W" : "E"
        return "\(format(abs(latitude), decimals: decimals))°\(ns) \(format(abs(longitude), decimals: decimals))°\(ew)"
    }

    /// `value` with at most `decimals` decimals and no trailing zeros ("2.5", "3", "-0.125").
    static func format(_ value: Double, decimals: Int) -> String {
        var text = String(format: "%.\(decimals)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}

/// Why a continued activity's region could not be shown; the Map keeps its view and says this.
package enum MapRestoreError: Error, Hashable, Sendable, CustomStringConvertible {
    case missingKey(String)
    case badValue(key: String, found: UserInfoValue, expected: String)

    package var description: String {
        switch self {
        case .missingKey(let key):
            "The activity has no \"\(key)\", so there is no region to show. Nothing changed here."
        case .badValue(let key, let found, let expected):
            "The activity's \"\(key)\" is \(Self.describe(found)), not \(expected). Nothing changed here."
        }
    }

    private static func describe(_ value: UserInfoValue) -> String {
        var shown = value.description
        if shown.count > 40 { shown = String(shown.prefix(39)) + "…" }
        return "\(shown) (\(value.kindName))"
    }
}
