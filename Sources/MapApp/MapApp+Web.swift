import Foundation
import HandoffCore

/// Why a page of the Map's web site cannot be shown.
package enum MapWebError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The activity has no `webpageURL`.
    case noPage
    /// The page is on another site.
    case otherHost(String)
    /// `lat`, `lon` or `z` is missing or out of range.
    case badView(URL, problem: String)

    package var description: String {
        switch self {
        case .noPage:
            "The web activity has no page, so there is no region to show. The map stays as it was."
        case .otherHost(let host):
            "The page is on \(host), not \(MapRegion.webHost): the Map does not open it. The map stays as it was."
        case .badView(let url, let problem):
            "\(url.absoluteString) does not name a map view: \(problem). The map stays as it was."
        }
    }
}

extension MapCamera {
    /// The view a page of the Map's site shows: `https://maps.handoffsim.example/?lat=…&lon=…&z=…`
    /// (``webpageURL``), each a number in range (latitude -90…90, longitude -180…180, zoom
    /// ``minimumZoom``…``maximumZoom``).
    ///
    /// - Throws: ``MapWebError`` for another host, or a missing or bad value (named).
    package init(webpageURL url: URL) throws(MapWebError) {
        guard let host = url.host?.lowercased(), host == MapRegion.webHost else {
            throw .otherHost(url.host ?? "no host")
        }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []
        func number(_ name: String, _ what: String, in range: ClosedRange<Double>) throws(MapWebError) -> Double {
            guard let text = items.first(where: { $0.name == name })?.value else {
                throw .badView(url, problem: "\(name) (the \(what)) is missing")
            }
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                throw .badView(
                    url,
                    problem: "\(name) “\(text.prefix(24))” is not a \(what) from "
                        + "\(MapRegion.format(range.lowerBound, decimals: 0)) to \(MapRegion.format(range.upperBound, decimals: 0))"
                )
            }
            return value
        }
        let latitude = try number("lat", "latitude", in: -90...90)
        let longitude = try number("lon", "longitude", in: -180...180)
        let zoom = try number("z", "zoom", in: MapCamera.minimumZoom...MapCamera.maximumZoom)
        self.init(latitude: latitude, longitude: longitude, zoom: zoom)
    }
}

extension MapApp {
    /// A browsing-web activity for a page of the Map's site (the system delivers it with the page
    /// only: an empty `userInfo`): shows the view the page names, or says why not and keeps the
    /// map as it was. Returns whether it was handled.
    func continueWebActivity(_ activity: UserActivity) -> Bool {
        defer { environment?.setNeedsDisplay() }
        do throws(MapWebError) {
            guard let url = activity.webpageURL else { throw .noPage }
            let camera = try MapCamera(webpageURL: url)
            clearHighlight()
            show(camera)
            message = nil
            environment?.log("Map: showing \(url.absoluteString)")
            return true
        } catch {
            message = MapMessage(.error, error.description)
            environment?.log(
                "Map: web activity \(activity.webpageURL?.absoluteString ?? "(no page)") not shown: \(error)")
            return false
        }
    }
}
