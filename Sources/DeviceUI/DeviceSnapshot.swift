import DeviceAppKit
import Foundation
import HandoffCore

/// A read-only picture of the device at one moment: everything the views and the reducer need,
/// as plain values, so both stay pure and can be tested without a ``Device``.
package struct DeviceSnapshot: Hashable, Sendable {
    /// An installed app, as the home screen, dock and sidebar show it.
    package struct App: Hashable, Sendable {
        package var bundleIdentifier: String
        package var name: String
        package var glyph: Character
        /// The title of the app's current screen.
        package var title: String
        package var keyHints: [KeyHint]
        /// Whether the device can show the app (a terminal app, not only a manifest).
        package var canOpen: Bool

        package init(
            bundleIdentifier: String, name: String, glyph: Character, title: String = "",
            keyHints: [KeyHint] = [], canOpen: Bool = true
        ) {
            self.bundleIdentifier = bundleIdentifier
            self.name = name
            self.glyph = glyph
            self.title = title
            self.keyHints = keyHints
            self.canOpen = canOpen
        }
    }

    /// An activity a peer offers, and where it would go here.
    package struct OfferInfo: Hashable, Sendable {
        package var peer: PeerInfo
        /// When this activity was first offered (a new activity resets it).
        package var firstSeen: Date
        /// When the last beacon for it arrived.
        package var lastSeen: Date
        /// When the origin last saved the activity's state.
        package var savedAt: Date
        package var expiresAt: Date?
        package var options: Advertisement.Options
        package var route: Route
        /// The payload size of the last continuation from this offer, once known.
        package var payloadSize: Int?

        package init(
            peer: PeerInfo, firstSeen: Date, lastSeen: Date, savedAt: Date, expiresAt: Date? = nil,
            options: Advertisement.Options = [.isEligibleForHandoff], route: Route, payloadSize: Int? = nil
        ) {
            self.peer = peer
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
            self.savedAt = savedAt
            self.expiresAt = expiresAt
            self.options = options
            self.route = route
            self.payloadSize = payloadSize
        }

        /// The app that would continue the activity here, if the route names one yet.
        package var targetBundleIdentifier: String? {
            switch route {
            case .app(let bundle, _): bundle
            case .browser(let bundle, _): bundle
            case .web(let browser): browser
            case .unavailable: nil
            }
        }

        /// The activity type, when an app here claims its hash (the beacon carries only the hash).
        package var activityType: String? {
            switch route {
            case .app(_, let type): type
            case .web: UserActivity.browsingWebType
            case .browser, .unavailable: nil
            }
        }
    }

    /// The continuation in progress on this device.
    package struct PendingInfo: Hashable, Sendable {
        package enum Phase: Hashable, Sendable {
            /// The app is being asked (`willContinueUserActivity(withType:)`).
            case askingApp
            /// The payload is on its way; the attempt gives up at `deadline`.
            case fetching(deadline: Date)
            /// The app has the activity (`continue(_:restorationHandler:)`).
            case restoring
        }

        package var peer: PeerInfo
        /// The app that receives it (nil for a web activity until its payload arrived).
        package var bundleIdentifier: String?
        package var activityType: String
        package var phase: Phase
        package var chosenAt: Date
        /// The app delegate's `willContinueUserActivityWithType` returned true: the app tells the
        /// user itself, so the system draws no progress of its own (Apple's reference).
        package var appShowsProgress: Bool

        package init(
            peer: PeerInfo, bundleIdentifier: String?, activityType: String, phase: Phase, chosenAt: Date,
            appShowsProgress: Bool = false
        ) {
            self.peer = peer
            self.bundleIdentifier = bundleIdentifier
            self.activityType = activityType
            self.phase = phase
            self.chosenAt = chosenAt
            self.appShowsProgress = appShowsProgress
        }
    }

    /// The activity this device itself offers to its peers.
    package struct OwnActivity: Hashable, Sendable {
        package var bundleIdentifier: String
        package var activityType: String
        package var title: String?
        /// Whether a beacon currently carries it.
        package var isAdvertised: Bool

        package init(bundleIdentifier: String, activityType: String, title: String? = nil, isAdvertised: Bool = true) {
            self.bundleIdentifier = bundleIdentifier
            self.activityType = activityType
            self.title = title
            self.isAdvertised = isAdvertised
        }
    }

    package var info: PeerInfo
    package var account: String
    /// The installed apps, in home-screen order.
    package var apps: [App]
    /// The app the device system has in front (nil: home).
    package var frontmostApp: String?
    /// Offers from peers, by peer name.
    package var offers: [OfferInfo]
    package var pending: PendingInfo?
    package var ownActivity: OwnActivity?
    /// Every lifecycle event of this device, oldest first.
    package var lifecycle: [LifecycleEvent]
    /// Whether step mode is on, and the phase the device is paused before.
    package var isStepping = false
    package var pausedAt: StepPhase?
    /// Since when the device is paused: its timeouts stand still from then until it goes on.
    package var pausedSince: Date?
    /// The lab's armed faults: true when one stays armed.
    package var armedFaults: [Fault: Bool] = [:]
    /// Web → native: each app's `activitycontinuation:` domains and what their sites' association
    /// files said (``SiteAssociationInfo``).
    package var siteAssociations: [SiteAssociationInfo] = []
    /// What the inspector (F10) shows, made only while it is open (nil otherwise).
    package var inspection: Inspection?
    /// What peers of the account shared of their lifecycle (the timeline view's other lanes).
    package var sharedLifecycle = SharedLifecycle()

    package init(
        info: PeerInfo, account: String, apps: [App] = [], frontmostApp: String? = nil, offers: [OfferInfo] = [],
        pending: PendingInfo? = nil, ownActivity: OwnActivity? = nil, lifecycle: [LifecycleEvent] = []
    ) {
        self.info = info
        self.account = account
        self.apps = apps
        self.frontmostApp = frontmostApp
        self.offers = offers.sorted { ($0.peer.name, $0.peer.id) < ($1.peer.name, $1.peer.id) }
        self.pending = pending
        self.ownActivity = ownActivity
        self.lifecycle = lifecycle
    }

    package func app(_ bundleIdentifier: String?) -> App? {
        guard let bundleIdentifier else { return nil }
        return apps.first { $0.bundleIdentifier == bundleIdentifier }
    }

    package func offer(from peer: DeviceID) -> OfferInfo? {
        offers.first { $0.peer.id == peer }
    }

    /// The offer the device puts forward (lock-screen prompt, dock badge): the newest continuable
    /// one, as Apple shows the most recent activity.
    package var featuredOffer: OfferInfo? {
        offers.filter(\.route.isContinuable).max { ($0.firstSeen, $1.peer.name) < ($1.firstSeen, $0.peer.name) }
    }
}

extension DeviceSnapshot {
    /// Reads `device` as it is now. Apps are listed in the order of `terminalApps`, then any other
    /// installed app (which the device cannot show).
    package init(device: Device, account: String, terminalApps: [any TerminalApp]) {
        let system = device.system
        var apps: [App] = terminalApps.map { app in
            App(
                bundleIdentifier: app.manifest.bundleIdentifier, name: app.manifest.displayName, glyph: app.glyph,
                title: app.title, keyHints: app.keyHints)
        }
        for manifest in system.apps where !apps.contains(where: { $0.bundleIdentifier == manifest.bundleIdentifier }) {
            apps.append(
                App(bundleIdentifier: manifest.bundleIdentifier, name: manifest.displayName, glyph: "◇", canOpen: false)
            )
        }
        let offers = system.offers.values.map { offer in
            OfferInfo(
                peer: offer.peer, firstSeen: offer.firstSeen, lastSeen: offer.lastSeen,
                savedAt: offer.advertisement.savedAt, expiresAt: offer.advertisement.expiresAt,
                options: offer.advertisement.options, route: offer.route, payloadSize: offer.payloadSize)
        }
        let pending = system.pendingContinuation.map { pending in
            let phase: PendingInfo.Phase =
                switch pending {
                case .askingApp: .askingApp
                case .fetching(_, _, _, let deadline): .fetching(deadline: deadline)
                case .delivering: .restoring
                }
            // The app's answer is the continuation's own willContinue event, recorded after the
            // continueChosen that began it: look back no further than that.
            var appShowsProgress = false
            for event in device.lifecycle.reversed() where event.continuation == pending.attempt.id {
                if case .willContinue(_, _, _, _, let shows) = event.occurrence {
                    appShowsProgress = shows
                    break
                }
                if event.kind == .continueChosen { break }
            }
            return PendingInfo(
                peer: pending.peer, bundleIdentifier: pending.target.bundleIdentifier,
                activityType: pending.target.activityType, phase: phase,
                chosenAt: pending.attempt.chosenAt, appShowsProgress: appShowsProgress)
        }
        let own = system.currentActivity.flatMap { system.activities[$0] }.map { activity in
            OwnActivity(
                bundleIdentifier: activity.bundleIdentifier, activityType: activity.activityType,
                title: activity.title, isAdvertised: system.advertisement != nil)
        }
        self.init(
            info: device.info, account: account, apps: apps, frontmostApp: system.frontmostApp, offers: offers,
            pending: pending, ownActivity: own, lifecycle: device.lifecycle)
        isStepping = device.isStepping
        pausedAt = device.pausedAt
        pausedSince = device.pausedAt == nil ? nil : device.pausedSince
        armedFaults = device.armedFaults
        siteAssociations = Self.siteAssociations(of: system, at: device.clock())
    }
}
