import DeviceAppKit
import Foundation
import HandoffCore
import TerminalCells

/// A stand-in for another developer's app that claims the Reader's activity types: same type
/// names, another team. Handoff continues an activity only in an app of the origin's team, so
/// this app is never chosen, and a device that has only this app says why in its sidebar
/// ("team differs"). `handoff device --apps other`.
final class ThirdPartyApp: TerminalApp, ApplicationDelegate {
    static let team = "OTHERTEAM9"

    let manifest = AppManifest(
        bundleIdentifier: "com.example.otherreader", teamIdentifier: ThirdPartyApp.team, displayName: "Other Reader",
        activityTypes: ["com.handoffsim.reader.reading"],
        documentTypes: [
            .init(
                name: "Text Document", contentTypes: ["public.plain-text"],
                ubiquitousActivityType: "com.handoffsim.reader.document")
        ])
    let glyph: Character = "▥"
    var title: String { "Other Reader" }
    var keyHints: [KeyHint] { [] }

    func launch(application: Application, environment: AppEnvironment) {}

    func render(into grid: inout Grid, area: Rect) {
        let lines = [
            ("Other Reader", Style(.normal, bold: true)),
            ("by another developer (team \(Self.team))", Style(.dim)),
            ("", Style.normal),
            ("It claims the Reader's activity types:", Style.normal),
            ("  com.handoffsim.reader.document", Style(.dim)),
            ("  com.handoffsim.reader.reading", Style(.dim)),
            ("", Style.normal),
            ("Handoff never continues another team's activity in it:", Style.normal),
            ("the continuing app must belong to the origin's team.", Style.normal),
            ("On a device with only this app, Nearby shows why.", Style.normal),
        ]
        for (row, line) in lines.enumerated() where row < area.size.height {
            grid.put(line.0, at: Point(x: area.origin.x + 2, y: area.origin.y + 1 + row), style: line.1, clip: area)
        }
    }

    func handle(_ key: Key) -> Bool { false }
}
