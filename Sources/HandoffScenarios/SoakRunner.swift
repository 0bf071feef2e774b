import Foundation
import HandoffCore
import HandoffProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Two real device processes and thousands of continuations in a row, with faults injected at
/// random: the origin killed and restarted, stopped and continued, silent and slow connections
/// held against its session port, garbage datagrams on the discovery port, hostile clients of
/// the local web server. With a Map manifest, the local web (`handoff web serve`) runs in the
/// loop: every fourth continuation is a web page that the continuing device opens in the Map
/// after checking the site's association file, which expires every 2 s so it is fetched again
/// and again. Both devices share their lifecycle with each other. Every continuation must end
/// as restored or with a documented code (4608, 4609, 4610) within its deadline; memory and
/// descriptors (of the web server too) are sampled after warm-up and at the end. `handoff soak`
/// runs it; the suite runs a short one.
package final class SoakRunner {
    package struct Options: Sendable {
        package var continuations: Int
        /// Chance that a continuation gets a fault (0…1).
        package var faultRate: Double
        package var seed: UInt64
        /// The longest a continuation may take to end, either way.
        package var deadline: TimeInterval
        /// The Map's Info.plist: with it, the local web server runs in the loop and the continuing
        /// device has the Map, which web pages of its domain continue into (nil: no web).
        package var mapManifest: URL?
        /// Both devices share their lifecycle events (`--share-lifecycle`).
        package var shareLifecycle: Bool
        /// Where to say what happens (nil: quiet).
        package var progress: (@Sendable (String) -> Void)?

        package init(
            continuations: Int = 2000, faultRate: Double = 0.25, seed: UInt64 = 1, deadline: TimeInterval = 20,
            mapManifest: URL? = nil, shareLifecycle: Bool = true, progress: (@Sendable (String) -> Void)? = nil
        ) {
            self.continuations = continuations
            self.faultRate = faultRate
            self.seed = seed
            self.deadline = deadline
            self.mapManifest = mapManifest
            self.shareLifecycle = shareLifecycle
            self.progress = progress
        }
    }

    package enum Fault: String, CaseIterable, Sendable {
        case killOrigin = "origin killed and restarted"
        case stopOrigin = "origin stopped and continued"
        case silentConnections = "silent connections held"
        case slowConnections = "slow (slowloris) connections"
        case garbageDatagrams = "garbage datagrams"
        case hostileWebClients = "hostile web clients"

        /// Faults that need the local web in the loop.
        var needsWeb: Bool { self == .hostileWebClients }
    }

    package struct Report: Sendable, CustomStringConvertible {
        package var continuations = 0
        package var restored = 0
        /// Failures by code.
        package var failed: [Int: Int] = [:]
        /// Ended with a code that is not one of the documented ones, or not at all in time.
        package var unexpected: [String] = []
        package var hangs = 0
        package var faults: [Fault: Int] = [:]
        package var originRestarts = 0
        package var seconds: Double = 0
        /// The continuing device (never restarted): resident memory in KiB after warm-up and at the end.
        package var receiverMemory: (warm: Int, end: Int) = (0, 0)
        /// Open descriptors of the continuing device after warm-up and at the end (faults cleared).
        package var receiverDescriptors: (baseline: Int, end: Int) = (0, 0)
        /// The same for the origin since its last restart.
        package var originMemory: (warm: Int, end: Int) = (0, 0)
        package var originDescriptors: (baseline: Int, end: Int) = (0, 0)
        /// The local web server, when it runs: its descriptors, and whether it was still running.
        package var webDescriptors: (baseline: Int, end: Int)?
        package var webRunning = true
        /// Web pages continued: into the Map (its association approved), and into the Browser.
        package var webInApp = 0
        package var webInBrowser = 0
        package var sharing = false
        /// The continuing device's resident memory (KiB) every tenth of the run, for the trend.
        package var receiverMemorySeries: [Int] = []
        /// What each device's descriptors were at the end, by kind, when they did not come back.
        package var descriptorKinds: (receiver: String, origin: String)?

        /// Memory within 16 MiB and 25 % of its warm value on the continuing device.
        package var memoryFlat: Bool {
            receiverMemory.end <= receiverMemory.warm + max(16 * 1024, receiverMemory.warm / 4)
        }
        /// Descriptors back to their baseline (two of slack for a pooled session being replaced).
        package var descriptorsBack: Bool {
            receiverDescriptors.end <= receiverDescriptors.baseline + 2
                && originDescriptors.end <= originDescriptors.baseline + 2
                && webDescriptors.map { $0.end <= $0.baseline + 2 } ?? true
        }
        package var passed: Bool {
            hangs == 0 && unexpected.isEmpty && restored > 0 && memoryFlat && descriptorsBack && webRunning
        }

        package var description: String {
            let codes = failed.keys.sorted().map { "\($0): \(failed[$0]!)" }.joined(separator: ", ")
            let faultText = Fault.allCases.map { "\($0.rawValue) \(faults[$0, default: 0])" }.joined(separator: ", ")
            return """
                continuations: \(continuations) in \(String(format: "%.0f", seconds)) s: restored \(restored), failed \(failed.values.reduce(0, +))\(codes.isEmpty ? "" : " (\(codes))"), hung \(hangs), unexpected \(unexpected.count)
                faults: \(faultText); origin restarts \(originRestarts)
                continuing device: memory \(receiverMemory.warm / 1024) MiB after warm-up → \(receiverMemory.end / 1024) MiB at the end (\(memoryFlat ? "flat" : "GREW")); descriptors \(receiverDescriptors.baseline) → \(receiverDescriptors.end)
                continuing device's memory every tenth of the run (MiB): \(receiverMemorySeries.map { String($0 / 1024) }.joined(separator: " "))
                origin (since its last restart): memory \(originMemory.warm / 1024) MiB → \(originMemory.end / 1024) MiB; descriptors \(originDescriptors.baseline) → \(originDescriptors.end) (\(descriptorsBack ? "back to baseline" : "NOT back"))
                \(webDescriptors.map { "local web server: \(webRunning ? "running" : "GONE"); descriptors \($0.baseline) → \($0.end); web pages continued in the Map \(webInApp), in the Browser \(webInBrowser)\n" } ?? "")lifecycle sharing: \(sharing ? "on" : "off")
                \(descriptorKinds.map { "descriptors at the end: continuing device \($0.receiver); origin \($0.origin)\n" } ?? "")\(passed ? "soak: passed" : "soak: FAILED")\(unexpected.prefix(5).map { "\n  \($0)" }.joined())
                """
        }
    }

    static let readingType = "com.handoffsim.reader.reading"
    static let documentedCodes: Set<Int> = [4608, 4609, 4610]

    let executable: URL
    let options: Options
    let directory: URL
    let account: String
    let port: Int
    /// Seeded, so a soak's faults can be replayed with its seed.
    var random: SplitMix64
    var origin: HeadlessProcess?
    var receiver: HeadlessProcess?
    var originID = ""
    var report = Report()
    /// The local web server, when the soak has the web in its loop.
    var web: ChildProcess?
    var webPorts: (https: Int, http: Int) = (0, 0)
    /// Whether the origin's current activity is the web page (else the reading activity).
    var offeredWeb = false
    /// The fault of the continuation before, named when a continuation without one fails.
    var previousFault: Fault?

    package init(executable: URL, options: Options) {
        self.executable = executable
        self.options = options
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-soak-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        account = "soak-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        port = DiscoveryPort.random()
        random = SplitMix64(seed: options.seed)
    }

    deinit {
        for process in [origin, receiver].compactMap({ $0 }) {
            kill(process.process.processIdentifier, SIGCONT)
            process.closeInput()
            if process.waitForExit(timeout: 5) == nil { process.kill() }
        }
        if let web {
            web.terminate()
            if web.waitForExit(timeout: 5) == nil { web.send(SIGKILL) }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    func say(_ text: String) { options.progress?(text) }

    static let webPage = "https://maps.handoffsim.example/?lat=38.7&lon=-9.1&z=6"
    var webDirectory: URL { directory.appendingPathComponent("web", isDirectory: true) }

    func start(_ name: String, kind: String) throws -> HeadlessProcess {
        var extra: [String] = []
        if options.shareLifecycle { extra.append("--share-lifecycle") }
        if let map = options.mapManifest {
            extra += ["--web-dir", webDirectory.path, "--apps", "reader,browser"]
            if kind != "laptop" { extra += ["--install", map.path] }
        }
        let process = try HeadlessProcess(
            name: name,
            arguments: [
                "--kind", kind, "--account", account, "--port", String(port), "--config-dir", directory.path,
                "--fetch-timeout", "5",
            ] + extra, executable: executable)
        guard process.waitFor(timeout: 30, where: { $0["event"] as? String == "ready" }) != nil else {
            throw Failure(description: "\(name) did not start: \(process.standardError.suffix(500))")
        }
        return process
    }

    static func deviceID(of process: HeadlessProcess) -> String? {
        (process.received.first { $0["event"] as? String == "ready" }?["device"] as? [String: Any])?["id"] as? String
    }

    /// `handoff web serve` on free ports with the soak's web folder, its association files
    /// expiring every 2 s (so devices fetch them again and again); waits until it serves.
    func startWeb() throws {
        let log = directory.appendingPathComponent("web.log").path
        let process: ChildProcess
        do {
            process = try ChildProcess(
                executable: executable.path,
                arguments: [
                    "web", "serve", "--port", "0", "--http-port", "0", "--web-dir", webDirectory.path,
                    "--max-age", "2",
                ],
                standardOutput: .file(log), standardError: .standardOutput)
        } catch {
            throw Failure(description: "the local web server did not start: \(error)")
        }
        web = process
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if text.contains("Ctrl-C stops."), let ports = Self.webPorts(in: text) {
                webPorts = ports
                return
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        throw Failure(
            description:
                "the local web server did not start: \(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").suffix(500))"
        )
    }

    /// The ports in `handoff web serve`'s first line ("… on 127.0.0.1: https N, http M").
    static func webPorts(in text: String) -> (https: Int, http: Int)? {
        guard let line = text.split(separator: "\n").first(where: { $0.contains(": https ") }),
            let range = line.range(of: ": https ")
        else { return nil }
        let parts = line[range.upperBound...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let https = Int(parts[0]), parts[1].hasPrefix("http "),
            let http = Int(parts[1].dropFirst(5))
        else { return nil }
        return (https, http)
    }

    /// Makes the origin's activity current (the reading activity, or the Map's web page in its
    /// Browser) and waits until the receiver has its offer.
    func offer(serial: Int, web: Bool = false) throws {
        guard let origin, let receiver else { return }
        let mark = receiver.received.count
        if web {
            try origin.send([
                "cmd": "become-current", "type": "NSUserActivityTypeBrowsingWeb", "app": "com.handoffsim.browser",
                "title": "Lisbon", "webpageURL": Self.webPage, "userInfo": ["scroll": serial],
            ])
        } else {
            try origin.send([
                "cmd": "become-current", "type": Self.readingType, "title": "Soak",
                "userInfo": ["page": serial, "soak": true],
            ])
        }
        offeredWeb = web
        guard
            receiver.waitFor(
                after: mark, timeout: 15,
                where: {
                    $0["event"] as? String == "lifecycle" && $0["kind"] as? String == "offerReceived"
                        && $0["peer"] as? String == origin.name
                }) != nil
        else {
            throw Failure(description: "no offer from the origin reached the continuing device")
        }
    }

    func restartOrigin() throws {
        origin?.kill()
        _ = origin?.waitForExit(timeout: 10)
        origin = try start("Soak Origin", kind: "laptop")
        originID = Self.deviceID(of: origin!) ?? ""
        report.originRestarts += 1
        offeredWeb = false
        try offer(serial: 0)
    }

    static func residentKiB(_ process: HeadlessProcess) -> Int {
        guard
            let text = try? String(
                contentsOfFile: "/proc/\(process.process.processIdentifier)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    static func descriptors(_ process: HeadlessProcess) -> Int {
        descriptors(of: process.process.processIdentifier)
    }

    static func descriptors(of pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    static func sessionPort(_ process: HeadlessProcess) -> Int {
        process.received.first { $0["event"] as? String == "ready" }?["sessionPort"] as? Int ?? 0
    }

    /// Runs the soak; the report says what happened (``Report/passed``).
    package func run() throws -> Report {
        let begin = Date()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if options.mapManifest != nil { try startWeb() }
        report.sharing = options.shareLifecycle
        origin = try start("Soak Origin", kind: "laptop")
        originID = Self.deviceID(of: origin!) ?? ""
        receiver = try start("Soak Phone", kind: "phone")
        try offer(serial: 0)
        let warmUp = max(5, options.continuations / 20)
        for index in 0..<options.continuations {
            if index == warmUp {
                try settle()
                sample(warm: true)
            }
            if index % max(1, options.continuations / 10) == 0, let receiver {
                report.receiverMemorySeries.append(Self.residentKiB(receiver))
            }
            let kinds = Fault.allCases.filter { !$0.needsWeb || web != nil }
            let fault: Fault? =
                random.nextDouble() < options.faultRate ? kinds[Int(random.next() % UInt64(kinds.count))] : nil
            try continueOnce(index: index, fault: fault)
            if (index + 1) % 100 == 0 {
                say(
                    "soak: \(index + 1)/\(options.continuations): restored \(report.restored), failed \(report.failed.values.reduce(0, +)), hung \(report.hangs)"
                )
            }
        }
        if options.continuations <= warmUp {
            try settle()
            sample(warm: true)
        }
        try settle(baseline: (report.receiverDescriptors.baseline, report.originDescriptors.baseline))
        sample(warm: false)
        if !report.descriptorsBack, let origin, let receiver {
            report.descriptorKinds = (Self.descriptorKinds(receiver), Self.descriptorKinds(origin))
        }
        report.seconds = Date().timeIntervalSince(begin)
        return report
    }

    private func sample(warm: Bool) {
        guard let origin, let receiver else { return }
        if warm {
            report.receiverMemory.warm = Self.residentKiB(receiver)
            report.receiverDescriptors.baseline = Self.descriptors(receiver)
            report.originMemory.warm = Self.residentKiB(origin)
            report.originDescriptors.baseline = Self.descriptors(origin)
            if let web { report.webDescriptors = (Self.descriptors(of: web.processIdentifier), 0) }
        } else {
            report.receiverMemory.end = Self.residentKiB(receiver)
            report.receiverDescriptors.end = Self.descriptors(receiver)
            report.originMemory.end = Self.residentKiB(origin)
            report.originDescriptors.end = Self.descriptors(origin)
            if let web {
                report.webRunning = web.isRunning
                report.webDescriptors?.end = Self.descriptors(of: web.processIdentifier)
            }
        }
    }

    /// Continues once more without a fault, so pooled sessions are in their steady state, then
    /// waits (with a deadline) for the descriptors to come back after the last faults: to the
    /// baseline when there is one, else until the counts stop falling for a second.
    private func settle(baseline: (receiver: Int, origin: Int)? = nil) throws {
        try continueOnce(index: options.continuations, fault: nil, counted: false)
        guard let origin, let receiver else { return }
        let deadline = Date().addingTimeInterval(10)
        if let baseline {
            _ = waitForDescriptors(of: receiver, atMost: baseline.receiver + 2, seconds: 10)
            _ = waitForDescriptors(
                of: origin, atMost: baseline.origin + 2, seconds: max(0, deadline.timeIntervalSinceNow))
            // The web server closes idle connections after 10 s.
            if let web, let webBaseline = report.webDescriptors?.baseline {
                _ = waitForDescriptors(of: web.processIdentifier, atMost: webBaseline + 2, seconds: 15)
            }
            return
        }
        // Connections of the last faults are closed by the devices on their own schedule.
        var last = (Self.descriptors(receiver), Self.descriptors(origin))
        var steady = 0
        while Date() < deadline, steady < 10 {
            usleep(100_000)
            let now = (Self.descriptors(receiver), Self.descriptors(origin))
            steady = now == last ? steady + 1 : 0
            last = now
        }
    }

    /// Waits until `process` holds at most `limit` descriptors (and, given a port, nothing waits
    /// in that listener's accept queue); nil once it does, else what it still holds when
    /// `seconds` have passed.
    private func waitForDescriptors(
        of process: HeadlessProcess, atMost limit: Int, queuedAt port: Int? = nil,
        seconds: TimeInterval
    ) -> (count: Int, kinds: String, queued: Int)? {
        waitForDescriptors(of: process.process.processIdentifier, atMost: limit, queuedAt: port, seconds: seconds)
    }

    private func waitForDescriptors(
        of pid: pid_t, atMost limit: Int, queuedAt port: Int? = nil,
        seconds: TimeInterval
    ) -> (count: Int, kinds: String, queued: Int)? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let count = Self.descriptors(of: pid)
            let queued = port.map(Self.acceptQueue) ?? 0
            if count <= limit, queued == 0 { return nil }
            if Date() >= deadline { return (count, Self.descriptorKinds(of: pid), queued) }
            usleep(50_000)
        }
    }

    /// A file of /proc read whole: its files report no size, and `String(contentsOfFile:)` reads
    /// only their first 4 KiB (27 lines of /proc/net/tcp, on a machine with thousands of sockets).
    static func procFile(_ path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    }

    /// The local ports of `sockets` (this process's ends of a fault's connections).
    static func localPorts(_ sockets: [Int32]) -> Set<Int> {
        Set(
            sockets.compactMap { socket -> Int? in
                var address = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let result = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
                }
                return result == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
            })
    }

    /// How many of `pid`'s sockets are TCP connections to one of `ports` on 127.0.0.1: the ends
    /// of a fault's connections that a device still holds.
    static func heldConnections(of pid: pid_t, to ports: Set<Int>) -> Int {
        guard !ports.isEmpty else { return 0 }
        let sockets = tcpSockets(tables: ["/proc/net/tcp"])
        return descriptorTargets(of: pid).count { target in
            socketInode(target).flatMap { sockets[$0] }.map { ports.contains($0.remotePort) } ?? false
        }
    }

    /// A line of /proc/net/tcp(6): the local and remote ports, the state, the receive queue (for
    /// a listener: connections waiting to be accepted).
    struct TCPSocket {
        var localPort: Int
        var remotePort: Int
        var state: Substring
        var receiveQueue: Int
    }

    /// The TCP sockets of `tables`, by inode.
    static func tcpSockets(tables: [String] = ["/proc/net/tcp", "/proc/net/tcp6"]) -> [Substring: TCPSocket] {
        var sockets: [Substring: TCPSocket] = [:]
        for table in tables {
            for line in procFile(table).split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9 else { continue }
                func port(_ address: Substring) -> Int {
                    address.split(separator: ":").last.flatMap { Int($0, radix: 16) } ?? 0
                }
                sockets[fields[9]] = TCPSocket(
                    localPort: port(fields[1]), remotePort: port(fields[2]), state: fields[3],
                    receiveQueue: fields[4].split(separator: ":").last.flatMap { Int($0, radix: 16) } ?? 0)
            }
        }
        return sockets
    }

    /// Where each of `pid`'s descriptors points (`socket:[123]`, `pipe:[…]`, a path).
    static func descriptorTargets(of pid: pid_t) -> [String] {
        let directory = "/proc/\(pid)/fd"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).map {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)) ?? "?"
        }
    }

    /// The inode of a `socket:[inode]` descriptor target.
    static func socketInode(_ target: String) -> Substring? {
        target.hasPrefix("socket:[") ? target.dropFirst(8).dropLast() : nil
    }

    /// Waits until `pid` holds none of the connections from `ports` and nothing waits in the
    /// accept queue of `listener` (when given); nil once so, else what is still held.
    private func waitUntilReleased(
        _ ports: Set<Int>, by pid: pid_t, listener: Int?, seconds: TimeInterval
    ) -> (held: Int, queued: Int)? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let held = Self.heldConnections(of: pid, to: ports)
            let queued = listener.map(Self.acceptQueue) ?? 0
            if held == 0, queued == 0 { return nil }
            if Date() >= deadline { return (held, queued) }
            usleep(50_000)
        }
    }

    /// Connections waiting to be accepted by the listener on `port` (its receive queue in
    /// /proc/net/tcp).
    static func acceptQueue(_ port: Int) -> Int {
        tcpSockets(tables: ["/proc/net/tcp"]).values.first { $0.localPort == port && $0.state == "0A" }?.receiveQueue
            ?? 0
    }

    /// What a process's descriptors are, counted by kind (TCP sockets by state), for a report.
    static func descriptorKinds(_ process: HeadlessProcess) -> String {
        descriptorKinds(of: process.process.processIdentifier)
    }

    static func descriptorKinds(of pid: pid_t) -> String {
        let names = [
            "01": "established", "02": "syn-sent", "03": "syn-received", "04": "fin-wait-1", "05": "fin-wait-2",
            "06": "time-wait", "07": "close", "08": "close-wait", "09": "last-ack", "0A": "listen", "0B": "closing",
        ]
        let tcp = tcpSockets()
        var otherSockets: [Substring: String] = [:]
        for (table, kind) in [("/proc/net/udp", "udp"), ("/proc/net/udp6", "udp"), ("/proc/net/unix", "unix")] {
            let column = kind == "unix" ? 6 : 9
            for line in procFile(table).split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > column else { continue }
                otherSockets[fields[column]] = kind
            }
        }
        var counts: [String: Int] = [:]
        for target in descriptorTargets(of: pid) {
            let kind: String
            if let inode = socketInode(target) {
                kind =
                    tcp[inode].map { "tcp \(names[String($0.state)] ?? String($0.state))" } ?? otherSockets[inode]
                    ?? "other socket"
            } else if target.hasPrefix("pipe:") {
                kind = "pipe"
            } else if target.hasPrefix("anon_inode:") {
                kind = String(target.dropFirst(11))
            } else {
                kind = "file"
            }
            counts[kind, default: 0] += 1
        }
        return counts.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    private func continueOnce(index: Int, fault: Fault?, counted: Bool = true) throws {
        guard let receiver, self.origin != nil else { return }
        // Every fourth continuation is the Map's web page, when the web is in the loop.
        let webPage = web != nil && index % 4 == 2
        if webPage != offeredWeb { try offer(serial: index, web: webPage) }
        guard var origin = self.origin else { return }
        var sockets: [Int32] = []
        var webSockets: [Int32] = []
        var stopped = false
        defer {
            for socket in sockets + webSockets { close(socket) }
            if stopped { kill(origin.process.processIdentifier, SIGCONT) }
        }
        if let fault, counted { report.faults[fault, default: 0] += 1 }
        let originPort = Self.sessionPort(origin)
        switch fault {
        case .silentConnections?:
            sockets = (0..<Int(20 + random.next() % 100)).map { _ in Self.connectTCP(originPort) }.filter { $0 >= 0 }
        case .slowConnections?:
            sockets = (0..<Int(10 + random.next() % 30)).map { _ in Self.connectTCP(originPort) }.filter { $0 >= 0 }
            for socket in sockets { _ = send(socket, [0x16, 0x03, 0x01], 3, Int32(MSG_NOSIGNAL)) }
        case .garbageDatagrams?:
            sendGarbage(count: Int(100 + random.next() % 900))
        case .hostileWebClients?:
            webSockets = hostileWebClients()
        default:
            break
        }
        // Half of the kills and stops come before the request (the fetch meets a dead or frozen
        // origin), half just after it (the origin dies or freezes mid-continuation).
        let early = random.next() % 2 == 0
        func injectOriginFault() {
            switch fault {
            case .killOrigin?:
                origin.kill()
                _ = origin.waitForExit(timeout: 5)
            case .stopOrigin?:
                kill(origin.process.processIdentifier, SIGSTOP)
                stopped = true
            default:
                break
            }
        }
        if early { injectOriginFault() }
        let mark = receiver.received.count
        try receiver.send(["cmd": "continue", "peer": originID, "id": "soak-\(index)"])
        if !early {
            usleep(UInt32(random.next() % 5_000))
            injectOriginFault()
        }
        var resumeAt = Date().addingTimeInterval(0.5 + Double(random.next() % 2500) / 1000)
        var outcome: [String: Any]?
        let deadline = Date().addingTimeInterval(options.deadline)
        var trickle = 3
        while outcome == nil, Date() < deadline {
            outcome = receiver.waitFor(after: mark, timeout: 0.25) { line in
                if line["id"] as? String == "soak-\(index)", line["ok"] as? Bool == false { return true }
                let event = line["event"] as? String
                // A web page's app is chosen by its host before the fetch, as a native activity's
                // is: a failed fetch is told to that app too (`continue-failed`).
                return event == "restored" || event == "continue-failed"
            }
            if stopped, Date() >= resumeAt {
                kill(origin.process.processIdentifier, SIGCONT)
                stopped = false
                resumeAt = .distantFuture
            }
            if fault == .slowConnections, trickle < 40 {
                for socket in sockets { _ = send(socket, [0x42], 1, Int32(MSG_NOSIGNAL)) }
                trickle += 1
            }
            if fault == .hostileWebClients, trickle < 40 {
                // Slow headers: a byte per connection per turn, never the blank line.
                for socket in webSockets { _ = send(socket, [0x58], 1, Int32(MSG_NOSIGNAL)) }
                trickle += 1
            }
        }
        // The fault's connections are closed here, and the next continuation starts only once the
        // origin has let go of them: a stranger's connections still queued or pending at the origin
        // would displace the next peer's handshake (the gate closes the oldest pending connection
        // of an address), and a continuation said to be without a fault would meet the last one's.
        // Only the fault's own connections are looked for (by their ports): the devices' pooled
        // sessions come and go on their own schedule.
        if !sockets.isEmpty {
            let ports = Self.localPorts(sockets)
            for socket in sockets { close(socket) }
            sockets = []
            if !stopped,
                let held = waitUntilReleased(
                    ports, by: origin.process.processIdentifier, listener: originPort, seconds: 10)
            {
                report.unexpected.append(
                    "continuation \(index) (\(fault?.rawValue ?? "no fault")): 10 s after its \(ports.count) connections were closed the origin still held \(held.held) of them and \(held.queued) waited to be accepted (\(Self.descriptorKinds(origin)))"
                )
            }
        }
        // The web server outlives its hostile clients, and lets go of them.
        if !webSockets.isEmpty, let web {
            let ports = Self.localPorts(webSockets)
            for socket in webSockets { close(socket) }
            webSockets = []
            if !web.isRunning {
                report.unexpected.append(
                    "continuation \(index) (\(fault?.rawValue ?? "no fault")): the local web server ended (\(web.waitForExit(timeout: 1)?.description ?? "?"))"
                )
            } else if let held = waitUntilReleased(ports, by: web.processIdentifier, listener: nil, seconds: 15) {
                report.unexpected.append(
                    "continuation \(index) (\(fault?.rawValue ?? "no fault")): 15 s after its \(ports.count) hostile clients were closed the web server still held \(held.held) of them (\(Self.descriptorKinds(of: web.processIdentifier)))"
                )
            }
        }
        defer { previousFault = fault }
        guard counted else { return }
        report.continuations += 1
        guard let outcome else {
            report.hangs += 1
            report.unexpected.append(
                "continuation \(index) (\(fault?.rawValue ?? "no fault")) did not end within \(options.deadline) s")
            return try recover(after: fault)
        }
        if outcome["event"] as? String == "restored" {
            report.restored += 1
            if webPage {
                // Into the Map when its association file approved it, else into the Browser.
                let app = outcome["app"] as? String
                if app == "com.handoffsim.map" {
                    report.webInApp += 1
                } else {
                    report.webInBrowser += 1
                    let routed = receiver.received.dropFirst(mark).last {
                        $0["event"] as? String == "lifecycle" && $0["kind"] as? String == "webRouted"
                    }
                    report.unexpected.append(
                        "continuation \(index) (\(fault?.rawValue ?? "no fault")): the web page opened in \(app ?? "?"), not the Map: \(routed?["detail"] ?? "no webRouted event")"
                    )
                }
            }
        } else if outcome["event"] as? String == "continue-failed", let code = outcome["code"] as? Int {
            report.failed[code, default: 0] += 1
            if webPage, let app = outcome["app"] as? String, app != "com.handoffsim.map" {
                // The Map's site approves the page: its failure is the Map's to hear, as Apple tells
                // the app the host chose (didFailToContinue), not the browser or no app at all.
                report.unexpected.append(
                    "continuation \(index) (\(fault?.rawValue ?? "no fault")): the web page's failure (\(code)) was told to \(app), not the Map"
                )
            }
            if !Self.documentedCodes.contains(code) {
                report.unexpected.append(
                    "continuation \(index) (\(fault?.rawValue ?? "no fault")) failed with \(code): \(outcome["reason"] ?? "")"
                )
            }
            if fault == nil {
                let seen = receiver.received.dropFirst(mark).compactMap { line -> String? in
                    guard let event = line["event"] as? String else { return nil }
                    return (line["kind"] as? String).map { "\(event) \($0)" } ?? event
                }
                report.unexpected.append(
                    "continuation \(index) failed with \(code) without a fault (the one before: \(previousFault?.rawValue ?? "none")): \(outcome["reason"] ?? ""); the continuing device said: \(seen.joined(separator: ", "))"
                )
            }
        } else {
            // The command itself was refused (no offer: the origin was gone when it was sent).
            report.failed[0, default: 0] += 1
            if fault == nil || fault == .silentConnections || fault == .garbageDatagrams || fault == .hostileWebClients
            {
                report.unexpected.append("continuation \(index) was refused: \(outcome["error"] ?? "")")
            }
        }
        try recover(after: fault)
        origin = self.origin!
    }

    /// Brings the pair back to "the origin advertises, the receiver has the offer".
    private func recover(after fault: Fault?) throws {
        guard let origin, let receiver else { return }
        if fault == .killOrigin || !origin.process.isRunning {
            try restartOrigin()
            return
        }
        // A stopped origin may have fallen silent long enough for its offer to expire.
        let offered = receiver.received.last { line in
            line["event"] as? String == "lifecycle"
                && ["offerReceived", "offerWithdrawn", "offerExpired"].contains(line["kind"] as? String ?? "")
                && line["peer"] as? String == origin.name
        }
        if offered?["kind"] as? String != "offerReceived" { try offer(serial: 1, web: offeredWeb) }
    }

    /// What a hostile local process does to the web server (issue 24): requests whose Host is
    /// not a host name, a request line and headers too long, and idle and slow connections held
    /// open, over HTTP and HTTPS (the HTTPS ones never start their TLS handshake). Returns the
    /// connections held; the others are answered or closed by the server.
    func hostileWebClients() -> [Int32] {
        var held: [Int32] = []
        let hosts = ["a b", "{", "\"", "%zz", "<", "\\", "^", "\u{85}", "", String(repeating: "h", count: 10_000)]
        for host in hosts {
            let socket = Self.connectTCP(webPorts.http)
            guard socket >= 0 else { continue }
            let request = Array("GET /.well-known/apple-app-site-association HTTP/1.1\r\nHost: \(host)\r\n\r\n".utf8)
            _ = send(socket, request, request.count, Int32(MSG_NOSIGNAL))
            held.append(socket)
        }
        let long = Array("GET /\(String(repeating: "x", count: 100_000)) HTTP/1.1\r\n".utf8)
        let socket = Self.connectTCP(webPorts.http)
        if socket >= 0 {
            _ = send(socket, long, long.count, Int32(MSG_NOSIGNAL))
            held.append(socket)
        }
        for _ in 0..<Int(10 + random.next() % 40) {
            for port in [webPorts.http, webPorts.https] {
                let socket = Self.connectTCP(port)
                if socket >= 0 { held.append(socket) }
            }
        }
        for socket in held.suffix(20) {
            let start = Array("GET / HTTP/1.1\r\nHost: maps.handoffsim.example\r\n".utf8)
            _ = send(socket, start, start.count, Int32(MSG_NOSIGNAL))
        }
        return held
    }

    func sendGarbage(count: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size))
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(port).bigEndian)
        target.sin_addr.s_addr = inet_addr("127.255.255.255")
        for _ in 0..<count {
            let length = Int(random.next() % 200)
            var datagram = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if length > 0, random.next() % 2 == 0 { datagram[0] = 0x01 }  // the beacon version byte
            _ = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, datagram, datagram.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// A TCP connection to 127.0.0.1:`port` (its descriptor), or -1: a neighbour's probe.
    package static func connectTCP(_ port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }
}
