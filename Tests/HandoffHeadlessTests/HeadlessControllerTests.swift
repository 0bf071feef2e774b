import Foundation
import HandoffCore
import HandoffHeadless
import HandoffTestSupport
import Testing

@Suite("Headless controller")
struct HeadlessControllerTests {
    @Test func anActivityMadeCurrentIsListedAsContinuableByAPeer() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        let made = laptop.ok([
            "cmd": "become-current", "id": 7, "type": .string(readingType), "title": "Moby-Dick",
            "userInfo": ["page": 2],
        ])
        #expect(made["id"] == 7)
        #expect(made["result"] == "become-current")
        #expect(made["app"] == "com.example.reader")
        #expect(made["current"] == true)
        #expect(UUID(uuidString: made["activity"]?.stringValue ?? "") != nil)
        world.hood.settle()

        let peers = try #require(phone.ok(["cmd": "peers"])["peers"]?.arrayValue)
        #expect(peers.count == 1)
        let offer = try #require(peers.first)
        #expect(offer["peer"] == "laptop")
        #expect(offer["name"] == "Laptop")
        #expect(offer["kind"] == "laptop")
        #expect(offer["continuable"] == true)
        #expect(offer["reason"] == .null)
        #expect(offer["app"] == "com.example.reader")
        #expect(offer["routeKind"] == "app")
        #expect(offer["payloadSize"] == .null)
        #expect(offer["options"] == ["isEligibleForHandoff"])
        #expect(offer["activitySerial"]?.integerValue != nil)
        #expect(offer["firstSeen"]?.stringValue?.contains("T") == true)
        #expect(offer["lastSeen"]?.stringValue?.contains("T") == true)
        #expect(offer["route"]?.stringValue?.contains("com.example.reader") == true)
    }

    @Test func updateThenContinueRestoresTheLatestStateOfEveryKindExactly() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok([
            "cmd": "become-current", "type": .string(readingType), "title": "Moby-Dick", "userInfo": ["page": 2],
        ])
        world.hood.advance(by: 120)
        let latest: UserInfo = [
            "page": 3,
            "array": [1, "two", 3.5, false, 2.0],
            "data": .data(Data([0, 1, 254, 255])),
            "date": .date(Date(timeIntervalSinceReferenceDate: 12_345.678_912_345)),
            "dict": ["nested": ["deeper": .null], "$only": ["$x": 1]],
            "null": .null,
            "int": .integer(.min),
            "double": -0.0,
            "integralDouble": 2.0,
            "huge": 1e300,
            "tiny": .double(.leastNonzeroMagnitude),
            "bool": true,
            "set": .set([1, "1", 1.0, true, .set([2, 2.5])]),
            "string": "naïve café ☕️ 漢字 \"quoted\" \n\t\u{1}",
            "url": .url(URL(string: "https://example.com/a%20b?q=1#frag")!),
            "uuid": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        ]
        // The merge replaces page and adds the rest.
        let updated = laptop.ok(["cmd": "update", "userInfo": UserInfoJSON.json(from: latest)])
        #expect(updated["needsSave"] == true)
        #expect(laptop.lifecycleKinds.last == "needsSaveSet", "nothing is saved or sent yet")

        let continued = phone.ok(["cmd": "continue", "peer": "Laptop"])
        #expect(continued["peer"] == "laptop")
        world.hood.settle()

        let restored = try #require(phone.events("restored").first)
        #expect(restored["app"] == "com.example.reader")
        #expect(restored["type"] == .string(readingType))
        #expect(restored["title"] == "Moby-Dick")
        #expect(restored["webpageURL"] == .null)
        let userInfo = try UserInfoJSON.userInfo(from: try #require(restored["userInfo"]))
        #expect(userInfo == latest)
        #expect(laptop.events("continued-elsewhere").count == 1)
        #expect(laptop.events("continued-elsewhere").first?["title"] == "Moby-Dick")
        for kind in [
            "continueChosen", "willContinue", "fetchStarted", "payloadReceived", "restoreUserActivityState",
            "continueCalled", "continued",
        ] {
            #expect(phone.lifecycleKinds.contains(kind), "phone reports \(kind)")
        }
        for kind in ["payloadRequested", "updateUserActivityState", "saved", "payloadSent", "wasContinued"] {
            #expect(laptop.lifecycleKinds.contains(kind), "laptop reports \(kind)")
        }
        // The phone's app state now holds the restored state.
        let status = phone.ok(["cmd": "status"])
        #expect(try UserInfoJSON.userInfo(from: try #require(status["restored"]?["userInfo"])) == latest)
        // The payload size is known now.
        let peers = try #require(phone.ok(["cmd": "peers"])["peers"]?.arrayValue)
        #expect((peers.first?["payloadSize"]?.integerValue ?? 0) > 0)
    }

    @Test func updateWithoutMergeReplacesTheState() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 2, "scroll": 0.5]])
        laptop.ok(["cmd": "update", "userInfo": ["chapter": 9], "merge": false])
        world.hood.settle()
        phone.ok(["cmd": "continue"])
        world.hood.settle()
        #expect(phone.events("restored").first?["userInfo"] == ["chapter": 9])
    }

    @Test func invalidateWithdrawsTheOffer() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType)])
        world.hood.settle()
        #expect(phone.ok(["cmd": "peers"])["peers"]?.arrayValue?.count == 1)
        laptop.ok(["cmd": "invalidate"])
        world.hood.settle()
        #expect(phone.ok(["cmd": "peers"])["peers"] == [])
        #expect(phone.lifecycleKinds.contains("offerWithdrawn"))
        #expect(laptop.lifecycleKinds.contains("invalidated"))
        // The activity is gone: commands on it now fail clearly.
        #expect(laptop.fails(raw: #"{"cmd":"update","userInfo":{"page":1}}"#).contains("become-current"))
    }

    /// Issue 26 §2.6: a locked origin goes on offering for 8 s, then withdraws; unlocked, it
    /// offers again.
    @Test func lockWithdrawsTheOfferEightSecondsLaterAndUnlockOffersItAgain() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType)])
        world.hood.settle()
        let locked = laptop.ok(["cmd": "lock"])
        #expect(locked["locked"] == true)
        #expect(locked["changed"] == true)
        #expect(locked["advertisingStopsAfter"]?.doubleValue == 8)
        #expect(laptop.ok(["cmd": "lock"])["changed"] == false)
        world.hood.advance(by: 7)
        #expect(phone.ok(["cmd": "peers"])["peers"]?.arrayValue?.count == 1, "still offered within 8 s")
        world.hood.advance(by: 1.5)
        #expect(phone.ok(["cmd": "peers"])["peers"] == [])
        #expect(phone.lifecycleKinds.contains("offerWithdrawn"))
        var status = laptop.ok(["cmd": "status"])
        #expect(status["locked"] == true)
        #expect(status["advertising"] == false)
        #expect(status["current"]?["type"] == .string(readingType), "still current, only not offered")
        let withdrawn = try #require(laptop.events("lifecycle").last { $0["kind"] == "withdrawn" })
        #expect(withdrawn["reason"] == "deviceLocked")
        #expect(laptop.ok(["cmd": "unlock"])["changed"] == true)
        world.hood.settle()
        #expect(phone.ok(["cmd": "peers"])["peers"]?.arrayValue?.count == 1)
        status = laptop.ok(["cmd": "status"])
        #expect(status["locked"] == false)
        #expect(status["advertising"] == true)
        #expect(laptop.lifecycleKinds.suffix(2) == ["deviceUnlocked", "advertised"])
    }

    /// Issue 26 §2.9: after a continuation the app is in front, and the next one launches nothing.
    @Test func theContinuedAppIsFrontmostAndTheNextContinuationIsNoLaunch() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 1]])
        world.hood.settle()
        phone.ok(["cmd": "continue"])
        world.hood.settle()
        #expect(phone.events("restored").count == 1)
        #expect(phone.ok(["cmd": "status"])["frontmost"] == "com.example.reader")
        let launches = phone.lifecycleKinds.filter { $0 == "applicationLaunched" }.count
        phone.ok(["cmd": "continue"])
        world.hood.settle()
        #expect(phone.events("restored").count == 2)
        #expect(phone.lifecycleKinds.filter { $0 == "applicationLaunched" }.count == launches)
    }

    @Test func resignAndBecomeCurrentAgain() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        let made = laptop.ok(["cmd": "become-current", "type": .string(readingType)])
        world.hood.settle()
        #expect(laptop.ok(["cmd": "resign"])["current"] == false)
        world.hood.settle()
        #expect(phone.ok(["cmd": "peers"])["peers"] == [])
        let again = laptop.ok(["cmd": "become-current"])
        #expect(again["activity"] == made["activity"])
        #expect(again["current"] == true)
        world.hood.settle()
        #expect(phone.ok(["cmd": "peers"])["peers"]?.arrayValue?.count == 1)
    }

    @Test func aSecondActivityInTheSameAppReplacesTheFirst() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 1]])
        world.hood.settle()
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "title": "Second", "userInfo": ["page": 50]])
        world.hood.settle()
        #expect(
            laptop.lifecycleKinds.filter { $0 == "invalidated" }.count == 1, "the first, detached from its responder")
        #expect(!laptop.lifecycleKinds.contains("withdrawn"), "no gap in the advertisement")
        phone.ok(["cmd": "continue"])
        world.hood.settle()
        #expect(phone.events("restored").first?["title"] == "Second")
        #expect(phone.events("restored").first?["userInfo"] == ["page": 50])
    }

    @Test func setChangesTheActivity() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone", apps: [TestManifests.browser])
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "title": "One"])
        world.hood.settle()
        // The phone has no reader: the offer is not continuable until the activity has a web page.
        var offer = try #require(phone.ok(["cmd": "peers"])["peers"]?.arrayValue?.first)
        #expect(offer["continuable"] == false)
        #expect(offer["reason"] == "no installed app claims this activity type")
        let set = laptop.ok(["cmd": "set", "title": "Two", "webpageURL": "https://example.com/book/2"])
        #expect(set["title"] == "Two")
        #expect(set["webpageURL"] == "https://example.com/book/2")
        world.hood.settle()
        offer = try #require(phone.ok(["cmd": "peers"])["peers"]?.arrayValue?.first)
        #expect(offer["continuable"] == true)
        #expect(offer["routeKind"] == "browser")
        #expect(offer["app"] == "com.example.browser")
        #expect(offer["options"]?.arrayValue?.contains("hasWebpageURL") == true)
        laptop.ok(["cmd": "set", "eligible": false])
        world.hood.settle()
        offer = try #require(phone.ok(["cmd": "peers"])["peers"]?.arrayValue?.first)
        #expect(offer["continuable"] == false)
        #expect(offer["reason"] == "the activity is not eligible for Handoff")
        laptop.ok(["cmd": "set", "eligible": true, "webpageURL": .null, "title": .null])
        let status = laptop.ok(["cmd": "status"])
        #expect(status["activity"]?["webpageURL"] == .null)
        #expect(status["activity"]?["title"] == .null)
        let message = laptop.fails(raw: #"{"cmd":"set","webpageURL":"ftp://example.com/x"}"#)
        #expect(message.contains("webpageURL must use http or https"))
        #expect(laptop.fails(raw: #"{"cmd":"set"}"#).contains("nothing to set"))
    }

    @Test func statusDescribesTheDevice() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        var status = laptop.ok(["cmd": "status"])
        #expect(status["device"] == ["id": "laptop", "name": "Laptop", "kind": "laptop"])
        #expect(status["activity"] == .null)
        #expect(status["current"] == .null)
        #expect(
            status["apps"]?.arrayValue?.compactMap { $0["bundle"]?.stringValue } == [
                "com.example.reader", "com.example.browser",
            ])
        laptop.ok([
            "cmd": "become-current", "type": .string(readingType), "title": "T", "userInfo": ["k": "v"],
            "streams": true, "expiresIn": 600, "requiredKeys": ["k"],
        ])
        status = laptop.ok(["cmd": "status"])
        #expect(status["frontmost"] == "com.example.reader")
        let current = try #require(status["current"])
        #expect(current["type"] == .string(readingType))
        #expect(current["title"] == "T")
        #expect(current["userInfo"] == ["k": "v"])
        #expect(current["streams"] == true)
        #expect(current["requiredKeys"] == ["k"])
        #expect(current["expirationDate"]?.stringValue != nil)
        let help = laptop.ok(["cmd": "help"])
        #expect(help["commands"]?.arrayValue?.count == HeadlessController.commands.count)
    }

    @Test func badInputIsReportedAndTheControllerKeepsRunning() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        #expect(laptop.fails(raw: "{not json").contains("invalid JSON"))
        #expect(laptop.send(raw: "{not json").result["input"] == "{not json")
        #expect(laptop.send(raw: "{not json").result["result"] == .null)
        #expect(laptop.fails(raw: "[1,2]").contains("JSON object"))
        #expect(laptop.fails(raw: #"{"id":3}"#).contains("missing \"cmd\""))
        #expect(laptop.send(raw: #"{"id":3}"#).result["id"] == 3)
        #expect(laptop.fails(raw: #"{"cmd":5}"#).contains("\"cmd\" must be a string"))
        let unknown = laptop.fails(raw: #"{"cmd":"fly","id":"x"}"#)
        #expect(unknown.contains("unknown command \"fly\""))
        #expect(laptop.send(raw: #"{"cmd":"fly","id":"x"}"#).result["id"] == "x")
        #expect(laptop.send(raw: #"{"cmd":"fly","id":"x"}"#).result["result"] == "fly")
        #expect(
            laptop.fails(raw: #"{"cmd":"become-current","type":"com.example.reader.reading","titel":"x"}"#)
                .contains("unknown field \"titel\""))
        #expect(
            laptop.fails(raw: #"{"cmd":"become-current","type":5}"#).contains(
                "\"type\" must be a string, not an integer"))
        #expect(
            laptop.fails(raw: #"{"cmd":"become-current","type":"com.example.reader.reading","streams":"yes"}"#)
                .contains("\"streams\" must be true or false"))
        // Apple accepts any non-empty type (reverse-DNS is advice); an empty one is refused.
        #expect(laptop.fails(raw: #"{"cmd":"become-current","type":"  "}"#).contains("invalid activity type"))
        #expect(
            laptop.fails(
                raw: #"{"cmd":"become-current","type":"com.example.reader.reading","webpageURL":"file:///etc/passwd"}"#
            )
            .contains("webpageURL must use http or https"))
        let path = laptop.fails(
            raw: #"{"cmd":"become-current","type":"com.example.reader.reading","userInfo":{"a":[1,{"$uuid":"zzz"}]}}"#)
        #expect(path.contains("userInfo.a[1].$uuid"))
        #expect(
            laptop.fails(raw: #"{"cmd":"become-current","type":"com.example.reader.reading","userInfo":[1]}"#)
                .contains("must be a JSON object"))
        #expect(
            laptop.fails(raw: #"{"cmd":"become-current","type":"com.example.reader.reading","app":"com.nope"}"#)
                .contains("no app \"com.nope\" is installed"))
        #expect(laptop.fails(raw: #"{"cmd":"update","userInfo":{}}"#).contains("no activity"))
        #expect(laptop.fails(raw: #"{"cmd":"continue","peer":"Nobody"}"#).contains("no offer from \"Nobody\""))
        #expect(laptop.fails(raw: #"{"cmd":"streams-open"}"#).contains("no activity was continued"))
        #expect(laptop.fails(raw: #"{"cmd":"stream-send","text":"x"}"#).contains("no continuation streams"))
        #expect(laptop.fails(raw: #"{"cmd":"stream-mode","mode":"loud"}"#).contains("\"echo\" or \"sink\""))
        #expect(laptop.fails(raw: #"{"cmd":"quit","now":true}"#).contains("takes no fields"))
        // Hostile input: deep nesting, huge numbers, bad escapes, lone surrogates.
        #expect(laptop.fails(raw: String(repeating: "[", count: 100_000)).contains("nesting"))
        #expect(laptop.fails(raw: #"{"cmd":"status","id":123456789012345678901234567890}"#).contains("64 bits"))
        #expect(laptop.fails(raw: #"{"cmd":"st\x"}"#).contains("invalid escape"))
        #expect(laptop.fails(raw: #"{"cmd":"\ud800"}"#).contains("surrogate"))
        #expect(laptop.fails(raw: "").contains("invalid JSON"))
        // Still running, with no activity created by the failures that validate first.
        #expect(laptop.ok(["cmd": "status"])["activity"] == .null)
        #expect(!laptop.controller.isFinished)
        #expect(laptop.controller.exitStatus == 0)
        // The refused webpageURL: the app threw its half-made activity away.
        #expect(
            laptop.device.lifecycle.filter { $0.kind == .activityCreated }.count
                == laptop.device.lifecycle.filter { $0.kind == .invalidated }.count)
    }

    @Test func strictModeStopsAtTheFirstBadCommand() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop, strict: true)
        #expect(laptop.send(raw: #"{"cmd":"status"}"#).goOn)
        let (result, goOn) = laptop.send(raw: #"{"cmd":"become-current","type":""}"#)
        #expect(!goOn)
        #expect(result["ok"] == false)
        #expect(laptop.controller.exitStatus == 2)
        #expect(laptop.controller.isFinished)
        let exit = try #require(laptop.events("exit").first)
        #expect(exit["status"] == 2)
        #expect(exit["reason"]?.stringValue?.contains("invalid activity type") == true)
        let count = laptop.collected.lines.count
        #expect(!laptop.controller.handle(line: #"{"cmd":"status"}"#), "nothing runs after the exit")
        #expect(laptop.collected.lines.count == count)

        let other = world.add("Phone", strict: true)
        #expect(!other.controller.handle(line: "nonsense"))
        #expect(other.controller.exitStatus == 2)
    }

    @Test func quitEndsWithStatusZero() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let (result, goOn) = laptop.send(raw: #"{"cmd":"quit","id":"bye"}"#)
        #expect(!goOn)
        #expect(result["ok"] == true)
        #expect(result["id"] == "bye")
        #expect(laptop.controller.exitStatus == 0)
        #expect(laptop.events("exit").first?["status"] == 0)
        #expect(!laptop.controller.handle(line: #"{"cmd":"status"}"#))
    }

    /// Apple: false from willContinue lets the system show the progress; the continuation goes on.
    @Test func declineNextAnswersFalseAndTheSystemShowsProgress() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 4]])
        world.hood.settle()
        #expect(phone.ok(["cmd": "decline-next"])["declineNext"] == true)
        phone.ok(["cmd": "continue", "peer": "laptop"])
        world.hood.settle()
        #expect(phone.events("lifecycle").contains { $0["kind"] == "willContinue" && $0["appShowsProgress"] == false })
        #expect(phone.events("restored").first?["userInfo"] == ["page": 4])
    }

    @Test func anAppThatRefusesAnActivityRestoresNothingAndTheOriginIsNotTold() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        var checked: [String] = []
        phone.controller.continuationCheck = { application, activity in
            checked.append(application.bundleIdentifier)
            guard case .integer(let version)? = activity.userInfo["handoffVersion"], version > 2 else { return nil }
            return "version \(version) is newer than this app knows"
        }
        laptop.ok([
            "cmd": "become-current", "type": .string(readingType), "title": "Future",
            "userInfo": ["handoffVersion": 3, "page": 4],
        ])
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "Laptop"])
        world.hood.settle()
        #expect(checked == ["com.example.reader"])
        let refused = try #require(phone.events("continue-refused").first)
        #expect(refused["app"] == "com.example.reader")
        #expect(refused["type"] == .string(readingType))
        #expect(refused["title"] == "Future")
        #expect(refused["userInfo"] == ["handoffVersion": 3, "page": 4])
        #expect(refused["reason"] == "version 3 is newer than this app knows")
        #expect(phone.events("restored").isEmpty)
        #expect(phone.events("continue-failed").isEmpty, "the app refused: the system reported no failure")
        #expect(phone.lifecycleKinds.contains("continueCalled"))
        let notHandled = try #require(phone.events("lifecycle").first { $0["kind"] == "notHandled" })
        #expect(notHandled["peer"] == "Laptop")
        #expect(!phone.lifecycleKinds.contains("continued"))
        #expect(!phone.lifecycleKinds.contains("restoreUserActivityState"))
        #expect(laptop.lifecycleKinds.contains("payloadSent"), "the payload arrived")
        #expect(!laptop.lifecycleKinds.contains("wasContinued"), "the origin was not told it was continued")
        #expect(laptop.events("continued-elsewhere").isEmpty)
        #expect(phone.ok(["cmd": "status"])["restored"] == .null)

        // An activity the check lets through is restored as before, and the origin is told.
        laptop.ok(["cmd": "update", "userInfo": ["handoffVersion": 2]])
        world.hood.settle()
        phone.ok(["cmd": "continue", "peer": "Laptop"])
        world.hood.settle()
        #expect(phone.events("restored").first?["userInfo"] == ["handoffVersion": 2, "page": 4])
        #expect(laptop.events("continued-elsewhere").count == 1)
    }

    @Test func aVanishedOriginFailsWith4609() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType)])
        world.hood.settle()
        world.hood.remove(laptop.device)
        phone.ok(["cmd": "continue", "peer": "Laptop"])
        world.hood.settle()
        let failure = try #require(phone.events("continue-failed").first)
        #expect(failure["code"] == 4609)
        #expect(failure["constant"] == "NSUserActivityConnectionUnavailableError")
        #expect(failure["meaning"] == "a required connection was not available")
        #expect(failure["app"] == "com.example.reader")
        #expect(failure["type"] == .string(readingType))
        #expect(failure["reason"]?.stringValue?.isEmpty == false)
        let lifecycle = try #require(phone.events("lifecycle").first { $0["kind"] == "continuationFailed" })
        #expect(lifecycle["errorCode"] == 4609)
        #expect(phone.events("restored").isEmpty)
    }

    @Test func cancelFailsTheContinuationWith3072() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType)])
        world.hood.settle()
        phone.ok(["cmd": "continue"])
        #expect(phone.ok(["cmd": "status"])["continuation"]?["phase"] == "fetching")
        #expect(phone.fails(raw: #"{"cmd":"continue"}"#).contains("already in progress"))
        #expect(phone.ok(["cmd": "cancel"])["cancelled"] == true)
        world.hood.settle()
        #expect(phone.events("continue-failed").first?["code"] == 3072)
        #expect(phone.ok(["cmd": "cancel"])["cancelled"] == false)
    }

    @Test func threeDevicesChooseBetweenOffers() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        let tablet = world.add("Tablet", kind: .tablet)
        laptop.ok([
            "cmd": "become-current", "type": .string(readingType), "title": "From the laptop", "userInfo": ["page": 1],
        ])
        tablet.ok([
            "cmd": "become-current", "type": .string(readingType), "title": "From the tablet", "userInfo": ["page": 9],
        ])
        world.hood.settle()
        let peers = try #require(phone.ok(["cmd": "peers"])["peers"]?.arrayValue)
        #expect(peers.compactMap { $0["name"]?.stringValue } == ["Laptop", "Tablet"])
        #expect(phone.fails(raw: #"{"cmd":"continue"}"#).contains("2 peers offer activities"))
        phone.ok(["cmd": "continue", "peer": "tablet"])
        world.hood.settle()
        #expect(phone.events("restored").first?["title"] == "From the tablet")
        #expect(phone.events("restored").first?["userInfo"] == ["page": 9])
        #expect(tablet.events("continued-elsewhere").count == 1)
        #expect(laptop.events("continued-elsewhere").isEmpty)
        // The tablet sees the laptop's offer too.
        #expect(tablet.ok(["cmd": "peers"])["peers"]?.arrayValue?.first?["name"] == "Laptop")
    }

    @Test func everyLifecycleEventIsAnEventLine() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.ok(["cmd": "become-current", "type": .string(readingType), "userInfo": ["page": 1]])
        laptop.ok(["cmd": "update", "userInfo": ["page": 2]])
        world.hood.advance(by: 61)
        phone.ok(["cmd": "continue"])
        world.hood.settle()
        laptop.ok(["cmd": "invalidate"])
        world.hood.settle()
        for node in [laptop, phone] {
            let lines = node.events("lifecycle")
            let recorded = node.device.lifecycle
            #expect(lines.count == recorded.count)
            #expect(recorded.count > 5)
            for (line, event) in zip(lines, recorded) {
                #expect(line["kind"] == .string(event.kind.rawValue))
                #expect(line["detail"] == .string(event.summary))
                #expect(line["device"] == .string(event.device))
                #expect(line["explanation"] == .string(event.explanation))
                #expect(line["time"]?.stringValue?.contains("T") == true)
                #expect(line["peer"] == event.peer.map { .string($0.name) })
                #expect(line["continuation"] == event.continuation.map { .string($0.description) })
                #expect(line["errorCode"] == event.error.map { .integer(Int64($0.code.rawValue)) })
                #expect(line["size"] == event.bytes.map { .integer(Int64($0)) })
                #expect(line["milliseconds"] == event.milliseconds.map { .double($0) })
            }
        }
        #expect(laptop.lifecycleKinds.contains("saved"))
    }

    @Test func anEarlierLifecycleHandlerIsStillCalled() throws {
        let hood = Neighbourhood()
        let device = hood.addDevice("Solo")
        final class Counter { var count = 0 }
        let counter = Counter()
        device.addLifecycleObserver { _ in counter.count += 1 }
        let node = HeadlessNode(device: device, apps: HeadlessWorld.apps)
        node.ok(["cmd": "become-current", "type": .string(readingType)])
        #expect(counter.count > 0)
        #expect(counter.count == node.events("lifecycle").count)
    }
}
