import DeviceAppKit
import Foundation
import HandoffCore
import HandoffManifest

// The Map in either app model: the app delegate (`Info.plist`) or scenes (`Info-Scenes.plist`,
// whose scene manifest names ``MapSceneDelegate``: one scene, the map). Either way it loads its
// entitlements (`Map.entitlements`), so the pages of its site continue here.

extension MapResources {
    /// The Info.plist of the scenes model: the same keys as ``infoPlist`` and a
    /// `UIApplicationSceneManifest` naming ``MapSceneDelegate``.
    package var sceneInfoPlist: URL { folder.appendingPathComponent("Info-Scenes.plist", isDirectory: false) }
    /// The entitlements (`activitycontinuation:maps.handoffsim.example`), read when present.
    package var entitlements: URL { folder.appendingPathComponent("Map.entitlements", isDirectory: false) }

    /// The Info.plist the Map of `model` uses.
    package func infoPlist(for model: AppModel) -> URL {
        model == .scenes ? sceneInfoPlist : infoPlist
    }
}

extension MapApp {
    /// Loads the Map of `model` from its resources (see ``MapResources/locate()``).
    package convenience init(model: AppModel) throws(MapError) {
        try self.init(resources: MapResources.locate(), model: model)
    }

    /// Loads the Map from `resources`: the Info.plist of `model`, with the entitlements when the
    /// file is there, both expanded with `buildSettings`.
    ///
    /// - Throws: ``MapError`` naming the Info.plist or the entitlements when either is missing or wrong.
    package convenience init(
        resources: MapResources, model: AppModel, buildSettings: [String: String] = MapApp.buildSettings
    )
        throws(MapError)
    {
        let infoPlist = resources.infoPlist(for: model)
        let entitlements =
            FileManager.default.fileExists(atPath: resources.entitlements.path) ? resources.entitlements : nil
        let manifest: AppManifest
        do {
            manifest = try AppManifest(
                infoPlistAt: infoPlist, entitlementsAt: entitlements, buildSettings: buildSettings)
        } catch {
            throw .manifest(error)
        }
        try self.init(manifest: manifest, resources: resources, manifestFile: infoPlist.path)
    }

    /// With scenes, the system creates the scene's delegate from this class (named in
    /// `Info-Scenes.plist`).
    package var sceneDelegateClasses: [any SceneDelegate.Type] { [MapSceneDelegate.self] }

    /// Shows that an activity of `activityType` is on its way (either model).
    func prepareForContinuation(of activityType: String) {
        isContinuing = true
        message = nil
        environment?.setNeedsDisplay()
    }

    /// The data arrived (either model): a page of the Map's site shows its view
    /// (``continueWebActivity(_:)``); the Map's own activity shows its region through the map
    /// view, the responder that restores it. Returns whether it was handled.
    func continueActivity(_ activity: UserActivity, restore: ([Responder]) -> Void) -> Bool {
        isContinuing = false
        if activity.activityType == UserActivity.browsingWebType {
            return continueWebActivity(activity)
        }
        restore([mapView])
        return true
    }

    /// The continuation failed (either model): the map stays as it was and says why.
    func continuationFailed(_ activityType: String, error: HandoffError) {
        isContinuing = false
        message = .continuationFailed(error)
        environment?.log("Map: continuation of \(activityType) failed: \(error)")
        environment?.setNeedsDisplay()
    }

    /// The user quit the Map from the app switcher (the system already ended its scene and its
    /// activity): the whole world, no search, cursor or flight, as a new process starts. The
    /// next time it comes to the front it makes a new activity.
    package func terminate() {
        mapView.userActivity = nil
        flightNumber += 1
        show(MapCamera.world)
        clearHighlight()
        setSearch(nil)
        setRendering(.braille)
        cursor = nil
        isContinuing = false
        message = data.problemSummary.map { MapMessage(.warning, $0) }
    }
}

/// The Map's scene delegate, named in `Info-Scenes.plist` (`UISceneDelegateClassName`
/// `MapApp.MapSceneDelegate`). It reaches the Map through the scene's application, whose delegate
/// the Map is. On a cold launch for a continuation the scene connects with only the activity's
/// type: the Map shows that a region is coming, and shows it in `scene(_:continue:)`.
final class MapSceneDelegate: SceneDelegate {
    init() {}

    private func map(of scene: Scene) -> MapApp? { scene.application?.delegate as? MapApp }

    func scene(_ scene: Scene, willConnectTo session: SceneSession, options: Scene.ConnectionOptions) {
        scene.title = "Map"
        if let type = options.handoffUserActivityType { map(of: scene)?.prepareForContinuation(of: type) }
    }

    func scene(_ scene: Scene, willContinueUserActivityWithType activityType: String) {
        map(of: scene)?.prepareForContinuation(of: activityType)
    }

    func scene(_ scene: Scene, continue userActivity: UserActivity) {
        _ = map(of: scene)?.continueActivity(userActivity) { responders in
            for responder in responders { responder.restoreUserActivityState(userActivity) }
        }
    }

    func scene(_ scene: Scene, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        map(of: scene)?.continuationFailed(activityType, error: error)
    }
}
