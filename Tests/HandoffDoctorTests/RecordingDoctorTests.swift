import Foundation
import HandoffCore
import HandoffDoctor
import HandoffHeadless
import HandoffRecordings
import HandoffRules
import HandoffTestSupport
import Testing

/// Two devices of one account in this process (the explorer's neighbourhood and manual clock),
/// each driven by the headless device's controller and scripted apps, their lifecycles kept.
final class DoctorWorld {
    let neighbourhood = Neighbourhood()
    private var controllers: [String: HeadlessController] = [:]
    private var events: [String: [LifecycleEvent]] = [:]
    let names = ["Laptop", "Phone"]

    init(phoneModel: ScriptedAppModel = .delegate) {
        for (name, kind, model) in [
            ("Laptop", PeerInfo.Kind.laptop, ScriptedAppModel.delegate), ("Phone", .phone, phoneModel),
        ] {
            let device = neighbourhood.addDevice(name, kind: kind)
            device.addLifecycleObserver { [unowned self] event in self.events[name, default: []].append(event) }
            controllers[name] = HeadlessController(
                device: device, apps: ScriptedApps.manifests(), output: LineWriter { _ in }, appModel: model)
        }
    }

    func send(_ name: String, _ command: String) {
        _ = controllers[name]?.handle(line: command)
    }

    func wait(_ seconds: TimeInterval) { neighbourhood.advance(by: seconds) }

    var histories: [DeviceHistory] {
        names.map {
            DeviceHistory(device: $0, account: "demo", deviceID: DeviceID($0.lowercased()), events: events[$0] ?? [])
        }
    }

    /// The laptop's Reader activity continued on the phone, after `prepare` (a fault, say).
    static func continuation(
        phoneModel: ScriptedAppModel = .delegate, prepare: (DoctorWorld) -> Void = { _ in }
    ) -> [DeviceHistory] {
        let world = DoctorWorld(phoneModel: phoneModel)
        world.send(
            "Laptop", #"{"cmd":"become-current","type":"com.handoffsim.reader.reading","userInfo":{"page":3}}"#)
        world.wait(2)
        prepare(world)
        world.send("Phone", #"{"cmd":"continue","peer":"Laptop"}"#)
        world.wait(12)
        return world.histories
    }
}

@Suite("Doctor: recorded continuations")
struct RecordingDoctorTests {
    @Test func theExpectationIsAnOrderedListPerPath() {
        #expect(
            RecordingDoctor.expected(path: .native, launch: .cold) == [
                .continueChosen, .applicationLaunched, .willContinue, .fetchStarted, .payloadReceived, .continueCalled,
                .continued,
            ])
        #expect(
            RecordingDoctor.expected(path: .scenes, launch: .cold) == [
                .continueChosen, .applicationLaunched, .sceneWillConnect, .sceneWillContinue, .fetchStarted,
                .payloadReceived, .sceneContinue, .continued,
            ])
        #expect(
            RecordingDoctor.expected(path: .scenes, launch: nil) == [
                .continueChosen, .sceneWillContinue, .fetchStarted, .payloadReceived, .sceneContinue, .continued,
            ])
        #expect(
            RecordingDoctor.expected(path: .web, launch: .warm) == [
                .continueChosen, .webRouted, .applicationLaunched, .willContinue, .fetchStarted, .payloadReceived,
                .continueCalled, .continued,
            ])
    }

    @Test func aNativeContinuationThatSucceedsHasNoDifference() throws {
        let findings = RecordingDoctor.diagnose(DoctorWorld.continuation())
        let finding = try #require(findings.first)
        #expect(findings.count == 1)
        #expect(finding.outcome == .succeeded, "\(finding.report)")
        #expect(finding.path == .native)
        #expect(finding.launch == .cold)
        #expect(finding.divergence == nil)
        #expect(finding.device == "Phone")
        #expect(finding.origin == "Laptop")
    }

    @Test func aSceneColdLaunchThatSucceedsHasNoDifference() throws {
        let finding = try #require(RecordingDoctor.diagnose(DoctorWorld.continuation(phoneModel: .scenes)).first)
        #expect(finding.outcome == .succeeded, "\(finding.report)")
        #expect(finding.path == .scenes)
        #expect(finding.expected == RecordingDoctor.expected(path: .scenes, launch: .cold))
    }

    @Test func aSecondContinuationIntoTheAppInFrontLaunchesNothingAndSucceeds() throws {
        for model in [ScriptedAppModel.delegate, .scenes] {
            let world = DoctorWorld(phoneModel: model)
            world.send(
                "Laptop", #"{"cmd":"become-current","type":"com.handoffsim.reader.reading","userInfo":{"page":3}}"#)
            world.wait(2)
            world.send("Phone", #"{"cmd":"continue","peer":"Laptop"}"#)
            world.wait(3)
            world.send("Laptop", #"{"cmd":"update","userInfo":{"page":4}}"#)
            world.wait(3)
            world.send("Phone", #"{"cmd":"continue","peer":"Laptop"}"#)
            world.wait(12)
            let findings = RecordingDoctor.diagnose(world.histories)
            #expect(findings.map(\.outcome) == [.succeeded, .succeeded], "\(findings.map(\.report))")
            #expect(findings.map(\.launch) == [.cold, nil])
            #expect(
                findings.last?.expected
                    == RecordingDoctor.expected(path: model == .scenes ? .scenes : .native, launch: nil))
        }
    }

    @Test func anOriginThatDoesNotAnswerFailsWith4610WhereThePayloadShouldArrive() throws {
        let histories = DoctorWorld.continuation { $0.send("Laptop", #"{"cmd":"fault","kind":"no-answer"}"#) }
        let finding = try #require(RecordingDoctor.diagnose(histories).first)
        #expect(finding.outcome == .failed)
        #expect(finding.divergence?.event.kind == .continuationFailed)
        #expect(finding.expectedThere == .payloadReceived)
        #expect(finding.rule == RuleBook.continuationEndsOnce)
        #expect(
            finding.details.first?.hasPrefix(
                "failed with 4610 (NSUserActivityRemoteApplicationTimedOutError): the remote app did not send the data in time"
            ) == true, "\(finding.details)")
        #expect(finding.related.map(\.event.kind) == [.faultInjected])
        #expect(finding.related.first?.device == "Laptop")
    }

    @Test func anOversizePayloadFailsWith4611() throws {
        let histories = DoctorWorld.continuation { $0.send("Laptop", #"{"cmd":"fault","kind":"oversize"}"#) }
        let finding = try #require(RecordingDoctor.diagnose(histories).first)
        #expect(finding.outcome == .failed)
        #expect(finding.rule == RuleBook.tooLargeFails4611)
        #expect(
            finding.details.first?.hasPrefix("failed with 4611 (NSUserActivityHandoffUserInfoTooLargeError)") == true)
        #expect(finding.related.map(\.event.kind).contains(.payloadRefused))
    }

    @Test func aSceneAppThatOnlyReadsConnectionOptionsMissesTheActivityOnAColdLaunch() throws {
        let histories = DoctorWorld.continuation(phoneModel: .scenesConnectionOptionsOnly)
        let finding = try #require(RecordingDoctor.diagnose(histories).first)
        #expect(finding.outcome == .failed, "\(finding.report)")
        #expect(finding.path == .scenes)
        #expect(finding.launch == .cold)
        // The system calls scene(_:continue:) (sceneContinue), which this delegate does not
        // implement: the activity reaches no code, where a continuation that succeeds ends continued.
        #expect(finding.divergence?.event.kind == .notHandled)
        #expect(finding.expectedThere == .continued)
        #expect(
            histories[1].events.map(\.kind).filter { RecordingDoctor.milestones.contains($0) } == [
                .continueChosen, .applicationLaunched, .sceneWillConnect, .sceneWillContinue, .fetchStarted,
                .payloadReceived, .sceneContinue, .notHandled,
            ])
        #expect(finding.rule == RuleBook.sceneColdLaunchCarriesType)
        #expect(finding.details.first?.contains("does not implement scene(_:continue:)") == true)
    }

    // MARK: Web pages (hand-made: the in-process world has no local web)

    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let laptop = PeerReference(id: "laptop", name: "Laptop")
    static let phone = PeerReference(id: "phone", name: "Phone")
    static let continuationID = ContinuationID(rawValue: UUID(uuidString: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")!)
    static let maps = "com.example.maps"
    static let domain = AssociatedDomain(host: "maps.example.com")

    static func at(_ ms: Int, _ device: PeerReference, _ occurrence: LifecycleEvent.Occurrence) -> LifecycleEvent {
        LifecycleEvent(time: start.addingTimeInterval(Double(ms) / 1000), device: device.name, occurrence)
    }

    /// The phone's side of a browser's page continued: into the Map when `approved`, else into
    /// the browser because the site's file is missing.
    static func webHistory(approved: Bool) -> [DeviceHistory] {
        let c = continuationID
        let route = Route.web(browserBundleIdentifier: "com.example.browser")
        let routing: WebRouting =
            approved
            ? .approved(applicationIdentifier: "TEAM123456.\(maps)", domain: domain)
            : .notApproved([
                WebRoutingRefusal(
                    bundleIdentifier: maps, applicationIdentifier: "TEAM123456.\(maps)", domain: domain,
                    outcome: .notFound)
            ])
        let bundle = approved ? maps : "com.example.browser"
        let type = UserActivity.browsingWebType
        let events = [
            at(60, phone, .continueChosen(c, laptop, route: route)),
            at(60, phone, .webRouted(c, host: "maps.example.com", bundleIdentifier: bundle, routing)),
            at(61, phone, .applicationLaunched(c, bundleIdentifier: bundle, launch: .cold)),
            at(
                70, phone,
                .willContinue(c, laptop, bundleIdentifier: bundle, activityType: type, appShowsProgress: true)),
            at(71, phone, .fetchStarted(c, laptop, timeout: 5)),
            at(90, phone, .payloadReceived(c, laptop, activityType: type, bytes: 90, milliseconds: 19, userInfo: [:])),
            at(91, phone, .continueCalled(c, bundleIdentifier: bundle, activityType: type)),
            at(
                92, phone,
                .continued(c, laptop, bundleIdentifier: bundle, .application(restoredObjects: 0), milliseconds: 32)),
        ]
        return [DeviceHistory(device: "Phone", account: "demo", deviceID: "phone", events: events)]
    }

    @Test func anApprovedPageSucceeds() throws {
        let finding = try #require(RecordingDoctor.diagnose(Self.webHistory(approved: true)).first)
        #expect(finding.outcome == .succeeded, "\(finding.report)")
        #expect(finding.path == .web)
    }

    @Test func aPageWithoutApprovalFailsAtWebRouted() throws {
        let finding = try #require(RecordingDoctor.diagnose(Self.webHistory(approved: false)).first)
        #expect(finding.outcome == .failed)
        #expect(finding.divergence?.event.kind == .webRouted)
        #expect(finding.rule == RuleBook.webNeedsApprovalAndEmptyUserInfo)
        #expect(
            finding.details == [
                "the page on maps.example.com went to com.example.browser (the browser): no site approves an app that names the host",
                "com.example.maps (maps.example.com): 404: the site has no association file",
            ])
    }

    @Test func aRecordingThatStopsMidContinuationIsUnfinishedNotFailed() throws {
        var histories = Self.webHistory(approved: true)
        histories[0].events = Array(histories[0].events.prefix(5))
        let finding = try #require(RecordingDoctor.diagnose(histories).first)
        #expect(finding.outcome == .unfinished)
        #expect(finding.expectedThere == .payloadReceived)
    }

    @Test func aChoiceNoAppCouldTakeIsNamedWithItsRule() throws {
        let events = [
            Self.at(
                10, Self.phone,
                .choiceIgnored(Self.laptop, .unavailable(.teamDiffers(bundleIdentifiers: ["org.other"]))))
        ]
        let finding = try #require(
            RecordingDoctor.diagnose([DeviceHistory(device: "Phone", account: "demo", events: events)]).first)
        #expect(finding.outcome == .failed)
        #expect(finding.rule == DoctorRules.sameTeam)
    }

    // MARK: Through recordings on disk

    @Test func recordingsReadBackGiveTheSameFindings() throws {
        let histories = DoctorWorld.continuation { $0.send("Laptop", #"{"cmd":"fault","kind":"no-answer"}"#) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths: [String] = []
        for history in histories {
            let path = folder.appendingPathComponent("\(history.device).jsonl").path
            let kind: PeerInfo.Kind = history.device == "Laptop" ? .laptop : .phone
            let recorder = try LifecycleRecorder(
                path: path,
                device: PeerInfo(id: DeviceID(history.device.lowercased()), name: history.device, kind: kind),
                account: "demo")
            for event in history.events { recorder.record(event) }
            paths.append(path)
        }
        let read = try RecordingCheck(files: paths).histories
        let direct = RecordingDoctor.diagnose(histories)
        let fromDisk = RecordingDoctor.diagnose(read)
        #expect(fromDisk.map(\.outcome) == direct.map(\.outcome))
        #expect(fromDisk.map(\.rule?.id) == direct.map(\.rule?.id))
        #expect(fromDisk.map { $0.divergence?.index } == direct.map { $0.divergence?.index })
        #expect(fromDisk.map(\.details) == direct.map(\.details))
        #expect(fromDisk.map(\.expectedThere) == direct.map(\.expectedThere))
        #expect(fromDisk.map { $0.related.map(\.event.kind) } == direct.map { $0.related.map(\.event.kind) })
        // Times read back to the millisecond, as written: the same finding but for its times.
        #expect(fromDisk.first?.outcome == .failed)
    }
}
