import Foundation
import HandoffCore
import TerminalCells

/// What happened, for ``ScreenState/update(_:device:)``.
package enum ScreenMessage: Hashable, Sendable {
    /// The user pressed a key.
    case keyPressed(Key)
    /// The app in front did not use a key the screen passed to it.
    case appIgnoredKey(Key)
    /// An app opened a URL (its own or one another app asked the system to open).
    case appOpenedURL(bundleIdentifier: String)
    /// The network layer reported its state and the peers it hears.
    case networkChanged(NetworkStatus)
    /// The device recorded a lifecycle event.
    case lifecycleEventRecorded(LifecycleEvent)
    /// Time passed: the clock, ages and notices move on.
    case clockTicked(Date)
    /// The terminal has a new size.
    case terminalResized(Size)
}

/// What the screen asks the device (and its apps) to do, in order.
package enum ScreenEffect: Hashable, Sendable {
    /// The user chose to continue the activity this peer offers.
    case chooseOffer(DeviceID)
    /// The user cancelled the continuation in progress.
    case cancelContinuation
    /// Bring this app to the front (nil: the home screen).
    case bringToFront(bundleIdentifier: String?)
    /// Give the key to the app in front; if it does not use it, answer ``ScreenMessage/appIgnoredKey(_:)``.
    case sendKeyToApp(Key)
    /// The user quit this app from the app switcher (or the dock): the device terminates it
    /// (`Device.terminate(_:)`) and the app forgets its state, so its next launch is cold.
    case terminate(bundleIdentifier: String)
    /// The user locked (true) or unlocked (false) the device: the device system decides what
    /// that does to its advertising (``Device/lock()``).
    case setLocked(Bool)
    /// Step mode on or off (``Device/isStepping``).
    case setStepping(Bool)
    /// Go on from the step-mode pause.
    case stepNext
    /// Arm a fault of the lab (for the next occasion, or until disarmed).
    case armFault(Fault, sticky: Bool)
    case disarmFault(Fault)
    /// The user asked to quit the device.
    case quit
}

/// One line of the Nearby sidebar: a peer of the account and what it offers.
package struct NearbyRow: Hashable, Sendable {
    package var peer: PeerInfo
    package var lastSeen: Date
    /// Nil when the peer offers no activity.
    package var offer: DeviceSnapshot.OfferInfo?
}

/// An entry of the app switcher (phone, tablet) or the dock (laptop).
package enum SwitcherItem: Hashable, Sendable {
    /// The Handoff item: the activity a peer offers.
    case handoff(DeviceSnapshot.OfferInfo)
    case app(bundleIdentifier: String)
    case home
}

extension ScreenState {
    /// The peers of the account, from the network's list and the device's offers, by name.
    package func nearbyRows(device snapshot: DeviceSnapshot) -> [NearbyRow] {
        var rows: [DeviceID: NearbyRow] = [:]
        for peer in network.peers where peer.info.id != device.id {
            rows[peer.info.id] = NearbyRow(peer: peer.info, lastSeen: peer.lastSeen, offer: nil)
        }
        for offer in snapshot.offers {
            let seen = max(offer.lastSeen, rows[offer.peer.id]?.lastSeen ?? offer.lastSeen)
            rows[offer.peer.id] = NearbyRow(peer: offer.peer, lastSeen: seen, offer: offer)
        }
        return rows.values.sorted { ($0.peer.name, $0.peer.id) < ($1.peer.name, $1.peer.id) }
    }

    /// The index of the highlighted Nearby row (nil when there are none).
    package func selectedNearbyIndex(in rows: [NearbyRow]) -> Int? {
        guard !rows.isEmpty else { return nil }
        return rows.firstIndex { $0.peer.id == nearbySelection } ?? 0
    }

    /// The switcher's entries: on a phone or tablet the recent apps, home, then the Handoff
    /// item (at the bottom, as iOS shows it); on a laptop the Handoff item at the dock's left
    /// end, then every app.
    package func switcherItems(device snapshot: DeviceSnapshot) -> [SwitcherItem] {
        let handoff = snapshot.featuredOffer.map { [SwitcherItem.handoff($0)] } ?? []
        if hasAppSwitcher {
            let recent = recentApps.filter { snapshot.app($0)?.canOpen == true }.map {
                SwitcherItem.app(bundleIdentifier: $0)
            }
            return recent + [.home] + handoff
        }
        return handoff + snapshot.apps.filter(\.canOpen).map { .app(bundleIdentifier: $0.bundleIdentifier) }
    }

    /// Whether the lock screen offers to continue incoming activities (phone and tablet, as iOS).
    package var promptsOnLockScreen: Bool { device.kind != .laptop }

    /// The layout for the current terminal size.
    package var layout: ScreenLayout {
        // One layout, not two: `whenRoom` keeps the layout with the log unless it covers the device.
        guard logMode == .whenRoom else {
            return ScreenLayout(kind: device.kind, size: size, isLogVisible: logMode == .shown)
        }
        let withLog = ScreenLayout(kind: device.kind, size: size, isLogVisible: true)
        return withLog.logPlacement != .covering
            ? withLog : ScreenLayout(kind: device.kind, size: size, isLogVisible: false)
    }

    /// The device frame for the current terminal size.
    package var frameLayout: DeviceFrameLayout { DeviceFrameLayout(kind: device.kind, in: layout.device) }
}
