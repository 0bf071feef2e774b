import Foundation
import HandoffCore

/// Recordings of any length made the same way every time, for the timeline's benchmark
/// (`handoff timeline-bench`) and its tests: the demo continuation of Tests/Fixtures/timeline
/// (a laptop's reading handed to a phone, recorded by two headless devices: 21 events, a
/// beacon lost) repeated once a second, each repetition with its own continuation, activity and
/// beacon serial, so that every message pairs within its repetition as in a real session.
package enum GeneratedRecordings {
    /// The laptop's header and events of one repetition, as recorded.
    static let laptop = #"""
        {"account":"timeline-demo","device":"Laptop","deviceID":"25fa112d-4572-485b-8265-784f0f13dd78","kind":"laptop","recording":"handoff-lifecycle","version":1}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","bundleIdentifier":"com.handoffsim.scripted","detail":"com.handoffsim.reader.reading in com.handoffsim.scripted","device":"Laptop","explanation":"An app created an NSUserActivity describing what the user is doing.","kind":"activityCreated","time":"2026-11-28T09:42:20.205Z"}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","bundleIdentifier":"com.handoffsim.scripted","detail":"“A Short Guide to Handoff” · com.handoffsim.reader.reading","device":"Laptop","explanation":"The activity is current: its app called becomeCurrent(), or set it on a responder on screen (UIKit: a view controller in the view hierarchy, once a transition it is in is over; AppKit: the main window's responder chain or document), so the system advertises it.","kind":"becameCurrent","time":"2026-11-28T09:42:20.206Z","title":"A Short Guide to Handoff"}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","bundleIdentifier":"com.handoffsim.scripted","detail":"com.handoffsim.reader.reading","device":"Laptop","explanation":"needsSave = true: the state changed; the system saves lazily, and always before the payload leaves.","kind":"needsSaveSet","time":"2026-11-28T09:42:20.206Z","title":"A Short Guide to Handoff"}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","advertiser":"25fa112d-4572-485b-8265-784f0f13dd78","bundleIdentifier":"com.handoffsim.scripted","detail":"com.handoffsim.reader.reading · serial 1 · hash 9254a9643f8466","device":"Laptop","eligible":true,"explanation":"A beacon tells same-account devices about the activity: a hash of its type, never its content.","kind":"advertised","serial":1,"time":"2026-11-28T09:42:20.206Z","title":"A Short Guide to Handoff","typeHash":"9254a9643f8466"}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"Phone asks for com.handoffsim.reader.reading","device":"Laptop","explanation":"A nearby device asks for this activity's payload to continue it.","kind":"payloadRequested","peer":"Phone","peerID":"c794229f-c8fb-4e49-a393-58b7fd9652c3","time":"2026-11-28T09:42:20.351Z","title":"A Short Guide to Handoff"}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"com.handoffsim.reader.reading","device":"Laptop","explanation":"userActivityWillSave(_:): the delegate's chance to refresh userInfo before it is saved.","kind":"willSave","time":"2026-11-28T09:42:20.351Z","title":"A Short Guide to Handoff"}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"com.handoffsim.reader.reading: userInfo emptied, 1 responder asked","device":"Laptop","explanation":"The system emptied userInfo and called updateUserActivityState(_:) on each responder sharing the activity.","kind":"updateUserActivityState","responders":1,"time":"2026-11-28T09:42:20.351Z","title":"A Short Guide to Handoff"}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"com.handoffsim.reader.reading","device":"Laptop","explanation":"application(_:didUpdate:): the app delegate's last chance to add keys, such as a version.","kind":"didUpdate","time":"2026-11-28T09:42:20.351Z","title":"A Short Guide to Handoff"}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"com.handoffsim.reader.reading (before the payload leaves), 3 keys","device":"Laptop","explanation":"The activity's state was saved; a payload leaving now carries this userInfo (only its requiredUserInfoKeys, when the app set some).","kind":"saved","saveReason":"beforeSending","time":"2026-11-28T09:42:20.352Z","title":"A Short Guide to Handoff","userInfo":{"documentName":"handoff-guide.txt","line":12,"page":3}}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"com.handoffsim.reader.reading to Phone, 3 keys","device":"Laptop","explanation":"The saved payload left this device.","kind":"payloadSent","peer":"Phone","peerID":"c794229f-c8fb-4e49-a393-58b7fd9652c3","size":161,"time":"2026-11-28T09:42:20.352Z","title":"A Short Guide to Handoff","userInfo":{"documentName":"handoff-guide.txt","line":12,"page":3}}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","advertiser":"25fa112d-4572-485b-8265-784f0f13dd78","bundleIdentifier":"com.handoffsim.scripted","detail":"com.handoffsim.reader.reading · serial 1 · hash 9254a9643f8466","device":"Laptop","eligible":true,"explanation":"A beacon tells same-account devices about the activity: a hash of its type, never its content.","kind":"advertised","serial":1,"time":"2026-11-28T09:42:20.352Z","title":"A Short Guide to Handoff","typeHash":"9254a9643f8466"}
        {"activity":"bf145e3d-4076-4450-9a68-a903c1a84a1f","activityType":"com.handoffsim.reader.reading","bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"com.handoffsim.reader.reading on Phone","device":"Laptop","explanation":"userActivityWasContinued(_:): the activity was continued on another device.","kind":"wasContinued","peer":"Phone","peerID":"c794229f-c8fb-4e49-a393-58b7fd9652c3","time":"2026-11-28T09:42:20.356Z","title":"A Short Guide to Handoff"}
        """#
    /// The phone's.
    static let phone = #"""
        {"account":"timeline-demo","device":"Phone","deviceID":"c794229f-c8fb-4e49-a393-58b7fd9652c3","kind":"phone","recording":"handoff-lifecycle","version":1}
        {"advertiser":"25fa112d-4572-485b-8265-784f0f13dd78","continuable":true,"detail":"Laptop · serial 1 · com.handoffsim.scripted continues com.handoffsim.reader.reading","device":"Phone","explanation":"A nearby device of the same account advertises an activity; this device works out which app could continue it.","kind":"offerReceived","peer":"Laptop","peerID":"25fa112d-4572-485b-8265-784f0f13dd78","route":"com.handoffsim.scripted continues com.handoffsim.reader.reading","routeActivityType":"com.handoffsim.reader.reading","routeApp":"com.handoffsim.scripted","routeKind":"app","serial":1,"time":"2026-11-28T09:42:20.209Z","typeHash":"9254a9643f8466"}
        {"continuable":true,"continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"Laptop · com.handoffsim.scripted continues com.handoffsim.reader.reading","device":"Phone","explanation":"The user chose to continue the offered activity (the lock screen, the dock or the app switcher).","kind":"continueChosen","peer":"Laptop","peerID":"25fa112d-4572-485b-8265-784f0f13dd78","route":"com.handoffsim.scripted continues com.handoffsim.reader.reading","routeActivityType":"com.handoffsim.reader.reading","routeApp":"com.handoffsim.scripted","routeKind":"app","time":"2026-11-28T09:42:20.328Z"}
        {"bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"com.handoffsim.scripted launched (cold: it was not running)","device":"Phone","explanation":"To continue, the system launches the app (cold: a new process, a scene app connects a scene) or brings it forward (warm).","kind":"applicationLaunched","launch":"cold","time":"2026-11-28T09:42:20.328Z"}
        {"activityType":"com.handoffsim.reader.reading","appShowsProgress":true,"bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"com.handoffsim.scripted · com.handoffsim.reader.reading · returned true: the app shows its progress","device":"Phone","explanation":"application(_:willContinueUserActivityWithType:): true, the app tells the user itself that it is continuing and the system shows nothing; false, the system shows its progress. Either way it goes on: false does not cancel.","kind":"willContinue","peer":"Laptop","peerID":"25fa112d-4572-485b-8265-784f0f13dd78","time":"2026-11-28T09:42:20.330Z"}
        {"continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"from Laptop, gives up after 5 s","device":"Phone","explanation":"The system asks the origin for the payload; the origin saves first if needsSave is set.","kind":"fetchStarted","peer":"Laptop","peerID":"25fa112d-4572-485b-8265-784f0f13dd78","time":"2026-11-28T09:42:20.330Z","timeout":5.0}
        {"activityType":"com.handoffsim.reader.reading","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"com.handoffsim.reader.reading from Laptop, 3 keys","device":"Phone","explanation":"The activity's payload (type, title, userInfo, webpageURL) arrived from the origin.","kind":"payloadReceived","milliseconds":24.22153949737549,"peer":"Laptop","peerID":"25fa112d-4572-485b-8265-784f0f13dd78","size":161,"time":"2026-11-28T09:42:20.354Z","userInfo":{"documentName":"handoff-guide.txt","line":12,"page":3}}
        {"activityType":"com.handoffsim.reader.reading","bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"com.handoffsim.scripted · com.handoffsim.reader.reading","device":"Phone","explanation":"application(_:continue:restorationHandler:): the app receives the activity and may pass objects to restore.","kind":"continueCalled","time":"2026-11-28T09:42:20.355Z"}
        {"bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"1 object in com.handoffsim.scripted","device":"Phone","explanation":"The restoration handler called restoreUserActivityState(_:) on the objects the app passed back.","kind":"restoreUserActivityState","objects":1,"time":"2026-11-28T09:42:20.355Z","userInfo":{"documentName":"handoff-guide.txt","line":12,"page":3}}
        {"bundleIdentifier":"com.handoffsim.scripted","continuation":"bb22ef34-bfb0-4245-98a1-f70fdcb166b8","detail":"from Laptop in com.handoffsim.scripted, 1 object restored","device":"Phone","explanation":"application(_:continue:restorationHandler:) returned true: the continuation completed, and the origin is told.","kind":"continued","milliseconds":27.76014804840088,"objects":1,"peer":"Laptop","peerID":"25fa112d-4572-485b-8265-784f0f13dd78","time":"2026-11-28T09:42:20.355Z"}
        """#

    static let continuation = "bb22ef34-bfb0-4245-98a1-f70fdcb166b8"
    static let activity = "bf145e3d-4076-4450-9a68-a903c1a84a1f"

    /// Writes the laptop's and the phone's recordings of at least `events` events in all (whole
    /// repetitions) into `folder`; returns their paths and the number of events.
    package static func write(events: Int, into folder: String) throws -> (files: [String], events: Int) {
        let laptopTemplate = Template(laptop)
        let phoneTemplate = Template(phone)
        let perRepetition = laptopTemplate.events.count + phoneTemplate.events.count
        let repetitions = max(1, (events + perRepetition - 1) / perRepetition)
        var files: [String] = []
        for (name, template) in [("laptop", laptopTemplate), ("phone", phoneTemplate)] {
            let path = (folder as NSString).appendingPathComponent("timeline-bench-\(name).jsonl")
            guard FileManager.default.createFile(atPath: path, contents: nil),
                let handle = FileHandle(forWritingAtPath: path)
            else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
            defer { try? handle.close() }
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 20)
            buffer.append(contentsOf: (template.header + "\n").utf8)
            for repetition in 0..<repetitions {
                for event in template.events {
                    template.append(event, repetition: repetition, to: &buffer)
                }
                if buffer.count >= 1 << 20 {
                    try handle.write(contentsOf: buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try handle.write(contentsOf: buffer)
            files.append(path)
        }
        return (files, repetitions * perRepetition)
    }

    /// A recording's lines cut where a repetition differs: the time, the continuation, the
    /// activity and the serial.
    struct Template {
        enum Piece {
            case text(String)
            /// The recorded time (milliseconds since 1970), a second later each repetition.
            case time(Int64)
            case continuation, activity
            /// The recorded serial, made the repetition's own.
            case serial(Int64)
        }

        var header: String
        var events: [[Piece]]

        init(_ text: String) {
            let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            header = lines[0]
            events = lines.dropFirst().map(Self.pieces)
        }

        static let timeMarker = "\"time\":\""
        static let serialMarker = "\"serial\":"

        static func pieces(_ line: String) -> [Piece] {
            var pieces: [Piece] = []
            var rest = Substring(line)
            let markers = [timeMarker, GeneratedRecordings.continuation, GeneratedRecordings.activity, serialMarker]
            while true {
                let found = markers.compactMap { marker in rest.range(of: marker).map { (marker, $0) } }
                    .min { $0.1.lowerBound < $1.1.lowerBound }
                guard let (marker, range) = found else {
                    pieces.append(.text(String(rest)))
                    return pieces
                }
                switch marker {
                case GeneratedRecordings.continuation, GeneratedRecordings.activity:
                    pieces.append(.text(String(rest[..<range.lowerBound])))
                    pieces.append(marker == GeneratedRecordings.continuation ? .continuation : .activity)
                    rest = rest[range.upperBound...]
                case serialMarker:
                    pieces.append(.text(String(rest[..<range.upperBound])))
                    let digits = rest[range.upperBound...].prefix { $0.isNumber }
                    pieces.append(.serial(Int64(digits) ?? 1))
                    rest = rest[digits.endIndex...]
                default:
                    pieces.append(.text(String(rest[..<range.upperBound])))
                    let end = rest[range.upperBound...].firstIndex(of: "\"") ?? rest.endIndex
                    let text = String(rest[range.upperBound..<end])
                    pieces.append(.time(RecordingReader.millisecondsSince1970(text) ?? 0))
                    rest = rest[end...]
                }
            }
        }

        func append(_ pieces: [Piece], repetition: Int, to buffer: inout [UInt8]) {
            for piece in pieces {
                switch piece {
                case .text(let text): buffer.append(contentsOf: text.utf8)
                case .time(let milliseconds):
                    buffer.append(contentsOf: GeneratedRecordings.time(milliseconds + Int64(repetition) * 1000).utf8)
                case .continuation:
                    buffer.append(contentsOf: GeneratedRecordings.identifier(repetition, kind: 0xC).utf8)
                case .activity:
                    buffer.append(contentsOf: GeneratedRecordings.identifier(repetition, kind: 0xA).utf8)
                case .serial(let serial): buffer.append(contentsOf: String(Int64(repetition) * 10 + serial).utf8)
                }
            }
            buffer.append(0x0A)
        }
    }

    /// A UUID-shaped identifier of a repetition.
    static func identifier(_ repetition: Int, kind: Int) -> String {
        let hex = String(repetition, radix: 16)
        return "\(String(kind, radix: 16))0000000-0000-4000-8000-"
            + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ` of milliseconds since 1970 (from 1970 on).
    static func time(_ milliseconds: Int64) -> String {
        let days = milliseconds / 86_400_000
        let ofDay = milliseconds % 86_400_000
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(ofDay / 3_600_000, 2)):"
            + "\(pad(ofDay / 60_000 % 60, 2)):\(pad(ofDay / 1000 % 60, 2)).\(pad(ofDay % 1000, 3))Z"
    }
}
