import Foundation
import HandoffCore
import TerminalCells

/// One app made of several: the all-in-one app of the asymmetric-apps demo.
///
/// Apple's point is that the originating and the continuing app need not be the same app: a Mac
/// app that does reading and maps can hand off to separate iPhone apps of the same team, because
/// what matters is the activity type and the team. A composite app has its own bundle identifier
/// and one manifest claiming every part's activity and document types (all parts must share a
/// team); each part keeps its own screen and state. One part shows at a time (F5 switches), and
/// coming to the front makes that part's activity current. Application callbacks go to the part
/// that claims the activity's type. It uses the app delegate only (no scene manifest): its parts'
/// scene delegates are not installed.
package final class CompositeApp: TerminalApp, ApplicationDelegate {
    package let manifest: AppManifest
    package let glyph: Character
    package let parts: [any TerminalApp]
    /// The index of the part shown.
    package private(set) var selected = 0
    private var isFrontmost = false

    package enum CompositionError: Error, Hashable, CustomStringConvertible {
        case noParts
        case teamsDiffer([String])

        package var description: String {
            switch self {
            case .noParts: "a composite app needs at least one part"
            case .teamsDiffer(let teams):
                "the parts of a composite app must share a team, not \(teams.joined(separator: ", "))"
            }
        }
    }

    /// - Throws: ``CompositionError`` when there are no parts or their teams differ.
    package init(
        bundleIdentifier: String, displayName: String, glyph: Character, parts: [any TerminalApp]
    ) throws(CompositionError) {
        guard let first = parts.first else { throw .noParts }
        let teams = Set(parts.map(\.manifest.teamIdentifier))
        guard teams.count == 1 else { throw .teamsDiffer(teams.sorted()) }
        func unique<T: Hashable>(_ values: [T]) -> [T] {
            var seen = Set<T>()
            return values.filter { seen.insert($0).inserted }
        }
        manifest = AppManifest(
            bundleIdentifier: bundleIdentifier, teamIdentifier: first.manifest.teamIdentifier, displayName: displayName,
            activityTypes: unique(parts.flatMap(\.manifest.activityTypes)),
            documentTypes: unique(parts.flatMap(\.manifest.documentTypes)),
            associatedDomains: unique(parts.flatMap(\.manifest.associatedDomains)))
        self.glyph = glyph
        self.parts = parts
    }

    var current: any TerminalApp { parts[selected] }

    package var title: String { "\(manifest.displayName) · \(current.title)" }

    package var keyHints: [KeyHint] {
        let next = parts[(selected + 1) % parts.count].manifest.displayName
        return [KeyHint("F5", "switch to \(next)")] + current.keyHints
    }

    package func launch(application: Application, environment: AppEnvironment) {
        for part in parts { part.launch(application: application, environment: environment) }
    }

    package func setFrontmost(_ frontmost: Bool) {
        isFrontmost = frontmost
        current.setFrontmost(frontmost)
    }

    /// Shows part `index` (its activity becomes current when the app is in front).
    package func select(_ index: Int) {
        guard parts.indices.contains(index), index != selected else { return }
        if isFrontmost { current.setFrontmost(false) }
        selected = index
        if isFrontmost { current.setFrontmost(true) }
    }

    /// Every part is told the area below the bar of parts (where ``render(into:area:)`` draws it).
    package func viewportChanged(to size: Size) {
        let partSize = size.height > 1 ? Size(width: size.width, height: size.height - 1) : size
        for part in parts { part.viewportChanged(to: partSize) }
    }

    package func render(into grid: inout Grid, area: Rect) {
        guard area.size.height > 1 else { return current.render(into: &grid, area: area) }
        let bar = Rect(origin: area.origin, size: Size(width: area.size.width, height: 1))
        grid.fill(bar)
        var x = area.origin.x + 1
        for (index, part) in parts.enumerated() {
            x =
                grid.put(
                    " \(part.glyph) \(part.manifest.displayName) ", at: Point(x: x, y: area.origin.y),
                    style: Style(index == selected ? .selection : .dim), clip: bar) + 1
        }
        _ = grid.put("F5 switches", at: Point(x: x, y: area.origin.y), style: Style(.dim), clip: bar)
        current.render(
            into: &grid,
            area: Rect(
                origin: Point(x: area.origin.x, y: area.origin.y + 1),
                size: Size(width: area.size.width, height: area.size.height - 1)))
    }

    package func handle(_ key: Key) -> Bool {
        if key == .function(5) {
            select((selected + 1) % parts.count)
            return true
        }
        return current.handle(key)
    }

    /// Every part forgets what it showed; the first part shows next time, as in a new process.
    package func terminate() {
        for part in parts { part.terminate() }
        selected = 0
    }

    package func continuationChosen() {
        for part in parts { part.continuationChosen() }
    }

    package func open(_ url: URL) -> Bool {
        for (index, part) in parts.enumerated() where part.open(url) {
            select(index)
            return true
        }
        return false
    }

    // MARK: ApplicationDelegate: each callback goes to the part that claims the type

    /// The index of the part whose manifest can continue `activityType`.
    func part(for activityType: String) -> Int? {
        parts.firstIndex { $0.manifest.continuableActivityTypes.contains(activityType) }
    }

    package func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool
    {
        guard let index = part(for: activityType) else { return false }
        select(index)
        return parts[index].delegate.application(application, willContinueUserActivityWithType: activityType)
    }

    package func application(
        _ application: Application, continue userActivity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        guard let index = part(for: userActivity.activityType) else { return false }
        select(index)
        return parts[index].delegate.application(
            application, continue: userActivity, restorationHandler: restorationHandler)
    }

    package func application(
        _ application: Application, didFailToContinueUserActivityWithType activityType: String,
        error: HandoffError
    ) {
        guard let index = part(for: activityType) else {
            // No part claims it: Apple's default (the system shows the error).
            SystemDefaults().application(application, didFailToContinueUserActivityWithType: activityType, error: error)
            return
        }
        parts[index].delegate.application(
            application, didFailToContinueUserActivityWithType: activityType, error: error)
    }

    package func application(_ application: Application, didUpdate userActivity: UserActivity) {
        guard let index = part(for: userActivity.activityType) else { return }
        parts[index].delegate.application(application, didUpdate: userActivity)
    }
}

/// A delegate with every callback left to Apple's defaults.
private final class SystemDefaults: ApplicationDelegate {}
