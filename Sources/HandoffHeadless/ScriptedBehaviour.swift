import Foundation
import HandoffCore

/// How one scripted app behaves for Handoff: its app model and the bugs it has. The default is
/// a correct app; each knob turns on a bug real apps ship with, and changes the lifecycle events
/// the way that bug does (docs/headless.md, "App behaviour").
package struct ScriptedBehaviour: Sendable, Hashable {
    /// How the app talks to the system; nil: the device's `--app-model` (or, for an app read from
    /// its files, the model its Info.plist implies: ``ScriptedAppModel/implied(by:)``).
    package var model: ScriptedAppModel?
    /// What `application(_:willContinueUserActivityWithType:)` answers (the app delegate only:
    /// the scene callback returns nothing). False: the system shows the progress itself.
    package var willContinue = true
    /// Whether the app takes the activity: with the app delegate, `continue` returns true and
    /// restores (false: it returns false, the origin is not told); with scenes,
    /// `scene(_:continue:)` is implemented (false: it is not, and the activity reaches no code);
    /// with SwiftUI, a view on screen has `onContinueUserActivity` for the type (false: none has,
    /// and SwiftUI drops the activity, though the system counts it continued).
    package var continues = true
    /// Whether the app implements `didFailToContinueUserActivityWithType` (false: the system
    /// shows the error itself: `systemShowedError`).
    package var implementsDidFail = true
    /// Whether a state change sets `needsSave` (false: the app forgets, and the payload carries
    /// the state saved last). The headless `update` command's `needsSave` field overrides it.
    package var setsNeedsSave = true

    package init(
        model: ScriptedAppModel? = nil, willContinue: Bool = true, continues: Bool = true,
        implementsDidFail: Bool = true, setsNeedsSave: Bool = true
    ) {
        self.model = model
        self.willContinue = willContinue
        self.continues = continues
        self.implementsDidFail = implementsDidFail
        self.setsNeedsSave = setsNeedsSave
    }

    /// The knobs as `--app-behaviour` writes them, the non-default ones only (empty: a correct app).
    package var summary: String {
        var parts: [String] = []
        if let model { parts.append("model=\(model.rawValue)") }
        if !willContinue { parts.append("willContinue=false") }
        if !continues { parts.append("continue=false") }
        if !implementsDidFail { parts.append("didFail=missing") }
        if !setsNeedsSave { parts.append("needsSave=forgotten") }
        return parts.joined(separator: ",")
    }

    /// Checks the knobs go together: `willContinue=false` needs the app delegate.
    package func validated(for bundle: String) throws(AppBehaviourError) -> ScriptedBehaviour {
        if !willContinue, let model, model != .delegate {
            throw AppBehaviourError(
                "\(bundle): willContinue=false needs model=delegate: scene(_:willContinueUserActivityWithType:) "
                    + "returns nothing, so a scene app cannot answer false (model is \(model.rawValue))")
        }
        return self
    }
}

/// A bad `--app-behaviour`: the message says what and where.
package struct AppBehaviourError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// One `--app-behaviour SPEC`: `[BUNDLE:]KEY=VALUE[,KEY=VALUE…]`. Without a bundle identifier it
/// applies to every scripted app; with one, to that app, after the general ones. Later specs
/// win over earlier ones, key by key.
///
/// | key | values |
/// |---|---|
/// | `model` | `delegate`, `scenes`, `scenes-connection-options-only`, `swiftui` |
/// | `willContinue` | `true`, `false` |
/// | `continue` | `true`, `false` |
/// | `didFail` | `implemented`, `missing` (or `true`, `false`) |
/// | `needsSave` | `set`, `forgotten` (or `true`, `false`) |
package struct AppBehaviourSpec: Sendable, Hashable {
    package var bundleIdentifier: String?
    package var model: ScriptedAppModel?
    package var willContinue: Bool?
    package var continues: Bool?
    package var implementsDidFail: Bool?
    package var setsNeedsSave: Bool?

    package static let keys = ["model", "willContinue", "continue", "didFail", "needsSave"]

    package init(bundleIdentifier: String? = nil) { self.bundleIdentifier = bundleIdentifier }

    /// Reads one spec; the error names the spec and the key.
    package static func parse(_ text: String) throws(AppBehaviourError) -> AppBehaviourSpec {
        let shown = text.count > 120 ? String(text.prefix(117)) + "…" : text
        var body = Substring(text)
        var spec = AppBehaviourSpec()
        // A bundle identifier holds no "=": a ":" before the first "=" ends it.
        if let colon = body.firstIndex(of: ":"), body.firstIndex(of: "=").map({ colon < $0 }) ?? true {
            let bundle = body[..<colon].trimmingCharacters(in: .whitespaces)
            guard !bundle.isEmpty else {
                throw AppBehaviourError("--app-behaviour \(shown): the bundle identifier before \":\" is empty")
            }
            spec.bundleIdentifier = bundle
            body = body[body.index(after: colon)...]
        }
        let pairs = body.split(separator: ",", omittingEmptySubsequences: true)
        guard !pairs.isEmpty else {
            throw AppBehaviourError(
                "--app-behaviour \(shown): no KEY=VALUE (keys: \(keys.joined(separator: ", ")))")
        }
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            guard parts.count == 2 else {
                throw AppBehaviourError("--app-behaviour \(shown): \"\(key)\" needs a value: write \(key)=VALUE")
            }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            func flag(_ yes: [String], _ no: [String]) throws(AppBehaviourError) -> Bool {
                if yes.contains(value) { return true }
                if no.contains(value) { return false }
                throw AppBehaviourError(
                    "--app-behaviour \(shown): \(key) must be \((yes.prefix(1) + no.prefix(1)).joined(separator: " or ")), not \"\(value)\""
                )
            }
            switch key {
            case "model":
                guard let model = ScriptedAppModel(rawValue: value) else {
                    throw AppBehaviourError(
                        "--app-behaviour \(shown): model must be one of "
                            + ScriptedAppModel.allCases.map(\.rawValue).joined(separator: ", ") + ", not \"\(value)\"")
                }
                spec.model = model
            case "willContinue": spec.willContinue = try flag(["true"], ["false"])
            case "continue": spec.continues = try flag(["true"], ["false"])
            case "didFail": spec.implementsDidFail = try flag(["implemented", "true"], ["missing", "false"])
            case "needsSave": spec.setsNeedsSave = try flag(["set", "true"], ["forgotten", "false"])
            default:
                throw AppBehaviourError(
                    "--app-behaviour \(shown): unknown key \"\(key)\" (keys: \(keys.joined(separator: ", ")))")
            }
        }
        return spec
    }

    /// `behaviour` with the knobs this spec sets.
    package func applied(to behaviour: ScriptedBehaviour) -> ScriptedBehaviour {
        var result = behaviour
        if let model { result.model = model }
        if let willContinue { result.willContinue = willContinue }
        if let continues { result.continues = continues }
        if let implementsDidFail { result.implementsDidFail = implementsDidFail }
        if let setsNeedsSave { result.setsNeedsSave = setsNeedsSave }
        return result
    }

    /// Each app's behaviour: `base(bundle)`, then the general specs, then the app's own, in the
    /// order given. A spec naming an app that is not installed is an error, as is a combination
    /// that cannot be (``ScriptedBehaviour/validated(for:)``).
    package static func resolve(
        _ specs: [AppBehaviourSpec], bundles: [String], base: (String) -> ScriptedBehaviour
    ) throws(AppBehaviourError) -> [String: ScriptedBehaviour] {
        for spec in specs {
            if let bundle = spec.bundleIdentifier, !bundles.contains(bundle) {
                throw AppBehaviourError(
                    "--app-behaviour: no app \"\(bundle)\" is installed (installed: \(bundles.joined(separator: ", ")))"
                )
            }
        }
        var result: [String: ScriptedBehaviour] = [:]
        for bundle in bundles {
            var behaviour = base(bundle)
            for spec in specs where spec.bundleIdentifier == nil { behaviour = spec.applied(to: behaviour) }
            for spec in specs where spec.bundleIdentifier == bundle { behaviour = spec.applied(to: behaviour) }
            result[bundle] = try behaviour.validated(for: bundle)
        }
        return result
    }
}

/// Apple's own implementations of the optional callbacks, for the scripted apps whose behaviour
/// says they leave one out: calling through these is what not implementing it does.
final class UnimplementedAppDelegate: ApplicationDelegate {}

/// The same for scene delegates.
final class UnimplementedSceneDelegate: SceneDelegate {
    init() {}
}
