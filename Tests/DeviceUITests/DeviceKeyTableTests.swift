import Foundation
import HandoffCore
import TerminalCells
import Testing

@testable import DeviceUI

/// The device's own keys are one table (`ScreenState.deviceKeys`): the help's "Anywhere" section
/// is made from it and the reducer dispatches through it, so every key the help names does
/// something, and every key the device keeps from the app is in the help.
@Suite("Device key table")
struct DeviceKeyTableTests {
    static let pending = DeviceSnapshot.PendingInfo(
        peer: Fixture.laptop, bundleIdentifier: "com.example.notes",
        activityType: Fixture.notesType, phase: .askingApp, chosenAt: Fixture.now)

    /// The phone with Notes in front (and a continuation in progress, so that Esc has one to cancel).
    static func inApp() -> ScreenState {
        var state = Fixture.state()
        state.foregroundApp = Fixture.notes.bundleIdentifier
        return state
    }

    /// Every key a terminal gives: function keys, Ctrl-letters, the named keys, printable ASCII.
    static let everyKey: [Key] =
        (1...12).map { Key.function($0) }
        + "abcdefghijklmnopqrstuvwxyz".map { Key.control($0) }
        + [
            .up, .down, .left, .right, .enter, .escape, .backspace, .tab, .backTab, .delete, .pageUp, .pageDown, .home,
            .end,
        ]
        + (0x20...0x7E).map { Key.character(Character(Unicode.Scalar(UInt8($0)))) }

    @Test func theHelpsFirstSectionIsTheTable() throws {
        let state = Fixture.state()
        let sections = state.helpSections(device: Fixture.device())
        let anywhere = try #require(sections.first)
        #expect(anywhere.title == "Anywhere")
        #expect(anywhere.hints == state.deviceKeys.map(\.hint))
        // The keys are written as the terminal names them, the letter last.
        #expect(anywhere.hints.map(\.keys).prefix(5) == ["F1  ?", "F2  l", "F3  Ctrl-P", "F4", "Tab  Shift-Tab"])
        // No key is in the table twice.
        let keys = state.deviceKeys.flatMap { $0.keys + ($0.letter.map { [$0] } ?? []) }
        #expect(Set(keys).count == keys.count)
    }

    @Test func everyKeyInTheHelpIsDispatchedAndNeverReachesTheApp() {
        let device = Fixture.device(pending: Self.pending)
        for deviceKey in Fixture.state().deviceKeys {
            for key in deviceKey.keys {
                var state = Self.inApp()
                let before = state
                let effects = state.update(.keyPressed(key), device: device)
                #expect(effects != [.sendKeyToApp(key)], "\(key) reached the app")
                if deviceKey.action != .redraw {
                    #expect(state != before || !effects.isEmpty, "\(key) did nothing")
                }
            }
        }
    }

    @Test func everyKeyTheDeviceKeepsFromTheAppIsInTheHelp() {
        let state = Fixture.state()
        let inHelp = Set(state.helpSections(device: Fixture.device()).first?.hints.map(\.keys) ?? [])
        for pending in [nil, Self.pending] {
            let device = Fixture.device(pending: pending)
            for key in Self.everyKey {
                var state = Self.inApp()
                let effects = state.update(.keyPressed(key), device: device)
                guard effects != [.sendKeyToApp(key)] else { continue }
                let deviceKey = state.deviceKey(key)
                #expect(deviceKey != nil, "\(key) is kept from the app but is not in the table")
                if let deviceKey { #expect(inHelp.contains(deviceKey.hint.keys), "\(key) is not in the help") }
            }
        }
    }

    /// Outside apps (the home screen, Nearby) a device key's letter does what its key does; in an
    /// app, only `?` does, and only when the app ignores it.
    @Test func eachLetterDoesWhatItsKeyDoes() {
        let device = Fixture.device()
        for deviceKey in Fixture.state().deviceKeys {
            guard let letter = deviceKey.letter, let key = deviceKey.keys.first else { continue }
            for focus in [ScreenState.Focus.main, .nearby] {
                var byKey = Fixture.state()
                var byLetter = Fixture.state()
                byKey.focus = focus
                byLetter.focus = focus
                let keyEffects = byKey.update(.keyPressed(key), device: device)
                let letterEffects = byLetter.update(.keyPressed(letter), device: device)
                #expect(
                    byLetter == byKey && letterEffects == keyEffects, "\(letter) and \(key) with the focus on \(focus)")
            }
            var byKey = Self.inApp()
            var byLetter = Self.inApp()
            let keyEffects = byKey.update(.keyPressed(key), device: device)
            #expect(byLetter.update(.keyPressed(letter), device: device) == [.sendKeyToApp(letter)])
            let before = byLetter
            let letterEffects = byLetter.update(.appIgnoredKey(letter), device: device)
            if deviceKey.worksWhereTheAppIgnoresTheLetter {
                #expect(byLetter == byKey && letterEffects == keyEffects, "\(letter) the app ignored")
            } else {
                #expect(byLetter == before && letterEffects.isEmpty, "\(letter) the app ignored does nothing")
            }
        }
    }
}
