import Foundation
import HandoffCore
import HandoffManifest

/// Runs one ``Device`` from JSON-line commands and reports everything that happens on it as JSON
/// lines: the controller behind `handoff device --headless` (see docs/headless.md).
///
/// It installs the given apps with a scripted delegate, reports every lifecycle event of the
/// device (a lifecycle observer of it), and answers each line given to ``handle(line:)``
/// with one result line. Like the device it drives, it is confined to the device's thread: call
/// ``handle(line:)`` there. Continuation-stream I/O runs in tasks that touch only the
/// ``LineWriter``.
package final class HeadlessController {
    package let device: Device
    /// When true, the first bad command ends the program (``exitStatus`` 2).
    package let strict: Bool
    /// 0 after `quit` (or while running), 2 after a bad command in strict mode.
    package private(set) var exitStatus: Int32 = 0
    /// True once ``handle(line:)`` returned false; later lines are ignored.
    package private(set) var isFinished = false
    /// What an installed app checks before it restores a continued activity: the reason it
    /// refuses the activity, or nil to restore it. A refused activity is not restored: the app's
    /// `continue` returns false (Apple: "the app did not handle the activity"), so the origin is
    /// not told it was continued, and a `continue-refused` event says why. The default refuses
    /// nothing; `handoff device --headless` gives the Reader stand-in the Reader's version rule.
    package var continuationCheck: ((Application, UserActivity) -> String?)?

    let output: LineWriter
    /// The installed apps, in the order given.
    private(set) var applications: [Application] = []
    var states: [String: AppStateResponder] = [:]
    var activityDelegate: ScriptedActivityDelegate!
    /// Each app's activity of its last `become-current` or `open-document` (removed once
    /// invalidated), by bundle identifier.
    var appActivities: [String: UserActivity] = [:]
    /// The app whose activity was made last.
    var lastActivityApp: String?
    /// Each installed app's behaviour (its app model and bugs), by bundle identifier.
    package private(set) var behaviours: [String: ScriptedBehaviour] = [:]

    /// The activity made last (nil once invalidated): the one commands use when they name no app
    /// and only one app has an activity.
    var activity: UserActivity? {
        get { lastActivityApp.flatMap { appActivities[$0] } }
        set {
            if let newValue, let bundle = newValue.application?.bundleIdentifier {
                appActivities[bundle] = newValue
                lastActivityApp = bundle
            } else if newValue == nil, let last = lastActivityApp {
                appActivities[last] = nil
                lastActivityApp = appActivities.keys.sorted().last
            }
        }
    }
    /// The activity most recently continued here.
    var lastRestored: UserActivity?
    var declineNext = false
    /// Whether the scripted apps start security-scoped access before reading a document URL a
    /// continued activity brought (`security-scope`); false rehearses the app that forgets.
    var startsSecurityScopedAccess = true
    var originMode: OriginStreamMode = .echo
    var streamEndpoints: [Int: StreamEndpoint] = [:]
    var nextStreamID = 1

    /// Takes over `device`: installs `apps` (with the scripted delegate) and starts reporting its
    /// lifecycle events to `output` (after the device's observers added before).
    /// - Parameters:
    ///   - appModel: How the scripted apps talk to the system (app delegate or scenes), unless
    ///     their behaviour names a model.
    ///   - behaviours: Each app's behaviour by bundle identifier (default: a correct app).
    package init(
        device: Device, apps: [AppManifest], output: LineWriter, strict: Bool = false,
        appModel: ScriptedAppModel = .delegate, behaviours: [String: ScriptedBehaviour] = [:],
        continuationCheck: ((Application, UserActivity) -> String?)? = nil
    ) {
        self.device = device
        self.output = output
        self.strict = strict
        self.continuationCheck = continuationCheck
        activityDelegate = ScriptedActivityDelegate(controller: self)
        device.addLifecycleObserver { [weak self] event in self?.report(event) }
        for manifest in apps {
            // The Browser stand-in stays an app-delegate app; the scripted apps take the model.
            var behaviour = behaviours[manifest.bundleIdentifier] ?? ScriptedBehaviour()
            let model = manifest.isBrowser ? ScriptedAppModel.delegate : behaviour.model ?? appModel
            behaviour.model = model
            let app = device.install(
                model.applied(to: manifest), delegate: ScriptedAppDelegate(controller: self),
                sceneDelegates: ScriptedAppModel.sceneDelegateClasses)
            applications.removeAll { $0.bundleIdentifier == app.bundleIdentifier }
            applications.append(app)
            states[app.bundleIdentifier] = AppStateResponder()
            self.behaviours[app.bundleIdentifier] = behaviour
        }
    }

    // MARK: Lines in, lines out

    /// Handles one input line and writes its result (and any events it causes) to the output.
    ///
    /// Returns false when the program should exit: after `quit`, or in strict mode after a bad
    /// command (its error result already written). Never traps on bad input.
    package func handle(line: String) -> Bool {
        guard !isFinished else { return false }
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            return failed(command: nil, id: nil, "invalid JSON: \(error)", input: line)
        }
        guard case .object(let object) = value else {
            return failed(
                command: nil, id: nil,
                "a command must be a JSON object such as {\"cmd\":\"status\"}, not \(value.kindDescription)",
                input: line)
        }
        let id = object["id"]
        guard let cmdValue = object["cmd"] else {
            return failed(
                command: nil, id: id, "missing \"cmd\": every line needs one, such as {\"cmd\":\"status\"}", input: line
            )
        }
        guard case .string(let cmd) = cmdValue else {
            return failed(
                command: nil, id: id, "\"cmd\" must be a string, not \(cmdValue.kindDescription)", input: line)
        }
        guard let command = Self.commands.first(where: { $0.name == cmd }) else {
            return failed(
                command: cmd, id: id,
                "unknown command \"\(cmd)\" (commands: "
                    + Self.commands.map(\.name).joined(separator: ", ") + ")")
        }
        var fields = object
        fields["cmd"] = nil
        fields["id"] = nil
        let known = command.fieldNames
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            let accepted = known.isEmpty ? "it takes no fields" : "fields: " + known.joined(separator: ", ")
            return failed(command: cmd, id: id, "\(cmd): unknown field \"\(unknown)\" (\(accepted))")
        }
        let arguments = Arguments(command: cmd, fields: fields)
        let extra: [String: JSONValue]
        do {
            extra = try command.perform(self, arguments)
        } catch {
            return failed(command: cmd, id: id, error.message)
        }
        var result = extra
        result["result"] = .string(cmd)
        result["ok"] = true
        if let id { result["id"] = id }
        output.write(.object(result))
        if cmd == "quit" {
            isFinished = true
            exitStatus = 0
            emit("exit", ["status": 0, "reason": "quit"])
            return false
        }
        return true
    }

    /// Writes an error result; in strict mode also ends the program.
    /// Answers a line that was not read as a command (longer than ``HeadlessInput/maximumLineBytes``).
    package func reject(line: HeadlessInput.Line) -> Bool {
        guard !isFinished, case .tooLong(let bytes) = line else { return !isFinished }
        return failed(command: nil, id: nil, HeadlessInput.Line.tooLongMessage(bytes: bytes))
    }

    private func failed(command: String?, id: JSONValue?, _ message: String, input: String? = nil) -> Bool {
        var result: [String: JSONValue] = [
            "result": command.map { .string($0) } ?? .null,
            "ok": false,
            "error": .string(message),
        ]
        if let id { result["id"] = id }
        if let input { result["input"] = .string(Arguments.clip(input)) }
        output.write(.object(result))
        guard strict else { return true }
        isFinished = true
        exitStatus = 2
        emit("exit", ["status": 2, "reason": .string("strict mode: bad command: \(message)")])
        return false
    }

    package func emit(_ event: String, _ fields: [String: JSONValue]) {
        var object = fields
        object["event"] = .string(event)
        output.write(.object(object))
    }

    func report(_ event: LifecycleEvent) {
        emit("lifecycle", Self.fields(of: event))
    }

    /// A lifecycle event's fields as JSON: the core's one presentation of the typed value
    /// (`LifecycleEvent.fields`), never parsed back from text.
    package static func fields(of event: LifecycleEvent) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for (key, value) in event.fields {
            object[key] =
                switch value {
                case .string(let text): .string(text)
                case .integer(let number): .integer(Int64(number))
                case .double(let number): .double(number)
                case .bool(let flag): .bool(flag)
                case .userInfo(let info): UserInfoJSON.json(from: info)
                }
        }
        return object
    }

    func timestamp(_ date: Date) -> JSONValue { .string(LifecycleEvent.timestamp(date)) }

    // MARK: Commands

    func step(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        device.isStepping = try args.bool("on") ?? true
        return ["stepping": .bool(device.isStepping), "pausedAt": pausedAt]
    }

    func next() throws(CommandError) -> [String: JSONValue] {
        guard let phase = device.pausedAt else {
            throw CommandError(
                device.isStepping
                    ? "next: the device is not paused (it pauses before the next phase of a continuation)"
                    : "next: step mode is off (turn it on with {\"cmd\":\"step\"})")
        }
        device.stepNext()
        return ["went": .string(phase.name), "pausedAt": pausedAt]
    }

    func decline(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        declineNext = try args.bool("decline") ?? true
        return ["declineNext": .bool(declineNext)]
    }

    func streamMode(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        let text = try args.requiredString("mode")
        guard let mode = OriginStreamMode(rawValue: text) else {
            throw CommandError("stream-mode: \"mode\" must be \"echo\" or \"sink\", not \"\(text)\"")
        }
        originMode = mode
        return ["mode": .string(mode.rawValue)]
    }

    /// `help`: the command table, as it is.
    func help() -> [String: JSONValue] {
        [
            "commands": .array(
                Self.commands.map { command in
                    .object([
                        "cmd": .string(command.name), "fields": .array(command.fields.map { .string($0) }),
                        "summary": .string(command.summary),
                    ])
                })
        ]
    }

    var installedList: String { applications.map(\.bundleIdentifier).joined(separator: ", ") }

    /// The behaviour of `app` (a correct app when it has none).
    func behaviour(of app: Application) -> ScriptedBehaviour {
        behaviours[app.bundleIdentifier] ?? ScriptedBehaviour()
    }

    /// The installed app `bundle` names, or an error listing the installed ones.
    func installedApp(_ bundle: String, _ cmd: String) throws(CommandError) -> Application {
        guard let found = applications.first(where: { $0.bundleIdentifier == bundle }) else {
            throw CommandError("\(cmd): no app \"\(bundle)\" is installed (installed: \(installedList))")
        }
        return found
    }

    /// The valid activity a command acts on: the one of the app its `app` field names, else the
    /// only app's that has one; an error says there is none, or that `app` must choose.
    func requireActivity(_ cmd: String, _ args: Arguments? = nil) throws(CommandError) -> UserActivity {
        appActivities = appActivities.filter { $0.value.isValid }
        if let bundle = try args?.string("app") {
            let app = try installedApp(bundle, cmd)
            guard let activity = appActivities[app.bundleIdentifier] else {
                throw CommandError("\(cmd): \(bundle) has no activity: make one with become-current first")
            }
            return activity
        }
        let live = appActivities.keys.sorted()
        guard live.count <= 1 else {
            throw CommandError(
                "\(cmd): \(live.count) apps have an activity (\(live.joined(separator: ", "))): name one with \"app\"")
        }
        guard let bundle = live.first, let activity = appActivities[bundle] else {
            throw CommandError("\(cmd): there is no activity: make one with become-current first")
        }
        return activity
    }

    /// Forgets `activity` as its app's activity (it was invalidated, or its app quit).
    func forget(_ activity: UserActivity) {
        for (bundle, kept) in appActivities where kept === activity { appActivities[bundle] = nil }
        if let last = lastActivityApp, appActivities[last] == nil { lastActivityApp = appActivities.keys.sorted().last }
    }

    func describe(_ activity: UserActivity) -> [String: JSONValue] {
        let bundle = activity.application?.bundleIdentifier
        var object: [String: JSONValue] = [
            "activity": .string(activity.identifier.uuidString),
            "type": .string(activity.activityType),
            "app": bundle.map { .string($0) } ?? .null,
            "title": activity.title.map { .string($0) } ?? .null,
            "webpageURL": activity.webpageURL.map { .string($0.absoluteString) } ?? .null,
            "eligible": .bool(activity.isEligibleForHandoff),
            "streams": .bool(activity.supportsContinuationStreams),
            "current": .bool(activity.isCurrent),
            "needsSave": .bool(activity.needsSave),
            "expirationDate": activity.expirationDate.map { timestamp($0) } ?? .null,
            "requiredKeys": .array(activity.requiredUserInfoKeys.sorted().map { .string($0) }),
        ]
        if let bundle, let state = states[bundle] { object["userInfo"] = UserInfoJSON.json(from: state.state) }
        return object
    }

    func becomeCurrent(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        if let path = try args.string("file") {
            let others = args.fields.keys.filter { $0 != "app" && $0 != "file" }.sorted()
            guard others.isEmpty else {
                throw CommandError(
                    "become-current: \"file\" describes the whole activity: it goes with \"app\" only, not "
                        + others.map { "\"\($0)\"" }.joined(separator: ", "))
            }
            let file: ActivityFile
            do {
                file = try ActivityFile(contentsOf: URL(fileURLWithPath: path), name: path)
            } catch {
                throw CommandError("become-current: \(error)")
            }
            var described = try becomeCurrent(file, app: try args.string("app"))
            described["file"] = .string(path)
            return described
        }
        guard let type = try args.string("type") else {
            // Make the app's last activity current again.
            let activity = try requireActivity("become-current", args)
            let others = args.fields.keys.filter { $0 != "app" }.sorted()
            guard others.isEmpty else {
                throw CommandError(
                    "become-current: \"type\" is required with \(others.map { "\"\($0)\"" }.joined(separator: ", "))"
                        + " (without a type it only makes the last activity current again)")
            }
            if let app = activity.application, !app.isFrontmost { device.bringToFront(app) }
            activity.becomeCurrent()
            self.activity = activity
            return describe(activity)
        }
        let app = try appFor(type: type, bundle: try args.string("app"))
        let userInfo = try args.userInfo("userInfo") ?? [:]
        let title = try args.string("title")
        var url: URL?
        if let text = try args.string("webpageURL") {
            guard let parsed = URL(string: text) else {
                throw CommandError("become-current: webpageURL is not a valid URL: \"\(text)\"")
            }
            url = parsed
        }
        let streams = try args.bool("streams")
        let eligible = try args.bool("eligible")
        let expiresIn = try args.secondsFromNow("expiresIn")
        let requiredKeys = try args.strings("requiredKeys")

        let activity: UserActivity
        do {
            activity = try UserActivity(activityType: type, application: app)
        } catch {
            throw CommandError("become-current: \(error.message)")
        }
        if let url {
            do {
                try activity.setWebpageURL(url)
            } catch {
                // The app throws the half-made activity away (its lifecycle events show it).
                activity.invalidate()
                throw CommandError("become-current: \(error.message)")
            }
        }
        activity.title = title
        if let streams { activity.supportsContinuationStreams = streams }
        if let eligible { activity.isEligibleForHandoff = eligible }
        if let expiresIn { activity.expirationDate = device.clock().addingTimeInterval(expiresIn) }
        if let requiredKeys { activity.requiredUserInfoKeys = Set(requiredKeys) }
        return makeCurrent(activity, in: app, userInfo: userInfo)
    }

    /// The app an activity of `type` is made in: the one `bundle` names, else the only one
    /// claiming the type, else the first installed; an error when several claim it.
    func appFor(type: String, bundle: String?) throws(CommandError) -> Application {
        if let bundle { return try installedApp(bundle, "become-current") }
        let claiming = applications.filter { $0.manifest.continuableActivityTypes.contains(type) }
        if claiming.count > 1 {
            throw CommandError(
                "become-current: \(claiming.count) apps claim \(type) ("
                    + claiming.map(\.bundleIdentifier).joined(separator: ", ") + "): name one with \"app\"")
        }
        if let only = claiming.first { return only }
        if let first = applications.first { return first }
        throw CommandError("become-current: no app is installed")
    }

    /// Makes the activity an activity file describes current in `bundle` (default: the app that
    /// claims its type): what `--activity FILE` does at start, and `become-current` with `file`.
    package func becomeCurrent(_ file: ActivityFile, app bundle: String?) throws(CommandError) -> [String: JSONValue] {
        let app = try appFor(type: file.activityType, bundle: bundle)
        let activity: UserActivity
        do throws(UserActivityError) {
            activity = try UserActivity(activityType: file.activityType, application: app)
            do throws(UserActivityError) {
                try file.applyProperties(to: activity)
            } catch {
                activity.invalidate()
                throw error
            }
        } catch {
            throw CommandError("become-current: \(file.file): \(error.message)")
        }
        var described = makeCurrent(activity, in: app, userInfo: file.userInfo)
        if !file.warnings.isEmpty {
            described["warnings"] = .array(file.warnings.map { .string($0.description) })
        }
        return described
    }

    /// The common end of `become-current`: the activity, attached to the app's state, current.
    func makeCurrent(_ activity: UserActivity, in app: Application, userInfo: UserInfo) -> [String: JSONValue] {
        activity.delegate = activityDelegate
        let state = states[app.bundleIdentifier]!
        state.state = userInfo
        if !app.isFrontmost { device.bringToFront(app) }
        // Current first, then attached: the previous activity of the app (detached, so
        // invalidated) is replaced without a gap in the advertisement.
        activity.becomeCurrent()
        state.userActivity = activity
        self.activity = activity
        return describe(activity)
    }

    func update(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        let activity = try requireActivity("update", args)
        guard let userInfo = try args.userInfo("userInfo") else {
            throw CommandError("update: \"userInfo\" is required")
        }
        let merge = try args.bool("merge") ?? true
        guard let app = activity.application, let state = states[app.bundleIdentifier] else {
            throw CommandError("update: the activity's app is gone")
        }
        // The app's behaviour decides unless the command does (`needsSave=forgotten`).
        let needsSave = try args.bool("needsSave") ?? behaviour(of: app).setsNeedsSave
        if merge {
            state.state.merge(userInfo) { _, new in new }
        } else {
            state.state = userInfo
        }
        // Forgetting needsSave is the commonest bug: the state changed, but no save runs, so the
        // next payload carries the state saved last.
        if needsSave {
            activity.needsSave = true
        } else {
            device.stateChangedWithoutNeedsSave(activity)
        }
        return describe(activity)
    }

    func set(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        let activity = try requireActivity("set", args)
        guard !args.fields.keys.filter({ $0 != "app" }).isEmpty else {
            throw CommandError(
                "set: nothing to set (fields: \(Self.commands.first { $0.name == "set" }!.fieldNames.joined(separator: ", ")))"
            )
        }
        // Check every field before changing anything.
        let title = try args.string("title")
        var url: URL?
        if let text = try args.string("webpageURL") {
            guard let parsed = URL(string: text) else {
                throw CommandError("set: webpageURL is not a valid URL: \"\(text)\"")
            }
            url = parsed
        }
        let eligible = try args.bool("eligible")
        let streams = try args.bool("streams")
        let expiresIn = try args.secondsFromNow("expiresIn")
        let requiredKeys = try args.strings("requiredKeys")
        if args.has("webpageURL") {
            do {
                try activity.setWebpageURL(url)
            } catch {
                throw CommandError("set: \(error.message)")
            }
        }
        if args.has("title") { activity.title = title }
        if let eligible { activity.isEligibleForHandoff = eligible }
        if let streams { activity.supportsContinuationStreams = streams }
        if args.has("expiresIn") { activity.expirationDate = expiresIn.map { device.clock().addingTimeInterval($0) } }
        if let requiredKeys { activity.requiredUserInfoKeys = Set(requiredKeys) }
        return describe(activity)
    }

    /// The user quits an app from the app switcher: its activities end, its state is gone (the
    /// process ended), and its next launch is cold.
    func quitApp(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        let app: Application
        if let bundle = try args.string("app") {
            guard let found = applications.first(where: { $0.bundleIdentifier == bundle }) else {
                throw CommandError("quit-app: no app \"\(bundle)\" is installed (installed: \(installedList))")
            }
            app = found
        } else if let found = activity?.application ?? device.system.frontmostApp.flatMap({ device.application($0) })
            ?? applications.first(where: \.isRunning)
        {
            app = found
        } else {
            throw CommandError("quit-app: no app is running (give \"app\")")
        }
        guard app.isRunning else { throw CommandError("quit-app: \(app.bundleIdentifier) is not running") }
        if let state = states[app.bundleIdentifier] {
            state.userActivity = nil
            state.state = [:]
        }
        for (bundle, kept) in appActivities where kept.application === app { appActivities[bundle] = nil }
        if let last = lastActivityApp, appActivities[last] == nil { lastActivityApp = appActivities.keys.sorted().last }
        if lastRestored?.application === app { lastRestored = nil }
        device.terminate(app)
        return ["app": .string(app.bundleIdentifier), "running": .bool(app.isRunning)]
    }

    /// The armed faults: kind → whether it stays armed.
    var armedFaults: JSONValue {
        .object(
            Dictionary(uniqueKeysWithValues: device.armedFaults.map { ($0.key.rawValue, JSONValue.bool($0.value)) }))
    }

    func fault(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        let kind = try args.requiredString("kind")
        let sticky = try args.bool("sticky") ?? false
        let off = try args.bool("off") ?? false
        if kind == "none" {
            device.disarm()
            return ["faults": armedFaults]
        }
        guard let fault = Fault(rawValue: kind) else {
            throw CommandError("fault: unknown kind \"\(Arguments.clip(kind))\" (kinds: \(Fault.names), or none)")
        }
        let latency = try args.number("latencyMs")
        let rate = try args.number("kbps")
        var result: [String: JSONValue] = [:]
        if fault == .slowLink {
            do {
                device.slowLink = try SlowLink(latencyMilliseconds: latency, kilobytesPerSecond: rate)
            } catch {
                throw CommandError("fault: \(error)")
            }
            result["latencyMs"] = .double(device.slowLink.latency * 1000)
            result["kbps"] = .double(Double(device.slowLink.bytesPerSecond) / 1024)
        } else if latency != nil || rate != nil {
            throw CommandError("fault: \"latencyMs\" and \"kbps\" belong to slow-link only, not \(fault.rawValue)")
        }
        if off { device.disarm(fault) } else { device.arm(fault, sticky: sticky) }
        result.merge([
            "faults": armedFaults, "fault": .string(fault.rawValue), "side": .string(fault.side),
            "expected": .string(fault.expectedOutcome),
        ]) { $1 }
        return result
    }

    /// Where step mode holds the device: the phase and what it will do, or null.
    var pausedAt: JSONValue {
        guard let phase = device.pausedAt else { return .null }
        return .object(["phase": .string(phase.name), "next": .string(phase.description)])
    }

    /// A scene connected to a scripted app: report what its options carry.
    func sceneConnected(_ scene: Scene, options: Scene.ConnectionOptions, readsOnlyUserActivities: Bool) {
        var fields: [String: JSONValue] = [
            "app": scene.application.map { .string($0.bundleIdentifier) } ?? .null,
            "scene": .string(scene.name),
            "handoffUserActivityType": options.handoffUserActivityType.map { .string($0) } ?? .null,
            "userActivities": .integer(Int64(options.userActivities.count)),
        ]
        if readsOnlyUserActivities && options.userActivities.isEmpty {
            fields["missed"] = .string(
                "the scene looked only in connectionOptions.userActivities, which never holds a Handoff activity")
        }
        emit("scene-connected", fields)
    }

    func resign(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        let activity = try requireActivity("resign", args)
        activity.resignCurrent()
        return describe(activity)
    }

    func invalidate(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        let activity = try requireActivity("invalidate", args)
        activity.invalidate()
        if let bundle = activity.application?.bundleIdentifier, let state = states[bundle],
            state.userActivity === activity
        {
            state.userActivity = nil
        }
        forget(activity)
        return ["activity": .string(activity.identifier.uuidString)]
    }

    func peers() -> [String: JSONValue] {
        let offers = device.system.offers.values.sorted { ($0.peer.name, $0.peer.id) < ($1.peer.name, $1.peer.id) }
        return ["peers": .array(offers.map { .object(describe($0)) })]
    }

    func describe(_ offer: Offer) -> [String: JSONValue] {
        let ad = offer.advertisement
        var options: [JSONValue] = []
        if ad.options.contains(.hasWebpageURL) { options.append("hasWebpageURL") }
        if ad.options.contains(.supportsContinuationStreams) { options.append("supportsContinuationStreams") }
        if ad.options.contains(.isEligibleForHandoff) { options.append("isEligibleForHandoff") }
        if ad.options.contains(.isDocument) { options.append("isDocument") }
        if ad.options.contains(.isBrowsingWeb) { options.append("isBrowsingWeb") }
        let routeKind: String
        var app: String?
        var reason: String?
        switch offer.route {
        case .app(let bundle, _):
            routeKind = "app"
            app = bundle
        case .browser(let bundle, let why):
            routeKind = "browser"
            app = bundle
            reason = why.description
        case .web(let browser):
            routeKind = "web"
            app = browser
        case .unavailable(let why):
            routeKind = "unavailable"
            reason = why.description
        }
        return [
            "peer": .string(offer.peer.id.rawValue),
            "name": .string(offer.peer.name),
            "kind": .string(offer.peer.kind.rawValue),
            "firstSeen": timestamp(offer.firstSeen),
            "lastSeen": timestamp(offer.lastSeen),
            "savedAt": timestamp(ad.savedAt),
            "expiresAt": ad.expiresAt.map { timestamp($0) } ?? .null,
            "activitySerial": .integer(Int64(ad.activitySerial)),
            "activityTypeHash": .string(ad.activityTypeHash.description),
            "options": .array(options),
            "route": .string(offer.route.description),
            "routeKind": .string(routeKind),
            "continuable": .bool(offer.route.isContinuable),
            "reason": reason.map { .string($0) } ?? .null,
            "app": app.map { .string($0) } ?? .null,
            "payloadSize": offer.payloadSize.map { .integer(Int64($0)) } ?? .null,
        ]
    }

    func status() -> [String: JSONValue] {
        let info = device.info
        var result: [String: JSONValue] = [
            "device": [
                "id": .string(info.id.rawValue), "name": .string(info.name), "kind": .string(info.kind.rawValue),
            ],
            "frontmost": device.system.frontmostApp.map { .string($0) } ?? .null,
            "locked": .bool(device.isLocked),
            "advertising": .bool(device.system.advertisement != nil),
            "apps": .array(
                applications.map { app in
                    .object([
                        "bundle": .string(app.bundleIdentifier), "name": .string(app.manifest.displayName),
                        "team": .string(app.manifest.teamIdentifier),
                        "running": .bool(app.isRunning), "usesScenes": .bool(app.usesScenes),
                        "model": .string((behaviour(of: app).model ?? .delegate).rawValue),
                        "behaviour": .string(behaviour(of: app).summary),
                        "hasSceneDelegate": .bool(app.connectedScenes.allSatisfy { $0.delegate != nil }),
                        "scenes": .array(app.connectedScenes.map { .string($0.name) }),
                        "types": .array(app.manifest.continuableActivityTypes.map { .string($0) }),
                    ])
                }),
            "activity": activity.flatMap { $0.isValid ? .object(describe($0)) : nil } ?? .null,
            "activities": .array(
                appActivities.keys.sorted().compactMap { bundle in
                    appActivities[bundle].flatMap { $0.isValid ? .object(describe($0)) : nil }
                }),
            "current": device.currentActivity.map { .object(describe($0)) } ?? .null,
            "offers": .integer(Int64(device.system.offers.count)),
            "declineNext": .bool(declineNext),
            "stepping": .bool(device.isStepping),
            "faults": armedFaults,
            "pausedAt": pausedAt,
            "streamMode": .string(originMode.rawValue),
            "streams": .array(
                streamEndpoints.keys.sorted().map { id in
                    let endpoint = streamEndpoints[id]!
                    return .object([
                        "stream": .integer(Int64(id)), "side": .string(endpoint.side.rawValue),
                        "mode": endpoint.mode.map { .string($0.rawValue) } ?? .null, "closed": .bool(endpoint.closed),
                    ])
                }),
        ]
        if let pending = device.system.pendingContinuation {
            let phase: String =
                switch pending {
                case .askingApp: "askingApp"
                case .fetching: "fetching"
                case .delivering: "delivering"
                }
            result["continuation"] = .object([
                "id": .string(pending.id.description),
                "peer": .string(pending.peer.id.rawValue), "name": .string(pending.peer.name),
                "type": .string(pending.target.activityType),
                "app": .string(pending.target.bundleIdentifier),
                "phase": .string(phase), "chosenAt": timestamp(pending.attempt.chosenAt),
            ])
        } else {
            result["continuation"] = .null
        }
        if let restored = lastRestored {
            result["restored"] = .object(restoredFields(restored))
        } else {
            result["restored"] = .null
        }
        return result
    }

    func continueOffer(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        let offers = device.system.offers.values.sorted { ($0.peer.name, $0.peer.id) < ($1.peer.name, $1.peer.id) }
        let offer: Offer
        if let wanted = try args.string("peer") {
            guard
                let found = offers.first(where: { $0.peer.id.rawValue == wanted })
                    ?? offers.first(where: { $0.peer.name == wanted })
                    ?? offers.first(where: { $0.peer.name.lowercased() == wanted.lowercased() })
            else {
                let known =
                    offers.isEmpty
                    ? "no peer offers an activity now"
                    : "offers from: " + offers.map { "\($0.peer.name) (\($0.peer.id))" }.joined(separator: ", ")
                throw CommandError("continue: no offer from \"\(wanted)\" (\(known))")
            }
            offer = found
        } else {
            guard let only = offers.first else { throw CommandError("continue: no peer offers an activity now") }
            guard offers.count == 1 else {
                throw CommandError(
                    "continue: \(offers.count) peers offer activities; name one with \"peer\" ("
                        + offers.map { "\($0.peer.name) (\($0.peer.id))" }.joined(separator: ", ") + ")")
            }
            offer = only
        }
        if let pending = device.system.pendingContinuation {
            throw CommandError(
                "continue: a continuation from \(pending.peer.name) is already in progress (cancel it first)")
        }
        device.chooseOffer(from: offer.peer.id)
        return [
            "peer": .string(offer.peer.id.rawValue), "name": .string(offer.peer.name),
            "route": .string(offer.route.description), "continuable": .bool(offer.route.isContinuable),
        ]
    }

    // MARK: Lock

    /// Locks the device (`changed`: it was unlocked); the withdrawal follows as a lifecycle event.
    func lock() -> [String: JSONValue] {
        let changed = !device.isLocked
        device.lock()
        return [
            "locked": true, "changed": .bool(changed),
            "advertisingStopsAfter": .double(device.system.configuration.advertisingAfterLock),
        ]
    }

    /// Unlocks the device (`changed`: it was locked).
    func unlock() -> [String: JSONValue] {
        let changed = device.isLocked
        device.unlock()
        return ["locked": false, "changed": .bool(changed)]
    }

    func cancel() -> [String: JSONValue] {
        guard device.system.pendingContinuation != nil else { return ["cancelled": false] }
        device.cancelContinuation()
        return ["cancelled": true]
    }

    // MARK: Streams

    func streamsOpen() throws(CommandError) -> [String: JSONValue] {
        guard let restored = lastRestored else {
            throw CommandError("streams-open: no activity was continued here yet: continue one first")
        }
        guard restored.supportsContinuationStreams else {
            throw CommandError(
                "streams-open: the continued \(restored.activityType) does not support continuation streams"
                    + " (the origin must make it current with \"streams\": true)")
        }
        let type = restored.activityType
        let activityID = restored.identifier.uuidString
        restored.getContinuationStreams { [weak self] streams, error in
            guard let self else { return }
            if let streams {
                let endpoint = self.addEndpoint(streams, side: .continuing, mode: nil)
                self.emit(
                    "streams-opened",
                    [
                        "side": "continuing", "stream": .integer(Int64(endpoint.id)),
                        "activity": .string(activityID), "type": .string(type),
                    ])
                StreamIO.startReader(streams, side: .continuing, id: endpoint.id, echo: false, output: self.output)
            } else {
                self.emit(
                    "stream-error",
                    [
                        "side": "continuing", "stage": "open", "activity": .string(activityID),
                        "error": .string(error.map { "\($0)" } ?? "no streams"),
                    ])
            }
        }
        return ["activity": .string(activityID), "type": .string(type)]
    }

    /// Registers a stream end; its sending task is started unless echo mode owns the output.
    func addEndpoint(_ streams: ContinuationStreams, side: StreamSide, mode: OriginStreamMode?) -> StreamEndpoint {
        let id = nextStreamID
        nextStreamID += 1
        let sender = mode == .echo ? nil : StreamIO.startSender(streams.output, side: side, id: id, output: output)
        let endpoint = StreamEndpoint(id: id, side: side, streams: streams, mode: mode, sender: sender)
        streamEndpoints[id] = endpoint
        return endpoint
    }

    func endpoint(_ args: Arguments) throws(CommandError) -> StreamEndpoint {
        let cmd = args.command
        if let id = try args.integer("stream") {
            guard let endpoint = streamEndpoints[Int(truncatingIfNeeded: id)] else {
                throw CommandError(
                    "\(cmd): there is no stream \(id) (streams: "
                        + (streamEndpoints.isEmpty
                            ? "none" : streamEndpoints.keys.sorted().map(String.init).joined(separator: ", ")) + ")")
            }
            return endpoint
        }
        var side = StreamSide.continuing
        if let text = try args.string("side") {
            guard let parsed = StreamSide(rawValue: text) else {
                throw CommandError("\(cmd): \"side\" must be \"continuing\" or \"origin\", not \"\(text)\"")
            }
            side = parsed
        }
        guard let latest = streamEndpoints.values.filter({ $0.side == side }).max(by: { $0.id < $1.id }) else {
            throw CommandError(
                side == .continuing
                    ? "\(cmd): no continuation streams are open on this side: use streams-open after continuing a streams activity"
                    : "\(cmd): this device's activity has not received continuation streams")
        }
        return latest
    }

    func streamSend(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        let endpoint = try endpoint(args)
        let text = try args.string("text")
        let base64 = try args.string("base64")
        let count = try args.integer("bytes")
        let seed = try args.integer("seed")
        let close = try args.bool("close") ?? false
        let given = [text != nil, base64 != nil, count != nil].filter { $0 }.count
        guard given == 1 else {
            throw CommandError(
                "stream-send: give exactly one of \"text\", \"base64\" or \"bytes\" (with an optional \"seed\")")
        }
        if seed != nil && count == nil { throw CommandError("stream-send: \"seed\" goes with \"bytes\"") }
        guard let sender = endpoint.sender else {
            throw CommandError(
                "stream-send: stream \(endpoint.id) echoes what it receives;"
                    + " use stream-mode sink before the streams open to send from the origin")
        }
        guard !endpoint.closed else { throw CommandError("stream-send: stream \(endpoint.id) is closed on this side") }
        let command: SendCommand
        let size: Int
        if let text {
            command = .bytes(Array(text.utf8))
            size = text.utf8.count
        } else if let base64 {
            guard let data = Data(base64Encoded: base64) else {
                throw CommandError("stream-send: \"base64\" is not valid base64")
            }
            command = .bytes(Array(data))
            size = data.count
        } else {
            let count = count!
            guard count >= 0, count <= 1 << 40 else {
                throw CommandError("stream-send: \"bytes\" must be between 0 and 2^40, not \(count)")
            }
            command = .pseudoRandom(count: Int(count), seed: UInt64(bitPattern: seed ?? 0))
            size = Int(count)
        }
        sender.yield(command)
        endpoint.queuedBytes += size
        if close {
            sender.yield(.close)
            sender.finish()
            endpoint.closed = true
        }
        return [
            "stream": .integer(Int64(endpoint.id)), "side": .string(endpoint.side.rawValue),
            "queued": .integer(Int64(size)), "closing": .bool(close),
        ]
    }

    func streamClose(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        let endpoint = try endpoint(args)
        guard let sender = endpoint.sender else {
            throw CommandError("stream-close: stream \(endpoint.id) echoes: it closes by itself when its input ends")
        }
        guard !endpoint.closed else {
            throw CommandError("stream-close: stream \(endpoint.id) is already closed on this side")
        }
        sender.yield(.close)
        sender.finish()
        endpoint.closed = true
        return ["stream": .integer(Int64(endpoint.id)), "side": .string(endpoint.side.rawValue)]
    }

    // MARK: Callbacks from the scripted delegates

    func willContinue(_ application: Application, activityType: String) -> Bool {
        guard declineNext else { return behaviour(of: application).willContinue }
        declineNext = false
        return false
    }

    /// A SwiftUI app has no `onContinueUserActivity` for the activity's type on screen: SwiftUI
    /// drops it (the system counted it continued).
    func continueDropped(_ application: Application, _ activity: UserActivity) {
        emit(
            "continue-dropped",
            [
                "app": .string(application.bundleIdentifier), "activity": .string(activity.identifier.uuidString),
                "type": .string(activity.activityType),
                "reason": .string(
                    "no view on screen has onContinueUserActivity(\"\(activity.activityType)\"): SwiftUI drops the activity,"
                        + " though the system counts it continued"),
            ])
    }

    func restoredFields(_ activity: UserActivity) -> [String: JSONValue] {
        [
            "app": activity.application.map { .string($0.bundleIdentifier) } ?? .null,
            "activity": .string(activity.identifier.uuidString),
            "type": .string(activity.activityType),
            "title": activity.title.map { .string($0) } ?? .null,
            "userInfo": UserInfoJSON.json(from: activity.userInfo),
            "webpageURL": activity.webpageURL.map { .string($0.absoluteString) } ?? .null,
            "streams": .bool(activity.supportsContinuationStreams),
        ]
    }

    func continueActivity(
        _ application: Application, _ activity: UserActivity,
        restorationHandler: @escaping ([Responder]) -> Void
    ) -> Bool {
        let refusal =
            behaviour(of: application).continues
            ? continuationCheck?(application, activity)
            : "the app's continue returns false (its behaviour: continue=false)"
        if let reason = refusal {
            emit(
                "continue-refused",
                [
                    "app": .string(application.bundleIdentifier), "activity": .string(activity.identifier.uuidString),
                    "type": .string(activity.activityType), "title": activity.title.map { .string($0) } ?? .null,
                    "userInfo": UserInfoJSON.json(from: activity.userInfo), "reason": .string(reason),
                ])
            return false
        }
        readDocument(of: activity, in: application)
        // `restored` is reported when the state really is restored: in step mode the device holds
        // the restoration until it goes on.
        guard let state = states[application.bundleIdentifier] else {
            restorationHandler([])
            lastRestored = activity
            emit("restored", restoredFields(activity))
            return true
        }
        state.didRestore = { [weak self, weak state] restored in
            state?.didRestore = nil
            self?.lastRestored = restored
            self?.emit("restored", self?.restoredFields(restored) ?? [:])
        }
        restorationHandler([state])
        return true
    }

    /// Reads the file a continued activity's document URL names, as an app that opens it would:
    /// with security-scoped access started first (and stopped after), unless the script made the
    /// apps forget it (`security-scope`). A `document-read` event says what came of it; an
    /// activity without a file URL under the document URL key reads nothing.
    func readDocument(of activity: UserActivity, in application: Application) {
        guard case .url(let url)? = activity.userInfo[UserActivity.documentURLKey], url.isFileURL else { return }
        var fields: [String: JSONValue] = [
            "app": .string(application.bundleIdentifier), "file": .string(url.path),
            "securityScoped": .bool(startsSecurityScopedAccess),
        ]
        let started = startsSecurityScopedAccess && url.startAccessingSecurityScopedResource()
        defer { if started { url.stopAccessingSecurityScopedResource() } }
        do {
            try SecurityScopedResources.checkAccess(to: url)
            let data = try Data(contentsOf: url)
            fields["ok"] = true
            fields["bytes"] = .integer(Int64(data.count))
        } catch let error as FileAccessError {
            fields["ok"] = false
            fields["error"] = .string(error.message)
        } catch {
            fields["ok"] = false
            fields["error"] = .string("“\(url.lastPathComponent)” cannot be read: \(error.localizedDescription)")
        }
        emit("document-read", fields)
    }

    /// `security-scope`: whether the scripted apps start security-scoped access before reading.
    func securityScope(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        startsSecurityScopedAccess = try args.bool("start") ?? true
        return ["start": .bool(startsSecurityScopedAccess)]
    }

    /// `open-document`: writes a text document into the device's iCloud container and opens it
    /// in the app (the first with a document type, or `app`); the document's automatic activity
    /// is set on the app's responder and made current.
    func openDocument(_ args: Arguments) throws(CommandError) -> [String: JSONValue] {
        let name = try args.requiredString("name")
        guard !name.isEmpty, name.count <= 255, !name.contains("/"), !name.hasPrefix("."), !name.contains("\0") else {
            throw CommandError(
                "open-document: \"name\" must be a file name (no \"/\", not starting with \".\"), not \"\(Arguments.clip(name))\""
            )
        }
        guard let container = device.ubiquityContainerURL else {
            throw CommandError("open-document: this device has no iCloud container (it runs with --no-cloud)")
        }
        let app: Application
        if let bundle = try args.string("app") {
            guard let found = applications.first(where: { $0.bundleIdentifier == bundle }) else {
                throw CommandError("open-document: no app \"\(bundle)\" is installed (installed: \(installedList))")
            }
            app = found
        } else if let found = applications.first(where: { !$0.manifest.documentTypes.isEmpty }) {
            app = found
        } else {
            throw CommandError("open-document: no installed app declares a document type (installed: \(installedList))")
        }
        let text = try args.string("text") ?? "\(name)\n"
        guard text.utf8.count <= 1 << 20 else { throw CommandError("open-document: \"text\" is over 1 MiB") }
        let url = container.appendingPathComponent(name, isDirectory: false)
        do {
            try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        } catch {
            throw CommandError("open-document: \(url.path) cannot be written: \(error.localizedDescription)")
        }
        let document: Document
        do {
            document = try app.openDocument(at: url)
        } catch {
            throw CommandError("open-document: \(error.message)")
        }
        guard let activity = document.userActivity else {
            throw CommandError(
                "open-document: \(app.bundleIdentifier)'s document type declares no NSUbiquitousDocumentUserActivityType"
            )
        }
        activity.delegate = activityDelegate
        if !app.isFrontmost { device.bringToFront(app) }
        let state = states[app.bundleIdentifier]!
        state.state = [:]
        // UIKit: a document's activity becomes current on a responder on screen.
        state.userActivity = activity
        self.activity = activity
        var described = describe(activity)
        described["file"] = .string(url.path)
        return described
    }

    func didFailToContinue(_ application: Application, activityType: String, error: HandoffError) {
        emit(
            "continue-failed",
            [
                "app": .string(application.bundleIdentifier), "type": .string(activityType),
                "code": .integer(Int64(error.code.rawValue)), "constant": .string(error.code.constantName),
                "meaning": .string(error.code.meaning), "reason": .string(error.reason),
            ])
    }

    func activityWasContinued(_ activity: UserActivity) {
        emit(
            "continued-elsewhere",
            [
                "activity": .string(activity.identifier.uuidString), "type": .string(activity.activityType),
                "app": activity.application.map { .string($0.bundleIdentifier) } ?? .null,
                "title": activity.title.map { .string($0) } ?? .null,
            ])
    }

    func originReceived(_ streams: ContinuationStreams, for activity: UserActivity) {
        let mode = originMode
        let endpoint = addEndpoint(streams, side: .origin, mode: mode)
        emit(
            "streams-opened",
            [
                "side": "origin", "stream": .integer(Int64(endpoint.id)), "mode": .string(mode.rawValue),
                "activity": .string(activity.identifier.uuidString), "type": .string(activity.activityType),
            ])
        StreamIO.startReader(streams, side: .origin, id: endpoint.id, echo: mode == .echo, output: output)
    }
}
