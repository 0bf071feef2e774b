import HandoffCore
import TerminalCells

/// Where each part of the screen goes for a terminal size: the device, the Nearby sidebar, the
/// lifecycle log (below at 80 columns, beside from 140) and the footer.
public struct ScreenLayout: Hashable, Sendable {
    /// The smallest terminal the screen is drawn for.
    public static let minimumSize = Size(width: 80, height: 24)
    /// From this width on, the log goes beside the device instead of below it.
    public static let sideBySideWidth = 140

    public let size: Size
    public let isTooSmall: Bool
    /// The column the device is drawn in (its frame may be narrower, centred in it).
    public let device: Rect
    public let nearby: Rect
    /// Nil when the log is hidden.
    public let log: Rect?
    public let footer: Rect

    public init(size: Size, isLogVisible: Bool) {
        self.size = size
        let bounds = Rect(origin: .zero, size: size)
        isTooSmall = size.width < Self.minimumSize.width || size.height < Self.minimumSize.height
        let (body, footer) = bounds.splitBottom(1)
        self.footer = footer
        let sidebarWidth = size.width >= Self.sideBySideWidth ? 40 : size.width >= 110 ? 32 : 26
        var upper = body
        var log: Rect?
        if isLogVisible {
            if size.width >= Self.sideBySideWidth {
                let (rest, right) = body.splitRight((size.width - sidebarWidth) * 45 / 100)
                upper = rest
                log = right
            } else {
                let (rest, bottom) = body.splitBottom(max(8, body.height * 2 / 5))
                upper = rest
                log = bottom
            }
        }
        let (device, nearby) = upper.splitRight(sidebarWidth)
        self.device = device
        self.nearby = nearby
        self.log = log
    }
}

/// The parts of a device's frame, which differ by kind: a phone and a tablet have a status bar
/// and a bottom bar (home indicator, or the tablet's dock); a laptop has a menu bar, a dock and
/// a keyboard deck below its screen.
public struct DeviceFrameLayout: Hashable, Sendable {
    /// The frame's border.
    public let frame: Rect
    /// The status bar (menu bar on a laptop).
    public let statusBar: Rect
    /// The device's screen between the bars: home, apps, lock screen.
    public let screen: Rect
    /// The home indicator (phone) or the dock (tablet, laptop).
    public let bottomBar: Rect
    /// The laptop's keyboard deck below the screen.
    public let base: Rect?

    public static let phoneMaximumWidth = 46
    public static let tabletMaximumWidth = 100

    public init(kind: PeerInfo.Kind, in area: Rect) {
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
    public var appBar: Rect { screen.row(0) }
    /// Where the app in front draws.
    public var appArea: Rect { screen.inset(top: 1) }
}
