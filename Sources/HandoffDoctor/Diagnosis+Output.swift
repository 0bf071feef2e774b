import Foundation
import HandoffCore

extension DoctorDestination {
    /// Where the activity ends up, in a sentence.
    package var sentence: String {
        switch self {
        case .app(let bundle): "it continues in \(bundle)"
        case .browser(let url): "the other device's browser opens \(url) instead"
        case .fails(let code):
            "the other device shows the offer, and the continuation fails with \(code.rawValue) (\(code.constantName))"
        case .nothing: "the other device offers nothing to continue"
        }
    }

    var json: JSONValue {
        switch self {
        case .app(let bundle): ["kind": "app", "bundleIdentifier": .string(bundle)]
        case .browser(let url): ["kind": "browser", "url": .string(url)]
        case .fails(let code): ["kind": "fails", "errorCode": .integer(Int64(code.rawValue))]
        case .nothing: ["kind": "nothing"]
        }
    }
}

extension DoctorSiteAnswer {
    /// What the file says, in a phrase.
    package var summary: String {
        switch self {
        case .checked(let outcome, let source, _): "\(outcome); \(source)"
        case .notChecked(let why): "not checked: \(why)"
        }
    }

    var json: JSONValue {
        switch self {
        case .checked(let outcome, let source, let notes):
            [
                "checked": true, "outcome": .string(outcome.name), "description": .string(outcome.description),
                "source": .string(source), "notes": .array(notes.map { .string($0) }),
            ]
        case .notChecked(let why):
            ["checked": false, "outcome": "notChecked", "description": .string(why)]
        }
    }
}

extension Diagnosis {
    /// The verdict in one line.
    package var verdict: String {
        let errorCount = errors.count
        let warningCount = warnings.count
        let counts =
            "\(errorCount) error\(errorCount == 1 ? "" : "s"), \(warningCount) warning\(warningCount == 1 ? "" : "s")"
        return continues
            ? "Verdict: continues in \(receiver.bundleIdentifier) (\(counts))"
            : "Verdict: does not continue in \(receiver.bundleIdentifier) (\(counts)): \(destination.sentence)"
    }

    /// The report: the apps and the activity, the web page's findings, the verdict, then every
    /// reason in the order checked (its rule, sentence, source and what was found).
    package var report: [String] {
        var lines: [String] = []
        if let origin {
            lines.append("Origin:   \(origin.bundleIdentifier) (team \(origin.teamIdentifier))")
        } else {
            lines.append("Origin:   a web browser")
        }
        lines.append(
            "Receiver: \(receiver.bundleIdentifier) (team \(receiver.teamIdentifier), app ID \(receiver.applicationIdentifier))"
        )
        var described = "Activity: \(activity.activityType)"
        if let page = activity.webpageURL { described += ", webpageURL \(page)" }
        if let bytes = activity.payloadBytes { described += ", payload \(bytes) bytes" }
        lines.append(described)
        if let web {
            lines.append("Web page: \(web.host)")
            if let entry = web.entry {
                lines.append(
                    "  entitlement entry: activitycontinuation:\(entry)\(entry.isWildcard ? " (wildcard)" : "")")
                lines.append("  association file: https://\(entry.fileHost)/.well-known/apple-app-site-association")
                lines.append("  for \(receiver.applicationIdentifier): \(web.answer?.summary ?? "no answer")")
            } else {
                lines.append("  entitlement entry: none matches")
            }
        }
        lines.append(verdict)
        for (index, reason) in reasons.enumerated() {
            lines.append("")
            lines.append("\(index + 1). \(reason.severity.rawValue) \(reason.rule.id): \(reason.rule.sentence)")
            lines.append("   source: \(reason.rule.source)")
            lines += reason.details.map { "   \($0)" }
        }
        return lines
    }

    /// The diagnosis as one JSON object, for scripts: its keys are stable (docs/doctor.md).
    package var json: JSONValue {
        func app(_ manifest: AppManifest) -> JSONValue {
            [
                "bundleIdentifier": .string(manifest.bundleIdentifier),
                "teamIdentifier": .string(manifest.teamIdentifier),
                "applicationIdentifier": .string(manifest.applicationIdentifier),
                "claimedActivityTypes": .array(manifest.continuableActivityTypes.map { .string($0) }),
                "usesScenes": .bool(manifest.sceneManifest != nil),
            ]
        }
        var activityObject: [String: JSONValue] = [
            "activityType": .string(activity.activityType),
            "isEligibleForHandoff": .bool(activity.isEligibleForHandoff),
            "requiredUserInfoKeys": .array(activity.requiredUserInfoKeys.sorted().map { .string($0) }),
        ]
        if let page = activity.webpageURL { activityObject["webpageURL"] = .string(page) }
        if let bytes = activity.payloadBytes { activityObject["payloadBytes"] = .integer(Int64(bytes)) }
        if let keys = activity.userInfoKeys {
            activityObject["userInfoKeys"] = .array(keys.sorted().map { .string($0) })
        }
        if let date = activity.expirationDate {
            activityObject["expirationDate"] = .string(LifecycleEvent.timestamp(date))
        }
        var object: [String: JSONValue] = [
            "verdict": .string(continues ? "continues" : "doesNotContinue"),
            "continues": .bool(continues),
            "origin": origin.map(app) ?? .null,
            "receiver": app(receiver),
            "activity": .object(activityObject),
            "destination": destination.json,
            "reasons": .array(
                reasons.map { reason in
                    [
                        "rule": .string(reason.rule.id), "sentence": .string(reason.rule.sentence),
                        "source": .string(reason.rule.source), "severity": .string(reason.severity.rawValue),
                        "details": .array(reason.details.map { .string($0) }),
                    ]
                }),
            "errors": .integer(Int64(errors.count)),
            "warnings": .integer(Int64(warnings.count)),
        ]
        if let web {
            var webObject: [String: JSONValue] = ["host": .string(web.host)]
            webObject["entry"] = web.entry.map { .string("activitycontinuation:\($0)") } ?? .null
            webObject["associationFile"] = web.answer?.json ?? .null
            object["web"] = .object(webObject)
        }
        return .object(object)
    }
}
