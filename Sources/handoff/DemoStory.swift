import DeviceUI
import HandoffCore
import TerminalCells

/// A walkthrough of the README as one command: which devices to start, with which options, and
/// what it shows.
struct DemoStory: Sendable {
    /// One device of a story: its kind, an optional name and the options its pane passes.
    struct Device: Sendable {
        var kind: PeerInfo.Kind
        var name: String?
        var arguments: [String] = []
    }

    var name: String
    /// One line for `handoff demo --list`.
    var summary: String
    /// What to do first, printed by `--list` and shown in the README.
    var firstSteps: String
    var devices: [Device]

    static let all: [DemoStory] = [
        DemoStory(
            name: "reading",
            summary: "A document read on a laptop continues on a phone at the same page (the default).",
            firstSteps: "Laptop: Enter, Enter, Space Space (page 3). Phone: F3 to lock, then Enter on the offer.",
            devices: [Device(kind: .laptop), Device(kind: .phone)]),
        DemoStory(
            name: "map",
            summary: "A map region (centre and span as plain numbers) moves from a laptop to a phone's smaller screen.",
            firstSteps: "Laptop: → Enter (Map), / Lisbon Enter, + to zoom. Phone: Ctrl-O.",
            devices: [Device(kind: .laptop), Device(kind: .phone)]),
        DemoStory(
            name: "web",
            summary:
                "Web to native: a Map page in the laptop's Browser continues in the phone's Map app, which its site approves over the local web.",
            firstSteps:
                "Laptop: open the Browser, g, maps.handoffsim.example/?lat=38.7&lon=-9.1&z=6, Enter. Phone: Ctrl-O (the Map opens there).",
            devices: [
                Device(kind: .laptop, arguments: ["--apps", "browser,map"]),
                Device(kind: .phone, arguments: ["--apps", "map,browser"]),
            ]),
        DemoStory(
            name: "fallback",
            summary:
                "Native to web: the laptop's Map continues in the Browser of a phone without the Map, at the activity's webpageURL, over the local web.",
            firstSteps:
                "Laptop: → Enter (Map), / Lisbon Enter. Phone (only the Browser): Ctrl-O (the Map's page opens in the Browser).",
            devices: [
                Device(kind: .laptop),
                Device(kind: .phone, arguments: ["--apps", "browser"]),
            ]),
        DemoStory(
            name: "streams",
            summary:
                "A phone without the document (no cloud) fetches a 2 MB book from the laptop over continuation streams, over the lab's slow link (--slow-link 256:20, 256 KiB a second), so the transfer can be watched.",
            firstSteps:
                "Laptop: open the Reader and \"A Long Book\". Phone: Ctrl-O; watch the transfer (about 8 s) and streamsOpened (F2).",
            devices: [
                Device(kind: .laptop, arguments: ["--sample-document", "2MB", "--slow-link", "256:20"]),
                Device(kind: .phone, arguments: ["--no-cloud"]),
            ]),
        DemoStory(
            name: "versions",
            summary:
                "Handoff versions: a version-1 laptop hands off to the current phone; the phone's Reader refuses a version-3 tablet's activity.",
            firstSteps:
                "Laptop (v1): read a document, phone: Ctrl-O (restored). Tablet (v3): read one, phone: continue it (the Reader refuses "
                + "it; with scenes the system still tells the tablet it was continued).",
            devices: [
                Device(kind: .laptop, name: "Laptop v1", arguments: ["--reader-version", "1"]),
                Device(kind: .phone),
                Device(kind: .tablet, name: "Tablet v3", arguments: ["--reader-version", "3"]),
            ]),
        DemoStory(
            name: "failures",
            summary:
                "The lab: break a continuation on purpose (F8 faults), step through it (F6, F7) and see where it broke on both devices' timeline (F9).",
            firstSteps:
                "Laptop: open the Reader and a document, F8, no-answer, Enter. Phone: Ctrl-O; 5 s later 4610; F9 shows where it broke.",
            devices: [Device(kind: .laptop), Device(kind: .phone)]),
        DemoStory(
            name: "asymmetric",
            summary:
                "Asymmetric apps: Studio (reads and maps) hands off to a phone's separate Reader and Map; another team's app never gets it.",
            firstSteps:
                "Laptop (Studio): read, F5 to map. Phone: Ctrl-O each time. Tablet: Nearby says \"team differs\".",
            devices: [
                Device(kind: .laptop, arguments: ["--apps", "studio"]),
                Device(kind: .phone, arguments: ["--apps", "reader,map"]),
                Device(kind: .tablet, arguments: ["--apps", "other"]),
            ]),
    ]

    static func named(_ name: String) -> DemoStory? {
        all.first { $0.name == name.lowercased() }
    }
}

/// How the devices' panes share a terminal, and the size each pane gets.
struct DemoArrangement: Equatable, Sendable {
    enum Shape: String, Sendable {
        /// All side by side.
        case columns
        /// The first device on the left, the others stacked on the right (three devices).
        case leftAndStack
        /// The first device on top, the others side by side below (three devices).
        case topAndRow
        /// All one above the other.
        case rows
    }

    var shape: Shape
    /// Each pane's size, in the order of the story's devices.
    var paneSizes: [Size]

    /// The pane sizes tmux gives `count` panes of `shape` in a window of `window` cells (a
    /// separator of one cell between neighbours; the first panes get the odd cells).
    static func paneSizes(_ shape: Shape, count: Int, window: Size) -> [Size] {
        func split(_ total: Int, into parts: Int) -> [Int] {
            guard parts > 0 else { return [] }
            let room = total - (parts - 1)
            return (0..<parts).map { room / parts + ($0 < room % parts ? 1 : 0) }
        }
        switch shape {
        case .columns:
            return split(window.width, into: count).map { Size(width: $0, height: window.height) }
        case .rows:
            return split(window.height, into: count).map { Size(width: window.width, height: $0) }
        case .leftAndStack:
            let widths = split(window.width, into: 2)
            return [Size(width: widths[0], height: window.height)]
                + split(window.height, into: count - 1).map { Size(width: widths[1], height: $0) }
        case .topAndRow:
            let heights = split(window.height, into: 2)
            return [Size(width: window.width, height: heights[0])]
                + split(window.width, into: count - 1).map { Size(width: $0, height: heights[1]) }
        }
    }

    /// The shapes worth trying for `count` devices, best first: side by side (devices are
    /// tall), then the mixed shapes, then stacked.
    static func shapes(count: Int) -> [Shape] {
        count >= 3 ? [.columns, .leftAndStack, .topAndRow, .rows] : [.columns, .rows]
    }

    /// The first shape in which every device gets at least its kind's minimum, or nil.
    static func best(for kinds: [PeerInfo.Kind], in window: Size) -> DemoArrangement? {
        for shape in shapes(count: kinds.count) {
            let sizes = paneSizes(shape, count: kinds.count, window: window)
            let fits = zip(kinds, sizes).allSatisfy { kind, size in
                let minimum = ScreenLayout.minimumSize(for: kind)
                return size.width >= minimum.width && size.height >= minimum.height
            }
            if fits { return DemoArrangement(shape: shape, paneSizes: sizes) }
        }
        return nil
    }

    /// The smallest window that fits `kinds` in `shape` (side by side: the widths add up).
    static func smallestWindow(for kinds: [PeerInfo.Kind], shape: Shape) -> Size {
        let minimums = kinds.map(ScreenLayout.minimumSize(for:))
        let separators = kinds.count - 1
        switch shape {
        case .columns:
            // Equal columns: every column as wide as the widest minimum.
            let width = (minimums.map(\.width).max() ?? 0) * kinds.count + separators
            return Size(width: width, height: minimums.map(\.height).max() ?? 0)
        case .rows:
            let height = (minimums.map(\.height).max() ?? 0) * kinds.count + separators
            return Size(width: minimums.map(\.width).max() ?? 0, height: height)
        case .leftAndStack, .topAndRow:
            return smallestWindow(for: kinds, shape: .columns)
        }
    }
}
