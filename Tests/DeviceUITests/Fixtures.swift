import DeviceAppKit
import DeviceUI
import Foundation
import HandoffCore
import TerminalCells

/// Fixed values for deterministic screens.
enum Fixture {
    static let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    static let gmt = TimeZone(identifier: "GMT")!
    static let phone = PeerInfo(id: "phone", name: "Phone", kind: .phone)
    static let tablet = PeerInfo(id: "tablet", name: "Tablet", kind: .tablet)
    static let laptop = PeerInfo(id: "laptop", name: "Laptop", kind: .laptop)
    static let desk = PeerInfo(id: "desk", name: "Desk", kind: .laptop)
    static let watch = PeerInfo(id: "kitchen", name: "Kitchen iPad", kind: .tablet)

    static let notesType = "com.example.notes.editing"
    static let notes = DeviceSnapshot.App(
        bundleIdentifier: "com.example.notes", name: "Notes", glyph: "✎", title: "Page 3",
        keyHints: [KeyHint("↑ ↓", "turn pages"), KeyHint("n", "next page")])
    static let map = DeviceSnapshot.App(
        bundleIdentifier: "com.example.map", name: "Map", glyph: "◎", title: "Seoul",
        keyHints: [KeyHint("← → ↑ ↓", "pan"), KeyHint("+ -", "zoom")])
    static let browser = DeviceSnapshot.App(
        bundleIdentifier: "com.example.browser", name: "Browser", glyph: "◍",
        title: "example.com")

    /// A continuable offer from the laptop (its notes app is here too), with a known payload size.
    static let laptopOffer = DeviceSnapshot.OfferInfo(
        peer: laptop, firstSeen: now.addingTimeInterval(-12), lastSeen: now.addingTimeInterval(-1),
        savedAt: now.addingTimeInterval(-12), options: [.isEligibleForHandoff, .supportsContinuationStreams],
        route: .app(bundleIdentifier: "com.example.notes", activityType: notesType), payloadSize: 2150)
    /// The same activity offered by the phone (for the laptop's and tablet's screens).
    static let phoneOffer = DeviceSnapshot.OfferInfo(
        peer: phone, firstSeen: now.addingTimeInterval(-4), lastSeen: now, savedAt: now.addingTimeInterval(-4),
        route: .app(bundleIdentifier: "com.example.notes", activityType: notesType))
    /// An offer nothing here claims.
    static let tabletOffer = DeviceSnapshot.OfferInfo(
        peer: tablet, firstSeen: now.addingTimeInterval(-300), lastSeen: now.addingTimeInterval(-3),
        savedAt: now.addingTimeInterval(-300), route: .unavailable(.noAppClaimsType))
    /// An offer claimed by an app of another team.
    static let deskOffer = DeviceSnapshot.OfferInfo(
        peer: desk, firstSeen: now.addingTimeInterval(-40), lastSeen: now.addingTimeInterval(-2),
        savedAt: now.addingTimeInterval(-40), route: .unavailable(.teamDiffers(bundleIdentifiers: ["com.example.map"])))
    /// An offer the browser would open (no native app, but a web page).
    static let kitchenOffer = DeviceSnapshot.OfferInfo(
        peer: watch, firstSeen: now.addingTimeInterval(-5), lastSeen: now,
        savedAt: now.addingTimeInterval(-5), options: [.isEligibleForHandoff, .hasWebpageURL],
        route: .browser(bundleIdentifier: "com.example.browser", because: .noAppClaimsType))

    static let continuation = ContinuationID(rawValue: UUID(uuidString: "5EC0A11D-0000-4000-8000-000000000001")!)
    static let laptopPeer = PeerReference(id: "laptop", name: "Laptop")
    static let notesRoute = Route.app(bundleIdentifier: "com.example.notes", activityType: notesType)

    static func events() -> [LifecycleEvent] {
        let device = "Phone"
        let identity = AdvertisementIdentity(
            device: "laptop", serial: 4, activityTypeHash: ActivityTypeHash(activityType: notesType))
        func at(_ offset: TimeInterval, _ occurrence: LifecycleEvent.Occurrence) -> LifecycleEvent {
            LifecycleEvent(time: now.addingTimeInterval(offset), device: device, occurrence)
        }
        return [
            at(-14, .offerReceived(laptopPeer, identity, route: notesRoute)),
            at(-3.25, .continueChosen(continuation, laptopPeer, route: notesRoute)),
            at(
                -3.25,
                .willContinue(
                    continuation, laptopPeer, bundleIdentifier: "com.example.notes", activityType: notesType,
                    appShowsProgress: true)),
            at(-3.25, .fetchStarted(continuation, laptopPeer, timeout: 5)),
            at(
                -3.2,
                .payloadReceived(
                    continuation, laptopPeer, activityType: notesType, bytes: 2150, milliseconds: 48,
                    userInfo: ["page": 3])),
            at(-3.2, .continueCalled(continuation, bundleIdentifier: "com.example.notes", activityType: notesType)),
            at(
                -3.2,
                .restoreUserActivityState(
                    continuation, bundleIdentifier: "com.example.notes", objects: 1, userInfo: ["page": 3])),
            at(
                -3.2,
                .continued(
                    continuation, laptopPeer, bundleIdentifier: "com.example.notes", .application(restoredObjects: 1),
                    milliseconds: 52)),
        ]
    }

    static func device(
        _ info: PeerInfo = phone, apps: [DeviceSnapshot.App] = [notes, map, browser],
        offers: [DeviceSnapshot.OfferInfo] = [laptopOffer, tabletOffer],
        pending: DeviceSnapshot.PendingInfo? = nil, lifecycle: [LifecycleEvent] = []
    ) -> DeviceSnapshot {
        DeviceSnapshot(
            info: info, account: "demo", apps: apps, frontmostApp: nil, offers: offers, pending: pending,
            ownActivity: DeviceSnapshot.OwnActivity(
                bundleIdentifier: "com.example.map",
                activityType: "com.example.map.region", title: "Seoul"),
            lifecycle: lifecycle)
    }

    static let network = NetworkStatus(
        summary: "loopback 127.255.255.255:17820", link: .online,
        peers: [
            NearbyPeer(info: laptop, lastSeen: now.addingTimeInterval(-1)),
            NearbyPeer(info: tablet, lastSeen: now.addingTimeInterval(-3)),
            NearbyPeer(
                info: PeerInfo(id: "spare", name: "Spare Phone", kind: .phone),
                lastSeen: now.addingTimeInterval(-75)),
        ])

    static func state(_ info: PeerInfo = phone, size: Size = Size(width: 80, height: 24)) -> ScreenState {
        ScreenState(device: info, account: "demo", now: now, timeZone: gmt, size: size, network: network)
    }

    /// Renders with a stand-in for the app in front.
    static func render(_ state: ScreenState, _ device: DeviceSnapshot) -> Grid {
        ScreenView(state: state, device: device).render { bundle, grid, area in
            let app = device.app(bundle)
            grid.put("\(app?.name ?? bundle) is drawn here", at: Point(x: area.x + 1, y: area.y + 1))
            grid.put(
                "(\(area.width)x\(area.height) cells)", at: Point(x: area.x + 1, y: area.y + 2), style: Style(.dim))
        }
    }
}

/// A tiny terminal app for the tests: pages of notes, a reading activity that carries the page.
final class PagesApp: TerminalApp, ApplicationDelegate {
    let manifest: AppManifest
    let glyph: Character
    var page = 1
    private(set) var application: Application?
    private(set) var activity: UserActivity?
    private(set) var continued = 0
    private(set) var frontmostChanges: [Bool] = []
    private(set) var keys: [Key] = []
    private(set) var continuationsChosen = 0
    /// What `willContinueUserActivityWithType` answers: true, the app shows its own progress.
    var showsOwnProgress = false

    init(manifest: AppManifest = PagesApp.manifest, glyph: Character = "✎") {
        self.manifest = manifest
        self.glyph = glyph
    }

    static let activityType = "com.example.notes.editing"
    static let manifest = AppManifest(
        bundleIdentifier: "com.example.notes", teamIdentifier: "ABCDE12345",
        displayName: "Notes", activityTypes: [activityType])

    var title: String { "Page \(page)" }
    var keyHints: [KeyHint] { [KeyHint("↑ ↓", "turn pages")] }

    func launch(application: Application, environment: AppEnvironment) {
        self.application = application
    }

    func setFrontmost(_ frontmost: Bool) {
        frontmostChanges.append(frontmost)
        guard frontmost, activity == nil, let application else { return }
        guard let activity = try? UserActivity(activityType: Self.activityType, application: application) else {
            return
        }
        activity.title = title
        activity.addUserInfoEntries(from: ["page": .integer(Int64(page))])
        self.activity = activity
        activity.becomeCurrent()
    }

    func continuationChosen() { continuationsChosen += 1 }

    func render(into grid: inout Grid, area: Rect) {
        grid.put("Notes, page \(page)", at: Point(x: area.x + 1, y: area.y + 1))
    }

    func handle(_ key: Key) -> Bool {
        keys.append(key)
        switch key {
        case .down, .up:
            page = max(1, page + (key == .down ? 1 : -1))
            activity?.title = title
            activity?.addUserInfoEntries(from: ["page": .integer(Int64(page))])
            activity?.needsSave = true
            return true
        default:
            return false
        }
    }

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        showsOwnProgress
    }

    func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        if case .integer(let value) = userActivity.userInfo["page"] { page = Int(value) }
        continued += 1
        return true
    }
}
