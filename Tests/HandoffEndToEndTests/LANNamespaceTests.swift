import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two "hosts" on one LAN: Linux network namespaces joined by a veth pair, each running a real
/// `handoff device --headless --lan` (through `ip netns exec`). Nothing but the veth link joins
/// them: each has its own loopback, and neither has a default route, so discovery must cross the
/// link by multicast or subnet broadcast.
///
/// Needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN) and iproute2; skipped otherwise.
@Suite(
    "LAN across network namespaces", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil, "the handoff executable was not built next to the tests"),
    .enabled(
        if: NamespacePair.isAvailable,
        "network namespaces are not available here: needs root, iproute2's `ip` and permission for `ip netns add`"))
struct LANNamespaceTests {
    static let readingType = "com.handoffsim.reader.reading"

    /// With multicast on the link, discovery goes by multicast through the veth (there is no
    /// route for the group, so the channel picks the interface); with multicast off, by the
    /// subnet's broadcast address.
    @Test("two hosts discover each other and continue an activity", arguments: [true, false])
    func discoverAndContinue(multicast: Bool) throws {
        let pair = try NamespacePair(multicast: multicast)
        defer { pair.remove() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-lan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var processes: [HeadlessProcess] = []
        defer {
            // Before the namespaces go: a process keeps its namespace alive.
            for process in processes {
                process.closeInput()
                if process.waitForExit(timeout: 5) == nil { process.kill() }
                _ = process.waitForExit(timeout: 5)
            }
            try? FileManager.default.removeItem(at: directory)
        }
        let account = "lan-\(UUID().uuidString.prefix(8).lowercased())"
        let port = DiscoveryPort.random()
        func start(_ name: String, kind: String, in namespace: Int) throws -> HeadlessProcess {
            let launcher = try pair.launcher(for: namespace, in: directory)
            let arguments = [
                "--kind", kind, "--lan", "--port", String(port), "--config-dir", directory.path, "--account", account,
                "--fetch-timeout", "3",
            ]
            // A script just written can be "busy" (ETXTBSY) for a moment while another test's
            // fork still holds a copy of its descriptor: try again shortly.
            var attempt = 0
            var started: HeadlessProcess?
            while started == nil {
                do {
                    started = try HeadlessProcess(name: name, arguments: arguments, executable: launcher)
                } catch  where attempt < 20 && NamespacePair.isBusy(error) {
                    attempt += 1
                    usleep(50_000)
                }
            }
            let process = try #require(started)
            processes.append(process)
            _ = try #require(
                process.waitFor(timeout: 30) { $0["event"] as? String == "ready" },
                "\(name) did not start in \(pair.names[namespace]): \(process.standardError)")
            return process
        }
        let laptop = try start("Laptop", kind: "laptop", in: 0)
        let phone = try start("Phone", kind: "phone", in: 1)

        for process in [laptop, phone] {
            let ready = try #require(process.received.first { $0["event"] as? String == "ready" })
            let mode = ready["discovery"] as? String ?? ""
            if multicast {
                #expect(mode.contains("multicast 239.255.72.79:\(port) (TTL 1, via veth0)"), "\(mode)")
            } else {
                #expect(!mode.contains("multicast"), "\(mode)")
                #expect(mode.contains("subnet broadcast \(pair.subnet).255:\(port) (veth0)"), "\(mode)")
            }
        }

        let userInfo: [String: Any] = [
            "page": 7, "scroll": 0.5, "document": "moby.txt", "chapters": [1, 2, 3],
            "notes": ["a": "b"],
        ]
        try laptop.send(["cmd": "become-current", "type": Self.readingType, "title": "Moby-Dick", "userInfo": userInfo])
        let offer = phone.waitForLifecycle("offerReceived", timeout: 10) { $0["peer"] as? String == "Laptop" }
        try #require(
            offer != nil, "the phone never saw the laptop's offer across the veth link: \(phone.standardError)")

        let laptopID = try #require(
            (laptop.received.first { $0["event"] as? String == "ready" }?["device"]
                as? [String: Any])?["id"] as? String)
        let mark = phone.received.count
        try phone.send(["cmd": "continue", "peer": laptopID])
        let restored = try #require(
            phone.waitFor(after: mark, timeout: 10) { $0["event"] as? String == "restored" },
            "no restore: \(phone.received.suffix(6))")
        let restoredInfo = try #require(restored["userInfo"] as? [String: Any])
        // Compared as canonical JSON (sorted keys): the same keys, values and nesting.
        func canonical(_ object: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        #expect(try canonical(restoredInfo) == canonical(userInfo))
        #expect(laptop.waitForLifecycle("wasContinued", timeout: 5) != nil)
    }
}

/// Two network namespaces joined by a veth pair (`veth0` in each, 10.x.y.1/24 and 10.x.y.2/24, no
/// default route), uniquely named per run. ``remove()`` deletes them, which also destroys the
/// link; namespaces left behind by a run that crashed are removed by the next one.
final class NamespacePair: @unchecked Sendable {
    static let prefix = "hsim-lan-"
    let names: [String]
    /// "10.x.y": the link's /24.
    let subnet: String
    private var removed = false

    /// Where `ip` is, if anywhere.
    static let ip: String? = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether namespaces can be made here: `ip netns add` is tried once (and undone).
    static let isAvailable: Bool = {
        guard ip != nil, geteuid() == 0 else { return false }
        let probe = "\(prefix)\(getpid())-probe"
        guard (try? run(["netns", "add", probe]))?.status == 0 else { return false }
        _ = try? run(["netns", "del", probe])
        return true
    }()

    init(multicast: Bool) throws {
        Self.removeStale()
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        names = ["\(Self.prefix)\(getpid())-\(tag)-a", "\(Self.prefix)\(getpid())-\(tag)-b"]
        subnet = "10.\(Int.random(in: 64...250)).\(Int.random(in: 1...250))"
        do {
            for name in names { try Self.must(["netns", "add", name]) }
            try Self.must([
                "link", "add", "veth0", "netns", names[0], "type", "veth", "peer", "name", "veth0", "netns", names[1],
            ])
            for (index, name) in names.enumerated() {
                try Self.must(["-n", name, "addr", "add", "\(subnet).\(index + 1)/24", "dev", "veth0"])
                if !multicast { try Self.must(["-n", name, "link", "set", "veth0", "multicast", "off"]) }
                try Self.must(["-n", name, "link", "set", "veth0", "up"])
                try Self.must(["-n", name, "link", "set", "lo", "up"])
            }
            try waitForCarrier()
        } catch {
            remove()
            throw error
        }
    }

    /// Waits until both ends of the link report a carrier (the kernel may take up to a second).
    private func waitForCarrier() throws {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let states = try names.map { try Self.run(["-n", $0, "link", "show", "veth0"]).output }
            if states.allSatisfy({ $0.contains("LOWER_UP") }) { return }
            usleep(20_000)
        }
        throw Failure(description: "the veth link between \(names[0]) and \(names[1]) did not come up within 5 s")
    }

    deinit { remove() }

    /// Deletes both namespaces (and so the veth pair). Safe to call more than once.
    func remove() {
        guard !removed else { return }
        removed = true
        for name in names { _ = try? Self.run(["netns", "del", name]) }
    }

    /// A script that runs `handoff` with its arguments inside namespace `index` (HeadlessProcess
    /// starts an executable directly; `exec` keeps the process ID, so signals reach `handoff`).
    func launcher(for index: Int, in directory: URL) throws -> URL {
        let executable = try #require(HandoffExecutable.url)
        let ip = try #require(Self.ip)
        let script = directory.appendingPathComponent("in-\(names[index]).sh")
        try "#!/bin/sh\nexec \(ip) netns exec \(names[index]) \(executable.path) \"$@\"\n"
            .write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return script
    }

    /// Whether `error` (from starting a process) is ETXTBSY: another thread's child, forked while
    /// the script was being written, still held it open for writing for a moment. Children are
    /// started with `posix_spawn` (ChildProcess), whose error carries the number; the NSError
    /// forms are those of Foundation's Process, which the package no longer uses.
    static func isBusy(_ error: any Error) -> Bool {
        if let spawn = error as? ChildProcess.SpawnError { return spawn.errorNumber == ETXTBSY }
        let error = error as NSError
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        return (error.domain == NSPOSIXErrorDomain && error.code == Int(ETXTBSY))
            || (underlying?.domain == NSPOSIXErrorDomain && underlying?.code == Int(ETXTBSY))
    }

    /// Removes namespaces of this suite whose test process is gone.
    static func removeStale() {
        guard let listing = try? run(["netns", "list"]), listing.status == 0 else { return }
        for line in listing.output.split(separator: "\n") {
            guard let name = line.split(separator: " ").first.map(String.init), name.hasPrefix(prefix),
                let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            _ = try? run(["netns", "del", name])
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func must(_ arguments: [String]) throws {
        let result = try run(arguments)
        guard result.status == 0 else {
            throw Failure(
                description: "ip \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.output)")
        }
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let ip else { throw Failure(description: "no ip command") }
        let (termination, output) = try ChildProcess.run(ip, arguments)
        return (termination.status, output)
    }
}
