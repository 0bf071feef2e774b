import Foundation
import HandoffCore
import HandoffNetwork
import Testing

@Suite struct BeaconScheduleTests {
    typealias F = BeaconFixtures
    static let t0 = Date(timeIntervalSince1970: 1_000_000)

    static func at(_ offset: TimeInterval) -> Date { t0.addingTimeInterval(offset) }

    static func ad(_ serial: UInt32) -> Beacon.Message {
        .advertisement(F.advertisement(serial: serial, savedAt: t0))
    }

    /// Drives a schedule the way a device host does: wakes at each change and at `nextWake`,
    /// then takes everything due. Checks that something is due whenever the schedule asked to wake.
    struct Driver {
        var schedule: BeaconSchedule
        var sends: [(time: TimeInterval, message: Beacon.Message)] = []

        init(_ profile: TimingProfile) { schedule = BeaconSchedule(profile: profile) }

        mutating func run(changes: [(TimeInterval, Beacon.Message)], until end: TimeInterval) {
            var pending = changes.sorted { $0.0 < $1.0 }
            for _ in 0..<100_000 {
                let nextChange = pending.first.map { BeaconScheduleTests.at($0.0) } ?? .distantFuture
                let wake = schedule.nextWake ?? .distantFuture
                let now = min(nextChange, wake)
                guard now <= BeaconScheduleTests.at(end) else { return }
                var changed = false
                while let change = pending.first, BeaconScheduleTests.at(change.0) <= now {
                    schedule.change(to: change.1, at: now)
                    pending.removeFirst()
                    changed = true
                }
                let before = sends.count
                while let message = schedule.due(at: now) {
                    sends.append((now.timeIntervalSince(BeaconScheduleTests.t0), message))
                    if sends.count - before > 3 {
                        Issue.record("due(at:) keeps returning at \(now)")
                        return
                    }
                }
                if !changed, sends.count == before {
                    Issue.record("woke at \(now.timeIntervalSince(BeaconScheduleTests.t0)) with nothing due")
                    return
                }
            }
            Issue.record("the schedule never settles")
        }

        var times: [TimeInterval] { sends.map(\.time) }

        func gaps() -> [TimeInterval] { zip(times.dropFirst(), times).map { $0 - $1 } }

        /// The most beacons in any window of `length` seconds.
        func mostInAnyWindow(_ length: TimeInterval) -> Int {
            times.map { start in times.filter { $0 >= start && $0 < start + length - 1e-9 }.count }.max() ?? 0
        }
    }

    // MARK: instant

    @Test func instantSendsAChangeAtOnceAndRefreshesEverySecond() {
        var schedule = BeaconSchedule(profile: .instant)
        #expect(schedule.nextWake == nil)
        #expect(schedule.due(at: Self.t0) == nil)
        schedule.change(to: .presence, at: Self.t0)
        #expect(schedule.nextWake == Self.t0)
        #expect(schedule.due(at: Self.t0) == .presence)
        #expect(schedule.due(at: Self.t0) == nil)
        #expect(schedule.nextWake == Self.at(1))
        #expect(schedule.due(at: Self.at(0.5)) == nil)
        #expect(schedule.due(at: Self.at(1)) == .presence)
        schedule.change(to: Self.ad(1), at: Self.at(1.2))
        #expect(schedule.due(at: Self.at(1.2)) == Self.ad(1))
        #expect(schedule.nextWake == Self.at(2.2))
        #expect(schedule.refreshInterval == 1)
        #expect(schedule.peerSilenceTimeout == 4)
    }

    @Test func instantSendsEveryChangeOfABurst() {
        var driver = Driver(.instant)
        let changes = (1...10).map { (Double($0) / 10, Self.ad(UInt32($0))) }
        driver.run(changes: [(0, .presence)] + changes, until: 5)
        let changeSends = driver.sends.filter { $0.time <= 1.0 + 1e-9 }
        #expect(changeSends.count == 11)
        #expect(changeSends.last?.message == Self.ad(10))
        #expect(driver.gaps().allSatisfy { $0 <= 1 + 1e-9 })
        #expect(driver.sends.last?.message == Self.ad(10))
    }

    @Test func instantGoodbyeIsSentOnceThenPresence() {
        var driver = Driver(.instant)
        driver.run(changes: [(0, Self.ad(1)), (0.3, .goodbye)], until: 3.5)
        #expect(driver.sends.map(\.message) == [Self.ad(1), .goodbye, .presence, .presence, .presence])
        #expect(driver.times.map { ($0 * 10).rounded() / 10 } == [0, 0.3, 1.3, 2.3, 3.3])
    }

    @Test func theSameStateIsNotSentTwiceBeforeItsRefresh() {
        var schedule = BeaconSchedule(profile: .instant)
        schedule.change(to: Self.ad(1), at: Self.t0)
        #expect(schedule.due(at: Self.t0) == Self.ad(1))
        schedule.change(to: Self.ad(1), at: Self.at(0.2))
        #expect(schedule.due(at: Self.at(0.2)) == nil)
        schedule.change(to: .presence, at: Self.at(0.3))
        #expect(schedule.due(at: Self.at(0.3)) == .presence)
        schedule.change(to: .goodbye, at: Self.at(0.4))  // nothing advertised since: plain presence, no change
        #expect(schedule.due(at: Self.at(0.4)) == nil)
        #expect(schedule.nextWake == Self.at(1.3))
    }

    // MARK: apple

    @Test func appleCoalescesABurstAndRespectsTheRateLimit() {
        var driver = Driver(.apple)
        let burst = (1...10).map { (Double($0 - 1) / 10, Self.ad(UInt32($0))) }
        driver.run(changes: burst, until: 30)
        #expect(driver.gaps().allSatisfy { $0 >= 0.5 - 1e-9 })
        #expect(driver.mostInAnyWindow(10) <= 5)
        let changeSends = driver.sends.filter { $0.time < 2 }
        #expect(changeSends.first?.message == Self.ad(1))
        #expect(changeSends.last?.message == Self.ad(10), "the last state goes out")
        #expect(driver.sends.last?.message == Self.ad(10))
        #expect(driver.gaps().allSatisfy { $0 <= 3 + 1e-9 }, "refreshed every 3 s")
    }

    @Test func appleSustainedChangesStayWithinFivePerTenSecondsAndTheLastIsSent() {
        var driver = Driver(.apple)
        let changes = (1...100).map { (Double($0) * 0.3, Self.ad(UInt32($0))) }  // 30 s of changes
        driver.run(changes: [(0, .presence)] + changes, until: 60)
        #expect(driver.gaps().allSatisfy { $0 >= 0.5 - 1e-9 })
        #expect(driver.mostInAnyWindow(10) <= 5)
        #expect(driver.sends.contains { $0.message == Self.ad(100) }, "the last state is always eventually sent")
        let schedule = BeaconSchedule(profile: .apple)
        #expect(driver.gaps().allSatisfy { $0 < schedule.peerSilenceTimeout - 3 }, "a lost refresh is tolerated")
    }

    @Test func appleGoodbyeIsRepeatedForTwoSecondsThenPresence() {
        var driver = Driver(.apple)
        driver.run(changes: [(0, Self.ad(1)), (20, .goodbye)], until: 30)
        let after = driver.sends.filter { $0.time >= 20 }
        let goodbyes = after.filter { $0.message == .goodbye }
        #expect(goodbyes.count >= 2)
        #expect(goodbyes.first?.time == 20)
        #expect(goodbyes.allSatisfy { $0.time < 22 })
        let firstPresence = after.first { $0.message == .presence }
        #expect(firstPresence.map { $0.time >= 22 && $0.time < 22.5 } == true)
        #expect(after.drop { $0.message == .goodbye }.allSatisfy { $0.message == .presence })
        #expect(driver.gaps().allSatisfy { $0 >= 0.5 - 1e-9 })
    }

    @Test func appleGoodbyeWithNothingAdvertisedIsPlainPresence() {
        var driver = Driver(.apple)
        driver.run(changes: [(0, .presence), (5, .goodbye)], until: 10)
        #expect(!driver.sends.contains { $0.message == .goodbye })
    }

    @Test func aNewActivityDuringTheGoodbyeReplacesIt() {
        var driver = Driver(.apple)
        driver.run(changes: [(0, Self.ad(1)), (20, .goodbye), (20.7, Self.ad(2))], until: 26)
        let after = driver.sends.filter { $0.time >= 20 }
        #expect(after.first?.message == .goodbye)
        #expect(after.dropFirst().first?.message == Self.ad(2))
        #expect(!after.contains { $0.message == .presence })
    }

    @Test func leavingGoesOutAtOnceEvenWhenRateLimitedAndEndsTheSchedule() {
        for profile in TimingProfile.allCases {
            var schedule = BeaconSchedule(profile: profile)
            for index in 0..<6 {
                schedule.change(to: Self.ad(UInt32(index)), at: Self.at(Double(index) * 0.5))
                _ = schedule.due(at: Self.at(Double(index) * 0.5))
            }
            schedule.change(to: .leaving, at: Self.at(2.6))
            #expect(schedule.nextWake == Self.at(2.6))
            #expect(schedule.due(at: Self.at(2.6)) == .leaving)
            #expect(schedule.due(at: Self.at(2.6)) == nil)
            #expect(schedule.nextWake == nil)
            #expect(schedule.due(at: Self.at(100)) == nil)
        }
    }

    @Test func steadyStateRefreshesKeepPeersAliveWithinTheRateLimit() {
        for profile in TimingProfile.allCases {
            var driver = Driver(profile)
            driver.run(changes: [(0, .presence), (10, Self.ad(1))], until: 60)
            let schedule = BeaconSchedule(profile: profile)
            #expect(driver.gaps().allSatisfy { $0 <= schedule.refreshInterval + 1e-9 })
            #expect(schedule.refreshInterval * 2 < schedule.peerSilenceTimeout)
            if profile == .apple { #expect(driver.mostInAnyWindow(10) <= 5) }
        }
    }

    /// While newcomers keep being heard (many devices starting at once), the refresh waits for
    /// 0.1 s without one, at most one more refresh interval; a change never waits.
    @Test func theRefreshWaitsForAQuietMomentAtMostOneMoreInterval() {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        var schedule = BeaconSchedule(profile: .instant)
        schedule.change(to: .presence, at: t0)
        #expect(schedule.due(at: t0) == .presence)
        schedule.heardNewcomer(at: t0.addingTimeInterval(0.5))
        #expect(schedule.nextWake == t0.addingTimeInterval(1), "a newcomer long before the refresh moves nothing")
        schedule.heardNewcomer(at: t0.addingTimeInterval(0.95))
        #expect(abs((schedule.nextWake ?? .distantPast).timeIntervalSince(t0) - 1.05) < 1e-6)
        #expect(schedule.due(at: t0.addingTimeInterval(1)) == nil)
        // Newcomers all the time: the refresh goes out two refresh intervals after the last beacon.
        for step in 0..<30 { schedule.heardNewcomer(at: t0.addingTimeInterval(1 + Double(step) * 0.05)) }
        #expect(schedule.nextWake == t0.addingTimeInterval(2))
        #expect(schedule.due(at: t0.addingTimeInterval(2)) == .presence)
        #expect(schedule.nextWake == t0.addingTimeInterval(3), "then refreshes as before")

        // A change goes out at once whatever the newcomers.
        schedule.heardNewcomer(at: t0.addingTimeInterval(2.5))
        schedule.change(to: Self.ad(1), at: t0.addingTimeInterval(2.5))
        #expect(schedule.due(at: t0.addingTimeInterval(2.5)) == Self.ad(1))

        // Apple's profile does not wait.
        var apple = BeaconSchedule(profile: .apple)
        apple.change(to: .presence, at: t0)
        _ = apple.due(at: t0)
        apple.heardNewcomer(at: t0.addingTimeInterval(2.9))
        #expect(apple.nextWake == t0.addingTimeInterval(3))
    }

    @Test func profileParameters() {
        let apple = BeaconSchedule(profile: .apple)
        #expect(apple.parameters.minimumGap == 0.5)
        #expect(apple.parameters.maximumPerWindow == 5 && apple.parameters.window == 10)
        #expect(apple.parameters.goodbyeDuration == 2)
        #expect(apple.parameters.advertisementCurrentLifetime == 248)
        #expect(apple.parameters.advertisementValidLifetime == 256)
        #expect((10...12).contains(apple.peerSilenceTimeout))
        let instant = BeaconSchedule(profile: .instant)
        #expect(instant.peerSilenceTimeout == 4 && instant.refreshInterval == 1)
        #expect(TimingProfile(rawValue: "apple") == .apple && TimingProfile(rawValue: "instant") == .instant)
    }
}
