import DeviceAppKit
import Foundation
import HandoffCore
import HandoffManifest
import TerminalCells

/// The Map: a world map of Natural Earth's vector geography and places whose visible region
/// hands off (after Apple's MapOff sample).
///
/// Arrows pan (or move the cursor, which `c` shows), + and - zoom (towards the cursor when it is
/// shown), / searches a place by name and flies there, 0 shows the whole world. Every change of the region sets the
/// activity's `needsSave`; when the system saves, the map view writes the visible region as four
/// plain numbers (``MapRegion/userInfo``), and the activity's `webpageURL` carries the centre and
/// zoom (``MapCamera/webpageURL``) so a device without the Map continues in the Browser.
/// Continuing shows the same region, fitted to this screen.
///
/// Create it with ``init()`` (it loads its manifest and geography from its resources), then let
/// the device install it and call ``launch(application:environment:)``. Like every app, it is
/// used on its device's run loop only.
package final class MapApp: TerminalApp, ApplicationDelegate {
    /// The build settings the Map's Info.plist is expanded with.
    package static let buildSettings = [
        "PRODUCT_BUNDLE_IDENTIFIER": "com.handoffsim.map", "DEVELOPMENT_TEAM": "SIMTEAM001",
    ]
    /// The zoom a search flies to (at least).
    package static let searchZoom = 6.0
    /// The most characters a search may hold.
    static let maximumQueryLength = 40

    package let manifest: AppManifest
    package let glyph: Character = "◍"
    /// The activity type the Map hands off (`com.handoffsim.map.region`).
    package let regionActivityType: String
    /// What draws the map (its data read first, when it is not yet).
    package var renderer: MapRenderer { readContent().renderer }

    /// What the map shows.
    package private(set) var camera = MapCamera.world
    /// How land is drawn (`m` switches).
    package private(set) var rendering = MapRendering.braille
    /// The city found last, drawn first and highlighted until the next move.
    package internal(set) var highlighted: City?
    /// The search field, while it is open.
    package private(set) var search: MapSearch?
    /// What the app tells the user, until the next key.
    package internal(set) var message: MapMessage?
    /// True between `willContinue` and the end of the continuation.
    package internal(set) var isContinuing = false
    /// The size of the map: the app's area (``viewportChanged(to:)``) less the status line. The
    /// region handed off is what a map of this size shows, whatever was drawn last.
    package private(set) var viewport = Size(width: 80, height: 20)
    /// The flight to a searched place in progress, if any.
    package internal(set) var flight: MapFlight?
    /// The cursor's cell relative to the map's centre cell, while it is shown (`c`).
    package internal(set) var cursor: Point?
    /// What the Map draws (shared by every Map of the process), read when first needed when it
    /// was not handed in.
    package var data: MapData { readContent().data }
    private var content: Content

    /// The Map's data and what draws it: read, or still to be read from its resources. A terminal
    /// device reads them once its first frame is drawn (``MapData/readAwaited()``): no first frame
    /// shows the map.
    private enum Content {
        case read(MapData, MapRenderer)
        case unread(MapResources)
    }

    private(set) var application: Application?
    private(set) var environment: AppEnvironment?
    let mapView = MapView()
    /// Numbers flights, so a late frame tick of an earlier flight does nothing.
    var flightNumber = 0

    /// Loads the Map's manifest and geography from its resources (see ``MapResources/locate()``).
    package convenience init() throws(MapError) {
        try self.init(resources: MapResources.locate())
    }

    /// Loads the Map from `resources` with the app delegate (``init(resources:model:buildSettings:)``
    /// loads either model), expanding `buildSettings` in its Info.plist and entitlements. The
    /// geography is read once per process (``MapData/load(_:)``); a data file that is missing or
    /// damaged does not stop the Map: it shows what loaded and says which file was not.
    ///
    /// - Throws: ``MapError`` naming the Info.plist or entitlements when either is missing or wrong.
    package convenience init(
        resources: MapResources, buildSettings: [String: String] = MapApp.buildSettings
    ) throws(MapError) {
        try self.init(resources: resources, model: .delegate, buildSettings: buildSettings)
    }

    /// A Map with a manifest and geography read elsewhere.
    ///
    /// - Throws: ``MapError/noRegionActivity(file:)`` when the manifest declares no `.region` type.
    package convenience init(manifest: AppManifest, data: MapData, manifestFile: String = "Info.plist") throws(MapError)
    {
        try self.init(
            manifest: manifest,
            content: .read(
                data, MapRenderer(geography: data.geography, cities: data.cities, countries: data.countries)),
            manifestFile: manifestFile)
        if let summary = data.problemSummary { message = MapMessage(.warning, summary) }
    }

    /// A Map whose geography is read from `resources` when it is first needed.
    ///
    /// - Throws: ``MapError/noRegionActivity(file:)`` when the manifest declares no `.region` type.
    package convenience init(manifest: AppManifest, resources: MapResources, manifestFile: String) throws(MapError) {
        try self.init(manifest: manifest, content: .unread(resources), manifestFile: manifestFile)
    }

    private init(manifest: AppManifest, content: Content, manifestFile: String) throws(MapError) {
        guard let type = manifest.activityTypes.first(where: { $0.hasSuffix(".region") }) else {
            throw .noRegionActivity(file: manifestFile)
        }
        self.manifest = manifest
        self.content = content
        regionActivityType = type
        mapView.map = self
        // The Map's one view: in the window hierarchy (UIKit), the main window's (AppKit).
        mapView.isOnScreen = true
    }

    /// The data and its renderer, read now when they were not: what could not be read is then
    /// shown (unless the Map already shows a message) and logged (once launched; before,
    /// ``launch(application:environment:)`` logs it).
    private func readContent() -> (data: MapData, renderer: MapRenderer) {
        switch content {
        case .read(let data, let renderer): return (data, renderer)
        case .unread(let resources):
            let data = MapData.load(resources)
            let renderer = MapRenderer(geography: data.geography, cities: data.cities, countries: data.countries)
            content = .read(data, renderer)
            if let summary = data.problemSummary, message == nil { message = MapMessage(.warning, summary) }
            if let environment {
                for problem in data.problems { environment.log("Map: \(problem)") }
                if data.problemSummary != nil { environment.setNeedsDisplay() }
            }
            return (data, renderer)
        }
    }

    // MARK: TerminalApp

    package var title: String {
        "Map · \(MapRegion.describe(latitude: camera.latitude, longitude: camera.longitude, decimals: 1))"
    }

    package var keyHints: [KeyHint] {
        if search != nil {
            return [
                KeyHint("type", "a place's name"), KeyHint("↑ ↓", "choose"), KeyHint("Enter", "fly there"),
                KeyHint("Esc", "close the search"),
            ]
        }
        return [
            KeyHint("← → ↑ ↓", cursor == nil ? "pan" : "move the cursor"),
            KeyHint("+ -", cursor == nil ? "zoom in, out" : "zoom at the cursor"),
            KeyHint("/", "search a place"),
            KeyHint("c", cursor == nil ? "show the cursor" : "hide the cursor"),
            KeyHint("0", "the whole world"),
            KeyHint("m", "braille or half blocks"),
        ]
    }

    /// The activity the map view shares: created here and made current.
    package var activity: UserActivity? { mapView.userActivity }

    package func launch(application: Application, environment: AppEnvironment) {
        self.application = application
        self.environment = environment
        switch content {
        case .read(let data, _):
            for problem in data.problems { environment.log("Map: \(problem)") }
        case .unread(let resources):
            // Read later (by the device after its first frame, or by whatever needs it first):
            // what could not be read is shown and logged then.
            let perform = environment.perform
            let reference = Confined(weak: self)
            MapData.whenRead(resources) { _ in perform { _ = reference.value.object?.readContent() } }
        }
    }

    /// A new continuation was chosen: an error shown for the last one ("Could not continue …")
    /// goes, so it never stands under the new continuation's progress box.
    package func continuationChosen() {
        guard message?.kind == .error else { return }
        message = nil
        environment?.setNeedsDisplay()
    }

    /// The map takes the area less its status line; a new size shows another region, so the
    /// activity needs saving (with no frame drawn: the region does not wait for one).
    package func viewportChanged(to size: Size) {
        let map = Self.mapSize(in: size)
        guard map != viewport else { return }
        viewport = map
        if let cursor {  // the cursor stays on the map
            self.cursor = Point(
                x: min(max(cursor.x, -(map.width / 2)), map.width - map.width / 2 - 1),
                y: min(max(cursor.y, -(map.height / 2)), map.height - map.height / 2 - 1))
        }
        regionChanged()
    }

    /// The size of the map in an area of `size`: all of it but the status line at the bottom
    /// (none below 3 rows). Messages are drawn over the map's last rows, so they never move it.
    static func mapSize(in size: Size) -> Size {
        Size(width: size.width, height: size.height >= 3 ? size.height - 1 : size.height)
    }

    /// The map view's activity is made when the user first opens the Map (an app nobody opened
    /// describes nothing the user is doing), then made current each time the Map comes to the front.
    package func setFrontmost(_ frontmost: Bool) {
        guard frontmost, let application else { return }
        data.geography.decodeInBackground()
        // With scenes, the user opening the Map connects its scene.
        if application.usesScenes, application.connectedScenes.isEmpty { application.requestScene() }
        if activity == nil {
            do {
                let activity = try UserActivity(activityType: regionActivityType, application: application)
                activity.title = "Map region"
                mapView.userActivity = activity
                regionChanged()
            } catch {
                environment?.log("Map: could not create the \(regionActivityType) activity: \(error)")
                message = MapMessage(.error, "The map's region cannot hand off: \(error)")
            }
        }
        activity?.becomeCurrent()
    }

    // MARK: Moving

    /// Shows `camera` (ending a flight); when the region changes, the activity needs saving.
    package func show(_ camera: MapCamera) {
        flight = nil
        guard camera != self.camera else { return }
        self.camera = camera
        regionChanged()
    }

    /// Shows `city` (centred, at ``searchZoom`` or closer) and highlights it, at once.
    package func show(_ city: City) {
        highlighted = city
        show(Self.camera(showing: city, from: camera))
    }

    /// The camera that shows `city`: centred, at ``searchZoom`` or closer.
    static func camera(showing city: City, from camera: MapCamera) -> MapCamera {
        MapCamera(latitude: city.latitude, longitude: city.longitude, zoom: max(camera.zoom, searchZoom))
    }

    func setFlight(_ flight: MapFlight?) { self.flight = flight }

    /// Shows a camera in the middle of a flight, without asking for a save.
    func showFrame(_ camera: MapCamera) { self.camera = camera }

    /// The cursor's position on the map, when it is shown.
    package var cursorCoordinate: (latitude: Double, longitude: Double)? {
        guard let cursor else { return nil }
        return (
            latitude: min(max(camera.latitude - Double(cursor.y) * 2 * camera.degreesPerColumn, -90), 90),
            longitude: MapCamera.wrap(camera.longitude + Double(cursor.x) * camera.degreesPerColumn)
        )
    }

    /// The region the map shows now, on a map of ``viewport``.
    package var visibleRegion: MapRegion { camera.region(in: viewport) }

    /// The markers and names the map shows now (in the map's own cells, from its top left).
    package var placedLabels: [PlacedLabel] {
        renderer.placeLabels(camera, highlighted: highlighted, area: Rect(origin: .zero, size: viewport))
    }

    /// Marks the activity for saving and points its web page at the new view.
    private func regionChanged() {
        guard let activity else { return }
        activity.needsSave = true
        do {
            try activity.setWebpageURL(camera.webpageURL)
        } catch {
            environment?.log("Map: \(error)")
        }
    }

    func setRendering(_ rendering: MapRendering) { self.rendering = rendering }
    func setSearch(_ search: MapSearch?) { self.search = search }
    func clearHighlight() { highlighted = nil }

    // MARK: Continuation

    package func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool
    {
        prepareForContinuation(of: activityType)
        return true
    }

    /// Hands the map view to the restoration handler; it shows the activity's region. A page of
    /// the Map's site shows its view (``continueWebActivity(_:)``, with scenes too).
    package func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        continueActivity(userActivity, restore: restorationHandler)
    }

    package func application(
        _ application: Application, didFailToContinueUserActivityWithType activityType: String,
        error: HandoffError
    ) {
        continuationFailed(activityType, error: error)
    }

    /// Shows the region a continued activity carries, fitted to this screen. A missing or bad
    /// value keeps the map as it was and says which; a region wider or closer than the map can
    /// show is shown as near as it can, and says so.
    func restore(from activity: UserActivity) {
        defer { environment?.setNeedsDisplay() }
        do throws(MapRestoreError) {
            let region = try MapRegion(userInfo: activity.userInfo)
            let fitted = MapCamera(fitting: region, in: viewport)
            let wanted = log2(
                360
                    / (128
                        * max(
                            region.longitudeDelta / Double(max(viewport.width, 1)),
                            region.latitudeDelta / Double(2 * max(viewport.height, 1)))))
            highlighted = nil
            show(fitted)
            message = nil
            if wanted > MapCamera.maximumZoom + 0.01 {
                message = MapMessage(
                    .warning, "The region is smaller than the map can show; showing it at the closest zoom.")
            }
        } catch {
            message = MapMessage(.error, error.description)
            environment?.log("Map: could not restore \(activity.activityType): \(error)")
        }
    }
}

/// The responder that shares the Map's activity: it writes and restores the region.
final class MapView: Responder {
    weak var map: MapApp?

    override func updateUserActivityState(_ activity: UserActivity) {
        guard let map else { return }
        activity.addUserInfoEntries(from: map.visibleRegion.userInfo)
    }

    override func restoreUserActivityState(_ activity: UserActivity) {
        map?.restore(from: activity)
    }
}

/// A line the Map shows the user.
package typealias MapMessage = AppMessage

/// The search field: what was typed, the cities it matches, the one chosen.
package struct MapSearch: Hashable, Sendable {
    package var query = ""
    package var matches: [City] = []
    package var selection = 0

    package init() {}
}
