import Foundation

/// The map view an address of `maps.handoffsim.example` asks for: `?lat=LAT&lon=LON&z=ZOOM`, as
/// the Map app writes in its activity's `webpageURL`.
///
/// The site's pages get these variables (``variables``): `map.summary` ("Map of 48.86°N 2.35°E at
/// zoom 4", or what is wrong with the address), `map.latitude`, `map.longitude`, `map.zoom`
/// (as given, once checked), `map.problem` (empty when the view is valid) and `map.zoomIn`,
/// `map.zoomOut` (addresses one zoom step in and out, or the site's home).
package struct MapQuery: Hashable, Sendable {
    /// The Map's web site.
    package static let host = "maps.handoffsim.example"
    /// The latitudes, longitudes and zoom levels accepted: every view the Map app can show and
    /// write into its activity's address. The zooms are the Map's own range,
    /// `MapCamera.minimumZoom...MapCamera.maximumZoom` (-1, the world 64 columns wide, to 10); the
    /// two apps cannot import each other, so both test suites pin the range to -1...10 (the Map's:
    /// every address it writes stays in it; the Browser's: every zoom in it is accepted). The
    /// address carries the zoom with two decimals, so a fractional or negative zoom such as the
    /// whole world's (about -0.61) is valid.
    package static let latitudes = -90.0...90.0
    package static let longitudes = -180.0...180.0
    package static let zooms = -1.0...10.0

    package var latitude: Double?
    package var longitude: Double?
    package var zoom: Double?
    /// What is wrong with the address, or nil when it names a valid view.
    package var problem: String?

    package init(url: URL) {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        var problems: [String] = []
        func number(_ name: String, in range: ClosedRange<Double>, what: String) -> Double? {
            guard let text = value(name) else {
                problems.append("\(name) (\(what)) is missing")
                return nil
            }
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite,
                range.contains(number)
            else {
                problems.append(
                    "\(name) “\(PageParser.cleanValue(String(text.prefix(24))))” is not a number from "
                        + "\(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
                return nil
            }
            return number
        }
        latitude = number("lat", in: Self.latitudes, what: "latitude")
        longitude = number("lon", in: Self.longitudes, what: "longitude")
        zoom = number("z", in: Self.zooms, what: "zoom")
        if items.isEmpty {
            problem = "This address names no place on the map: the Map app adds ?lat=…&lon=…&z=… to it."
        } else if !problems.isEmpty {
            problem = "This address does not name a map view: " + problems.joined(separator: "; ") + "."
        }
    }

    /// “Map of 48.86°N 2.35°E at zoom 4”, or nil when the view is not valid.
    package var summary: String? {
        guard problem == nil, let latitude, let longitude, let zoom else { return nil }
        return "Map of \(Self.describe(latitude: latitude, longitude: longitude)) at zoom \(Self.format(zoom))"
    }

    /// The variables the site's pages may use.
    package var variables: [String: String] {
        var values = [
            "map.summary": summary ?? problem ?? "",
            "map.problem": problem ?? "",
            "map.latitude": latitude.map { Self.format($0, decimals: 4) } ?? "",
            "map.longitude": longitude.map { Self.format($0, decimals: 4) } ?? "",
            "map.zoom": zoom.map { Self.format($0) } ?? "",
        ]
        values["map.zoomIn"] = address(zoomedBy: 1)
        values["map.zoomOut"] = address(zoomedBy: -1)
        return values
    }

    /// The address of this view zoomed by `steps` (clamped), or the site's home without a view.
    func address(zoomedBy steps: Double) -> String {
        guard problem == nil, let latitude, let longitude, let zoom else { return "https://\(Self.host)/" }
        let newZoom = min(max(zoom + steps, Self.zooms.lowerBound), Self.zooms.upperBound)
        return
            "https://\(Self.host)/?lat=\(Self.format(latitude, decimals: 4))&lon=\(Self.format(longitude, decimals: 4))&z=\(Self.format(newZoom))"
    }

    /// “48.86°N 2.35°E” (two decimals; 0° has no hemisphere letter).
    package static func describe(latitude: Double, longitude: Double) -> String {
        func part(_ value: Double, _ positive: String, _ negative: String) -> String {
            let text = format(abs(value), decimals: 2)
            return text == "0" ? "0°" : text + "°" + (value > 0 ? positive : negative)
        }
        return "\(part(latitude, "N", "S")) \(part(longitude, "E", "W"))"
    }

    /// `value` with at most `decimals` decimals, trailing zeros removed (“4”, “4.5”, “-12.25”).
    package static func format(_ value: Double, decimals: Int = 2) -> String {
        var text = String(format: "%.\(decimals)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
