import Foundation

/// A lifecycle event's fields could not be read back: which field, and why.
public struct LifecycleFieldError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field at fault (`kind` for an unknown kind).
    public var field: String
    public var reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\"\(field)\" \(reason)" }
}

/// The inverse of ``LifecycleEvent/fields``: the typed event read back from its fields, as
/// recordings and headless transcripts hold them. Input is hostile: a missing field, a field of
/// the wrong type or a value out of range is an error naming the field, never a crash.
extension LifecycleEvent {
    public init(fields: [LifecycleEntry.Field]) throws(LifecycleFieldError) {
        let reader = try FieldReader(fields)
        guard let time = LifecycleEntry.date(try reader.string("time")) else {
            throw LifecycleFieldError(
                field: "time", reason: "must be an ISO 8601 time such as 2026-11-24T09:30:00.250Z")
        }
        let device = try reader.string("device")
        guard !device.isEmpty else { throw LifecycleFieldError(field: "device", reason: "must name the device") }
        self.init(time: time, device: device, try reader.occurrence())
    }
}

/// Reads typed values out of an event's fields, naming the field in every error.
struct FieldReader {
    let values: [String: LifecycleField]
    let kind: LifecycleEvent.Kind

    init(_ fields: [LifecycleEntry.Field]) throws(LifecycleFieldError) {
        var values: [String: LifecycleField] = [:]
        for field in fields {
            guard values.updateValue(field.value, forKey: field.key) == nil else {
                throw LifecycleFieldError(field: field.key, reason: "appears twice")
            }
        }
        self.values = values
        guard case .string(let name)? = values["kind"] else {
            throw LifecycleFieldError(field: "kind", reason: values["kind"] == nil ? "is missing" : "must be a string")
        }
        guard let kind = LifecycleEvent.Kind(rawValue: name) else {
            throw LifecycleFieldError(field: "kind", reason: "names no event kind (\"\(name.prefix(60))\")")
        }
        self.kind = kind
    }

    func missing(_ key: String) -> LifecycleFieldError {
        LifecycleFieldError(field: key, reason: "is missing (\(kind.rawValue) events carry it)")
    }

    func wrong(_ key: String, _ expected: String) -> LifecycleFieldError {
        let got =
            switch values[key] {
            case .string?: "a string"
            case .integer?: "an integer"
            case .double?: "a number"
            case .bool?: "a Boolean"
            case .userInfo?: "a userInfo"
            case nil: "nothing"
            }
        return LifecycleFieldError(field: key, reason: "must be \(expected), not \(got)")
    }

    func has(_ key: String) -> Bool { values[key] != nil }

    func optionalString(_ key: String) throws(LifecycleFieldError) -> String? {
        switch values[key] {
        case nil: nil
        case .string(let text)?: text
        default: throw wrong(key, "a string")
        }
    }

    func string(_ key: String) throws(LifecycleFieldError) -> String {
        guard let text = try optionalString(key) else { throw missing(key) }
        return text
    }

    func integer(_ key: String) throws(LifecycleFieldError) -> Int {
        switch values[key] {
        case nil: throw missing(key)
        case .integer(let number)?: return number
        case .double(let number)? where number == number.rounded() && abs(number) < 9e15: return Int(number)
        default: throw wrong(key, "an integer")
        }
    }

    func count(_ key: String) throws(LifecycleFieldError) -> Int {
        let number = try integer(key)
        guard number >= 0 else { throw LifecycleFieldError(field: key, reason: "must not be negative (\(number))") }
        return number
    }

    func optionalDouble(_ key: String) throws(LifecycleFieldError) -> Double? {
        switch values[key] {
        case nil: nil
        case .double(let number)?: number
        case .integer(let number)?: Double(number)
        default: throw wrong(key, "a number")
        }
    }

    func double(_ key: String) throws(LifecycleFieldError) -> Double {
        guard let number = try optionalDouble(key) else { throw missing(key) }
        return number
    }

    func bool(_ key: String) throws(LifecycleFieldError) -> Bool {
        switch values[key] {
        case nil: throw missing(key)
        case .bool(let flag)?: return flag
        default: throw wrong(key, "true or false")
        }
    }

    func userInfo(_ key: String) throws(LifecycleFieldError) -> UserInfoSnapshot {
        switch values[key] {
        case nil: throw missing(key)
        case .userInfo(let info)?: return info
        default: throw wrong(key, "a userInfo object")
        }
    }

    func optionalDate(_ key: String) throws(LifecycleFieldError) -> Date? {
        guard let text = try optionalString(key) else { return nil }
        guard let date = LifecycleEntry.date(text) else {
            throw LifecycleFieldError(field: key, reason: "must be an ISO 8601 time such as 2026-11-24T09:30:00.250Z")
        }
        return date
    }

    func date(_ key: String) throws(LifecycleFieldError) -> Date {
        guard let date = try optionalDate(key) else { throw missing(key) }
        return date
    }

    func uuid(_ key: String) throws(LifecycleFieldError) -> UUID {
        let text = try string(key)
        guard let id = UUID(uuidString: text) else {
            throw LifecycleFieldError(field: key, reason: "must be a UUID (\"\(text.prefix(60))\")")
        }
        return id
    }

    func value<T: RawRepresentable>(_ key: String, _ type: T.Type, named: String) throws(LifecycleFieldError) -> T
    where T.RawValue == String {
        let text = try string(key)
        guard let value = T(rawValue: text) else {
            throw LifecycleFieldError(field: key, reason: "names no \(named) (\"\(text.prefix(60))\")")
        }
        return value
    }

    func continuation() throws(LifecycleFieldError) -> ContinuationID {
        ContinuationID(rawValue: try uuid("continuation"))
    }

    func optionalContinuation() throws(LifecycleFieldError) -> ContinuationID? {
        has("continuation") ? try continuation() : nil
    }

    func peer() throws(LifecycleFieldError) -> PeerReference {
        PeerReference(id: DeviceID(try string("peerID")), name: try string("peer"))
    }

    func activity() throws(LifecycleFieldError) -> ActivityReference {
        ActivityReference(
            id: try uuid("activity"), activityType: try string("activityType"), title: try optionalString("title"),
            bundleIdentifier: try string("bundleIdentifier"))
    }

    func identity() throws(LifecycleFieldError) -> AdvertisementIdentity {
        let serial = try integer("serial")
        guard let serial = UInt32(exactly: serial) else {
            throw LifecycleFieldError(field: "serial", reason: "must be 0 to \(UInt32.max) (\(serial))")
        }
        let hex = try string("typeHash")
        var bytes: [UInt8] = []
        var digits = hex.utf8.makeIterator()
        while let high = digits.next() {
            guard let low = digits.next(), let h = Self.hexDigit(high), let l = Self.hexDigit(low) else {
                bytes = []
                break
            }
            bytes.append(h << 4 | l)
        }
        guard bytes.count == 7, hex.utf8.count == 14 else {
            throw LifecycleFieldError(field: "typeHash", reason: "must be 14 hex digits (\"\(hex.prefix(60))\")")
        }
        return AdvertisementIdentity(
            device: DeviceID(try string("advertiser")), serial: serial, activityTypeHash: ActivityTypeHash(bytes: bytes)
        )
    }

    static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    func unavailability() throws(LifecycleFieldError) -> Unavailability {
        switch try string("unavailableKind") {
        case "noAppClaimsType": .noAppClaimsType
        case "teamDiffers":
            .teamDiffers(bundleIdentifiers: try string("unavailableApps").split(separator: ",").map(String.init))
        case "expired": .expired
        case "notEligible": .notEligible
        case let other:
            throw LifecycleFieldError(field: "unavailableKind", reason: "names no reason (\"\(other.prefix(60))\")")
        }
    }

    func route() throws(LifecycleFieldError) -> Route {
        switch try string("routeKind") {
        case "app": .app(bundleIdentifier: try string("routeApp"), activityType: try string("routeActivityType"))
        case "browser": .browser(bundleIdentifier: try string("routeApp"), because: try unavailability())
        case "web": .web(browserBundleIdentifier: try optionalString("routeApp"))
        case "unavailable": .unavailable(try unavailability())
        case let other:
            throw LifecycleFieldError(field: "routeKind", reason: "names no route (\"\(other.prefix(60))\")")
        }
    }

    func error() throws(LifecycleFieldError) -> HandoffError {
        let number = try integer("errorCode")
        guard let code = HandoffError.Code(rawValue: number) else {
            throw LifecycleFieldError(field: "errorCode", reason: "must be one of 4608–4611 or 3072 (\(number))")
        }
        return HandoffError(code, try string("reason"))
    }

    func domain(_ key: String) throws(LifecycleFieldError) -> AssociatedDomain {
        let text = try string(key)
        let wildcard = text.hasPrefix("*.")
        let host = wildcard ? String(text.dropFirst(2)) : text
        guard AssociatedDomain.isHostName(host.lowercased()) else {
            throw LifecycleFieldError(
                field: key, reason: "must be a domain such as example.com (\"\(text.prefix(60))\")")
        }
        return AssociatedDomain(host: host, isWildcard: wildcard)
    }

    /// An association outcome named by `key`, its values in the fields `key`+`Approving`,
    /// `Status`, `Detail`, `Bytes`, `Seconds` (``AssociationOutcome/fields(prefix:)``).
    func outcome(_ key: String) throws(LifecycleFieldError) -> AssociationOutcome {
        switch try string(key) {
        case "approved": return .approved
        case "notListed":
            let apps = try string(key + "Approving")
            return .notListed(approving: apps.isEmpty ? [] : apps.split(separator: ",").map(String.init))
        case "notFound": return .notFound
        case "httpStatus": return .httpStatus(try integer(key + "Status"))
        case "notJSON": return .notJSON(try string(key + "Detail"))
        case "malformed": return .malformed(try string(key + "Detail"))
        case "wrongContentType": return .wrongContentType(try string(key + "Detail"))
        case "redirected": return .redirected(status: try integer(key + "Status"), location: try string(key + "Detail"))
        case "tooLarge": return .tooLarge(bytes: try count(key + "Bytes"))
        case "timedOut": return .timedOut(seconds: try double(key + "Seconds"))
        case "unreachable": return .unreachable(try string(key + "Detail"))
        case let other: throw LifecycleFieldError(field: key, reason: "names no outcome (\"\(other.prefix(60))\")")
        }
    }

    func refusals() throws(LifecycleFieldError) -> [WebRoutingRefusal] {
        let text = try string("refusals")
        let json: JSONValue
        do {
            json = try JSONValue.parse(text)
        } catch {
            throw LifecycleFieldError(field: "refusals", reason: "must be a JSON array (\(error))")
        }
        guard let items = json.arrayValue else {
            throw LifecycleFieldError(field: "refusals", reason: "must be a JSON array, not \(json.kindDescription)")
        }
        var refusals: [WebRoutingRefusal] = []
        for (index, item) in items.enumerated() {
            guard let object = item.objectValue else {
                throw LifecycleFieldError(
                    field: "refusals[\(index)]", reason: "must be an object, not \(item.kindDescription)")
            }
            var fields: [LifecycleEntry.Field] = [LifecycleEntry.Field("kind", .string(kind.rawValue))]
            for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                let field: LifecycleField? =
                    switch value {
                    case .string(let text): .string(text)
                    case .integer(let number): Int(exactly: number).map { .integer($0) }
                    case .double(let number): .double(number)
                    case .bool(let flag): .bool(flag)
                    default: nil
                    }
                guard let field else {
                    throw LifecycleFieldError(
                        field: "refusals[\(index)].\(key)", reason: "must be a string or a number")
                }
                fields.append(LifecycleEntry.Field(key, field))
            }
            do {
                let reader = try FieldReader(fields)
                refusals.append(
                    WebRoutingRefusal(
                        bundleIdentifier: try reader.string("bundleIdentifier"),
                        applicationIdentifier: try reader.string("applicationIdentifier"),
                        domain: try reader.domain("domain"),
                        outcome: reader.has("outcome") ? try reader.outcome("outcome") : nil))
            } catch {
                throw LifecycleFieldError(field: "refusals[\(index)].\(error.field)", reason: error.reason)
            }
        }
        return refusals
    }

    func notHandledReason() throws(LifecycleFieldError) -> NotHandledReason {
        switch try string("notHandledKind") {
        case "returnedFalse": return .returnedFalse
        case "sceneContinueNotImplemented": return .sceneContinueNotImplemented(scene: try string("notHandledScene"))
        case "noSceneDelegate":
            let problem: SceneSetupProblem =
                switch try string("sceneProblem") {
                case "noConfiguration": .noConfiguration
                case "noDelegateClassName": .noDelegateClassName
                case "unknownClass": .unknownClass(try string("sceneDelegateClass"))
                case let other:
                    throw LifecycleFieldError(
                        field: "sceneProblem", reason: "names no problem (\"\(other.prefix(60))\")")
                }
            return .noSceneDelegate(scene: try string("notHandledScene"), problem)
        case let other:
            throw LifecycleFieldError(field: "notHandledKind", reason: "names no reason (\"\(other.prefix(60))\")")
        }
    }

    func phase() throws(LifecycleFieldError) -> StepPhase {
        switch try string("phase") {
        case "launch":
            .launch(
                bundleIdentifier: try string("phaseApp"), try value("phaseLaunch", LaunchKind.self, named: "launch"))
        case "willContinue":
            .willContinue(bundleIdentifier: try string("phaseApp"), activityType: try string("phaseActivityType"))
        case "fetch": .fetch(from: try string("phasePeer"))
        case "continue":
            .continue(bundleIdentifier: try string("phaseApp"), activityType: try string("phaseActivityType"))
        case "save": .save(activityType: try string("phaseActivityType"))
        case "send": .send(bytes: try count("phaseBytes"), to: try string("phasePeer"))
        case "restore": .restore(bundleIdentifier: try string("phaseApp"), objects: try count("phaseObjects"))
        case "streams": .streams(from: try string("phasePeer"))
        case let other: throw LifecycleFieldError(field: "phase", reason: "names no phase (\"\(other.prefix(60))\")")
        }
    }

    /// The occurrence of the event's kind: every kind is read here (the switch is exhaustive, so
    /// a new kind does not build until it is).
    func occurrence() throws(LifecycleFieldError) -> LifecycleEvent.Occurrence {
        switch kind {
        case .activityCreated: return .activityCreated(try activity())
        case .becameCurrent: return .becameCurrent(try activity())
        case .resignedCurrent: return .resignedCurrent(try activity())
        case .invalidated: return .invalidated(try activity())
        case .needsSaveSet: return .needsSaveSet(try activity())
        case .expired: return .expired(try activity())
        case .willSave: return .willSave(try activity(), continuation: try optionalContinuation())
        case .updateUserActivityState:
            return .updateUserActivityState(
                try activity(), responders: try count("responders"), continuation: try optionalContinuation())
        case .didUpdate: return .didUpdate(try activity(), continuation: try optionalContinuation())
        case .saved:
            return .saved(
                try activity(), reason: try value("saveReason", SaveReason.self, named: "save reason"),
                userInfo: try userInfo("userInfo"), continuation: try optionalContinuation())
        case .saveSkipped:
            return .saveSkipped(
                try activity(), lastSaved: try optionalDate("lastSaved"), changedAt: try optionalDate("changedAt"),
                continuation: try optionalContinuation())
        case .sceneDidUpdate:
            return .sceneDidUpdate(try activity(), scene: try string("scene"), continuation: try optionalContinuation())
        case .advertised: return .advertised(try activity(), try identity(), isEligible: try bool("eligible"))
        case .withdrawn: return .withdrawn(try value("reason", WithdrawalReason.self, named: "withdrawal reason"))
        case .offerReceived: return .offerReceived(try peer(), try identity(), route: try route())
        case .offerUpdated: return .offerUpdated(try peer(), try identity(), route: try route())
        case .offerWithdrawn: return .offerWithdrawn(try peer())
        case .offerExpired: return .offerExpired(try peer())
        case .continueChosen: return .continueChosen(try continuation(), try peer(), route: try route())
        case .choiceIgnored:
            let why: IgnoredChoice =
                switch try string("reason") {
                case "busy": .busy
                case "noOffer": .noOffer
                case "unavailable": .unavailable(try unavailability())
                case let other:
                    throw LifecycleFieldError(field: "reason", reason: "names no reason (\"\(other.prefix(60))\")")
                }
            return .choiceIgnored(try peer(), why)
        case .applicationLaunched:
            return .applicationLaunched(
                try optionalContinuation(), bundleIdentifier: try string("bundleIdentifier"),
                launch: try value("launch", LaunchKind.self, named: "launch"))
        case .applicationTerminated: return .applicationTerminated(bundleIdentifier: try string("bundleIdentifier"))
        case .sceneWillConnect:
            return .sceneWillConnect(
                try optionalContinuation(), bundleIdentifier: try string("bundleIdentifier"),
                scene: try string("scene"), handoffUserActivityType: try optionalString("handoffUserActivityType"))
        case .willContinue:
            return .willContinue(
                try continuation(), try peer(), bundleIdentifier: try string("bundleIdentifier"),
                activityType: try string("activityType"), appShowsProgress: try bool("appShowsProgress"))
        case .sceneWillContinue:
            return .sceneWillContinue(
                try continuation(), try peer(), bundleIdentifier: try string("bundleIdentifier"),
                scene: try string("scene"), activityType: try string("activityType"))
        case .fetchStarted: return .fetchStarted(try continuation(), try peer(), timeout: try double("timeout"))
        case .payloadReceived:
            return .payloadReceived(
                try continuation(), try peer(), activityType: try string("activityType"), bytes: try count("size"),
                milliseconds: try double("milliseconds"), userInfo: try userInfo("userInfo"))
        case .latePayloadIgnored: return .latePayloadIgnored(try continuation(), bytes: try count("size"))
        case .payloadSizeWarning:
            return .payloadSizeWarning(try continuation(), bytes: try count("size"), guidance: try count("guidance"))
        case .webRouted:
            let routing: WebRouting =
                if try bool("approved") {
                    .approved(applicationIdentifier: try string("applicationIdentifier"), domain: try domain("domain"))
                } else if has("refusals") {
                    .notApproved(try refusals())
                } else {
                    .noAppNamesHost
                }
            return .webRouted(
                try continuation(), host: try string("host"), bundleIdentifier: try string("bundleIdentifier"), routing)
        case .siteAssociationChecked:
            let check = SiteAssociationCheck(
                bundleIdentifier: try string("bundleIdentifier"),
                applicationIdentifier: try string("applicationIdentifier"), domain: try domain("domain"),
                outcome: try outcome("outcome"), checkedAt: try date("checkedAt"), expiresAt: try date("expiresAt"),
                milliseconds: try optionalDouble("milliseconds"))
            return .siteAssociationChecked(check, keptAnswer: has("keptAnswer") ? try outcome("keptAnswer") : nil)
        case .continueCalled:
            return .continueCalled(
                try continuation(), bundleIdentifier: try string("bundleIdentifier"),
                activityType: try string("activityType"))
        case .sceneContinue:
            return .sceneContinue(
                try continuation(), bundleIdentifier: try string("bundleIdentifier"), scene: try string("scene"),
                activityType: try string("activityType"))
        case .restoreUserActivityState:
            return .restoreUserActivityState(
                try continuation(), bundleIdentifier: try string("bundleIdentifier"), objects: try count("objects"),
                userInfo: try userInfo("userInfo"))
        case .continued:
            let by: ContinuedBy =
                if let scene = try optionalString("scene") { .scene(scene) } else {
                    .application(restoredObjects: try count("objects"))
                }
            return .continued(
                try continuation(), try peer(), bundleIdentifier: try string("bundleIdentifier"), by,
                milliseconds: try double("milliseconds"))
        case .notHandled:
            return .notHandled(
                try continuation(), try peer(), bundleIdentifier: try string("bundleIdentifier"),
                milliseconds: try double("milliseconds"), reason: try notHandledReason())
        case .continuationFailed:
            return .continuationFailed(
                try continuation(), try peer(), bundleIdentifier: try optionalString("bundleIdentifier"),
                activityType: try optionalString("activityType"), try error())
        case .sceneDidFailToContinue:
            return .sceneDidFailToContinue(
                try optionalContinuation(), bundleIdentifier: try string("bundleIdentifier"),
                scene: try string("scene"),
                activityType: try string("activityType"), try error())
        case .systemShowedError:
            return .systemShowedError(
                bundleIdentifier: try string("bundleIdentifier"), activityType: try string("activityType"), try error())
        case .payloadRequested:
            return .payloadRequested(try continuation(), try peer(), has("activity") ? try activity() : nil)
        case .payloadSent:
            return .payloadSent(
                try continuation(), try peer(), try activity(), bytes: try count("size"),
                userInfo: try userInfo("userInfo"))
        case .payloadRefused: return .payloadRefused(try continuation(), try peer(), try error())
        case .wasContinued: return .wasContinued(try continuation(), try peer(), try activity())
        case .streamsOpened:
            return .streamsOpened(
                try optionalContinuation(), try peer(), try activity(),
                side: try value("side", StreamSide.self, named: "stream side"))
        case .streamsRefused:
            return .streamsRefused(
                try optionalContinuation(), try peer(), activityType: try optionalString("activityType"),
                reason: try string("reason"))
        case .stepPaused: return .stepPaused(try optionalContinuation(), try phase())
        case .faultInjected:
            return .faultInjected(try optionalContinuation(), try value("fault", Fault.self, named: "fault"))
        case .documentOpened:
            return .documentOpened(
                bundleIdentifier: try string("bundleIdentifier"), activityType: try optionalString("activityType"),
                file: try string("file"))
        case .documentClosed:
            return .documentClosed(
                bundleIdentifier: try string("bundleIdentifier"), activityType: try optionalString("activityType"),
                file: try string("file"))
        }
    }
}

// MARK: The structured fields of nested values (written by `fields`, read above)

extension Unavailability {
    /// The reason's name in the fields (`unavailableKind`).
    public var name: String {
        switch self {
        case .noAppClaimsType: "noAppClaimsType"
        case .teamDiffers: "teamDiffers"
        case .expired: "expired"
        case .notEligible: "notEligible"
        }
    }
}

extension NotHandledReason {
    var fields: [(String, LifecycleField)] {
        switch self {
        case .returnedFalse: [("notHandledKind", .string("returnedFalse"))]
        case .sceneContinueNotImplemented(let scene):
            [("notHandledKind", .string("sceneContinueNotImplemented")), ("notHandledScene", .string(scene))]
        case .noSceneDelegate(let scene, let problem):
            [("notHandledKind", .string("noSceneDelegate")), ("notHandledScene", .string(scene))]
                + {
                    switch problem {
                    case .noConfiguration: [("sceneProblem", .string("noConfiguration"))]
                    case .noDelegateClassName: [("sceneProblem", .string("noDelegateClassName"))]
                    case .unknownClass(let name):
                        [("sceneProblem", .string("unknownClass")), ("sceneDelegateClass", .string(name))]
                    }
                }()
        }
    }
}

extension StepPhase {
    var fields: [(String, LifecycleField)] {
        switch self {
        case .launch(let bundle, let kind): [("phaseApp", .string(bundle)), ("phaseLaunch", .string(kind.rawValue))]
        case .willContinue(let bundle, let type), .continue(let bundle, let type):
            [("phaseApp", .string(bundle)), ("phaseActivityType", .string(type))]
        case .fetch(let peer), .streams(let peer): [("phasePeer", .string(peer))]
        case .save(let type): [("phaseActivityType", .string(type))]
        case .send(let bytes, let peer): [("phaseBytes", .integer(bytes)), ("phasePeer", .string(peer))]
        case .restore(let bundle, let objects): [("phaseApp", .string(bundle)), ("phaseObjects", .integer(objects))]
        }
    }
}

extension AssociationOutcome {
    /// The outcome's values as fields named `prefix`+`Approving`, `Status`, `Detail`, `Bytes` or
    /// `Seconds` (its name is written as `prefix` itself).
    func fields(prefix: String) -> [(String, LifecycleField)] {
        switch self {
        case .approved, .notFound: []
        case .notListed(let apps): [(prefix + "Approving", .string(apps.joined(separator: ",")))]
        case .httpStatus(let status): [(prefix + "Status", .integer(status))]
        case .notJSON(let text), .malformed(let text), .wrongContentType(let text), .unreachable(let text):
            [(prefix + "Detail", .string(text))]
        case .redirected(let status, let location):
            [(prefix + "Status", .integer(status)), (prefix + "Detail", .string(location))]
        case .tooLarge(let bytes): [(prefix + "Bytes", .integer(bytes))]
        case .timedOut(let seconds): [(prefix + "Seconds", .double(seconds))]
        }
    }
}

extension WebRoutingRefusal {
    /// The refusals as one JSON array (the `refusals` field): each with its app, application
    /// identifier, domain and outcome (absent when the domain was not checked yet).
    static func jsonText(_ refusals: [WebRoutingRefusal]) -> String {
        JSONValue.array(
            refusals.map { refusal in
                var object: [String: JSONValue] = [
                    "bundleIdentifier": .string(refusal.bundleIdentifier),
                    "applicationIdentifier": .string(refusal.applicationIdentifier),
                    "domain": .string(refusal.domain.description),
                ]
                if let outcome = refusal.outcome {
                    object["outcome"] = .string(outcome.name)
                    for (key, value) in outcome.fields(prefix: "outcome") {
                        object[key] =
                            switch value {
                            case .string(let text): .string(text)
                            case .integer(let number): .integer(Int64(number))
                            case .double(let number): .double(number)
                            case .bool(let flag): .bool(flag)
                            case .userInfo: .null
                            }
                    }
                }
                return .object(object)
            }
        ).jsonText
    }
}
