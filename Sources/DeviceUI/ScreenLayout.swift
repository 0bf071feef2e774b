import HandoffCore
import TerminalCells

/// Where each part of the screen goes for a device kind and a terminal size: the device, the
/// Nearby sidebar (or, when the width is short, a one-line Nearby badge and the sidebar drawn over
/// the screen on demand), the lifecycle log (beside, below, or over the device when there is no
/// room for both) and the footer.
package struct ScreenLayout: Hashable, Sendable {
    /// The smallest terminal a device of `kind` is drawn in: its frame and bars around an app
    /// area of at least ``minimumAppArea``, the footer, and the Nearby badge.
    ///
    /// A phone and a tablet have a rounded frame with a status bar and a bottom bar; a laptop also
    /// has a margin of one column on each side and a keyboard deck below its screen.
    package static func minimumSize(for kind: PeerInfo.Kind) -> Size {
        let app = minimumAppArea
        // Rows: footer, badge, frame top and bottom, status bar, app bar, bottom bar (+ deck).
        switch kind {
        case .phone, .tablet:
            return Size(width: app.width + 2, height: app.height + 7)
        case .laptop:
            return Size(width: app.width + 4, height: app.height + 8)
        }
    }

    /// The smallest area an app is given: the Reader's page, the Map's viewport and the
    /// Browser's page all stay usable down to it.
    package static let minimumAppArea = Size(width: 32, height: 11)

    /// The width the device's column needs before the Nearby sidebar gets a column of its own:
    /// a phone's whole frame, a tablet's smallest comfortable frame, a laptop's screen as it is at
    /// 80 columns.
    package static func comfortableDeviceWidth(for kind: PeerInfo.Kind) -> Int {
        switch kind {
        case .phone: DeviceFrameLayout.phoneMaximumWidth
        case .tablet: 60
        case .laptop: 54
        }
    }

    /// From this width on, the log goes beside the device instead of below it.
    package static let sideBySideWidth = 140

    /// Where the lifecycle log is drawn, when it is visible.
    package enum LogPlacement: Hashable, Sendable {
        /// A column to the right of the device and the sidebar.
        case beside
        /// A band below the device and the sidebar.
        case below
        /// Over the whole body: the terminal has no room for the device and the log together.
        case covering
    }

    package let kind: PeerInfo.Kind
    package let size: Size
    package let isTooSmall: Bool
    /// The column the device is drawn in (its frame may be narrower, centred in it); empty when
    /// the log covers it.
    package let device: Rect
    /// The Nearby sidebar's own column; nil when it is collapsed to ``nearbyBadge``.
    package let nearby: Rect?
    /// The one-line Nearby badge shown instead of the sidebar when the width is short.
    package let nearbyBadge: Rect?
    /// Where the sidebar is drawn over the screen while it has the focus and is collapsed.
    package let nearbyOverlay: Rect
    /// Nil when the log is hidden.
    package let log: Rect?
    /// Where the log is, when it is visible.
    package let logPlacement: LogPlacement?
    package let footer: Rect

    package init(kind: PeerInfo.Kind, size: Size, isLogVisible: Bool) {
        self.kind = kind
        self.size = size
        let minimum = Self.minimumSize(for: kind)
        isTooSmall = size.width < minimum.width || size.height < minimum.height
        let bounds = Rect(origin: .zero, size: size)
        let (body, footer) = bounds.splitBottom(1)
        self.footer = footer
        let sidebarWidth = size.width >= Self.sideBySideWidth ? 40 : size.width >= 110 ? 32 : 26
        let comfortable = Self.comfortableDeviceWidth(for: kind)

        // The log: beside when the terminal is wide, below when the device keeps its smallest
        // height, otherwise over the device (F2 brings the device back).
        let deviceMinimumHeight = minimum.height - 1
        var upper = body
        var log: Rect?
        var placement: LogPlacement?
        if isLogVisible {
            let besideWidth = (size.width - sidebarWidth) * 45 / 100
            let logHeight = max(8, body.height * 2 / 5)
            if size.width >= Self.sideBySideWidth, size.width - besideWidth - sidebarWidth >= comfortable {
                (upper, log) = body.splitRight(besideWidth)
                placement = .beside
            } else if body.height - logHeight >= deviceMinimumHeight {
                (upper, log) = body.splitBottom(logHeight)
                placement = .below
            } else {
                placement = .covering
            }
        }
        logPlacement = placement

        // Nearby: a column of its own when the device keeps its comfortable width beside it,
        // else a one-line badge at the top and the sidebar over the screen on demand.
        if placement == .covering {
            let (badge, rest) = body.splitTop(1)
            device = Rect(x: 0, y: 0, width: 0, height: 0)
            nearby = nil
            nearbyBadge = badge
            nearbyOverlay = rest.splitRight(min(rest.width, 40)).1
            self.log = rest
        } else if upper.width - sidebarWidth >= comfortable {
            let (device, nearby) = upper.splitRight(sidebarWidth)
            self.device = device
            self.nearby = nearby
            nearbyBadge = nil
            nearbyOverlay = nearby
            self.log = log
        } else {
            let (badge, device) = upper.splitTop(1)
            self.device = device
            nearby = nil
            nearbyBadge = badge
            nearbyOverlay = device.splitRight(min(device.width, 40)).1
            self.log = log
        }
    }

    /// Whether the device is drawn (the log does not cover it).
    package var showsDevice: Bool { logPlacement != .covering }
}

/// The parts of a device's frame, which differ by kind: a phone and a tablet have a status bar
/// and a bottom bar (home indicator, or the tablet's dock); a laptop has a menu bar, a dock and
/// a keyboard deck below its screen.
package struct DeviceFrameLayout: Hashable, Sendable {
    /// The frame's border.
    package let frame: Rect
    /// The status bar (menu bar on a laptop).
    package let statusBar: Rect
    /// The device's screen between the bars: home, apps, lock screen.
    package let screen: Rect
    /// The home indicator (phone) or the dock (tablet, laptop).
    package let bottomBar: Rect
    /// The laptop's keyboard deck below the screen.
    package let base: Rect?

    package static let phoneMaximumWidth = 46
    package static let tabletMaximumWidth = 100

    package init(kind: PeerInfo.Kind, in area: Rect) {
        var outer = area
        var base: Rect?
        switch kind {
        case .phone:
            outer = area.centered(Size(width: Self.phoneMaximumWidth, height: area.height))
        case .tablet:
            outer = area.centered(Size(width: Self.tabletMaximumWidth, height: area.height))
        case .laptop:
            let (screen, deck) = area.splitBottom(1)
            outer = screen.inset(left: 1, right: 1)
            base = deck
        }
        frame = outer
        let inside = outer.inset(by: 1)
        let (top, rest) = inside.splitTop(1)
        let (screen, bottom) = rest.splitBottom(1)
        statusBar = top
        self.screen = screen
        bottomBar = bottom
        self.base = base
    }

    /// The row at the top of the screen that shows the app's name and title (and notices).
    package var appBar: Rect { screen.row(0) }
    /// Where the app in front draws.
    package var appArea: Rect { screen.inset(top: 1) }
}
