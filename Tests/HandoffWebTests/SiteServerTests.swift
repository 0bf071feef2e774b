import Foundation
import HandoffCore
import NIOCore
import Testing

@testable import HandoffWeb

#if canImport(Glibc)
import Glibc
#endif

/// The real server on loopback, in this process: HTTPS with the local authority, the hosts map,
/// every rehearsal's outcome as a device's verifier sees it, and a stopped server.
@Suite("The local web over HTTPS on loopback", .serialized)
struct SiteServerTests {
    static let appID = "SIMTEAM001.com.handoffsim.map"

    /// A sites folder with one approving site, and a web folder, both temporary.
    struct World {
        let root: URL
        let sites: URL
        let folder: WebFolder

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-web-\(UUID().uuidString)")
            sites = root.appendingPathComponent("sites")
            folder = WebFolder(url: root.appendingPathComponent("web"))
            for host in ["maps.example.test", "other.example.test"] {
                let site = sites.appendingPathComponent(host)
                try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
                try Data(#"{"activitycontinuation": {"apps": ["SIMTEAM001.com.handoffsim.map"]}}"#.utf8)
                    .write(to: site.appendingPathComponent(SiteAssociationFile.fileName))
            }
        }

        func start(
            _ rehearsals: [String: Rehearsal] = [:], idleTimeout: Duration = .seconds(10),
            maximumConnections: Int = SiteServer.defaultMaximumConnections
        ) async throws -> SiteServer {
            try await SiteServer.start(
                SiteServer.Configuration(
                    sites: sites, hosts: ["maps.example.test", "other.example.test"],
                    pages: { url in
                        SiteResponse(
                            status: 200, contentType: "text/x-handoff-page", body: Data("# \(url.path)\n".utf8))
                    },
                    folder: folder, rehearsals: rehearsals, maxAge: 120, idleTimeout: idleTimeout,
                    maximumConnections: maximumConnections))
        }

        func outcome(timeout: Double = 5) async -> (AssociationOutcome, SiteAssociationCheck) {
            let verifier = SiteAssociationVerifier(folder: folder, timeout: timeout)
            let check = await verifier.check(
                AssociatedDomain(host: "maps.example.test"), applicationIdentifier: SiteServerTests.appID,
                bundleIdentifier: "com.handoffsim.map")
            return (check.outcome, check)
        }
    }

    /// `request` sent as it is over a plain TCP connection to the HTTP port; what came back
    /// before the server closed the connection (a deadline of 30 s fails the test).
    static func raw(_ request: [UInt8], port: Int) throws -> String {
        let descriptor = try connection(to: port, receiveTimeout: 30)
        defer { close(descriptor) }
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { break }
            try #require(count > 0, "no answer and no close within 30 s (errno \(errno))")
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Any Host a client sends is answered (421 for one this server does not serve) and the
    /// server goes on serving; it used to end on a force unwrap building a URL from "a b".
    @Test func aHostileHostHeaderIsAnsweredAndTheServerGoesOn() async throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.root) }
        let server = try await world.start()
        defer { Task { await server.stop() } }
        let port = try #require(server.httpPort)
        let hosts: [[UInt8]] =
            ["a b", "{", "\"", "%zz", "<", "\\", "^", "maps.example.test%zz"].map { Array($0.utf8) }
            + [[0xC2, 0x85], Array("x\u{1B}]0;owned\u{7}".utf8)]
        for host in hosts {
            let request =
                Array("GET /{%zz HTTP/1.1\r\nHost: ".utf8) + host + Array("\r\nConnection: close\r\n\r\n".utf8)
            // A 4xx answer, or a close without one: a header that is not HTTP at all (a control
            // character in it) is refused by the parser before any handler runs.
            let answer = try await Task.detached { try Self.raw(request, port: port) }.value
            #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 4"), "Host \(host): \(answer.prefix(80))")
        }
        // A served host with a target no URL can hold is a bad request, not a crash.
        let badTarget = Array("GET /{%zz HTTP/1.1\r\nHost: maps.example.test\r\nConnection: close\r\n\r\n".utf8)
        let answer = try await Task.detached { try Self.raw(badTarget, port: port) }.value
        #expect(answer.hasPrefix("HTTP/1.1 400") || answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(80))")
        // Still serving, over HTTPS too.
        let client = try WebClient(folder: world.folder)
        let page = try await client.get(
            URL(string: "https://maps.example.test/after")!, timeout: 5, maximumBytes: 10_000)
        #expect(page.status == 200)
        #expect(await world.outcome().0 == .approved)
    }

    /// A socket connected to 127.0.0.1:`port` whose reads give up after `receiveTimeout` seconds.
    static func connection(to port: Int, receiveTimeout: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        return descriptor
    }

    /// A connected socket to 127.0.0.1:`port` that sends nothing (or only `partial`).
    static func silentConnection(to port: Int, partial: String = "") throws -> Int32 {
        let descriptor = try connection(to: port, receiveTimeout: 10)
        if !partial.isEmpty {
            _ = Array(partial.utf8).withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        }
        return descriptor
    }

    /// Silent, half-sent and never-handshaking connections are closed after the idle timeout,
    /// at most `maximumConnections` are open at once, and a real request is served meanwhile.
    /// (It used to keep every such connection forever.)
    @Test(.timeLimit(.minutes(1)))
    func silentAndSlowConnectionsAreClosedAndCappedWhileRealRequestsGoOn() async throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.root) }
        let server = try await world.start(idleTimeout: .milliseconds(500), maximumConnections: 4)
        defer { Task { await server.stop() } }
        let plain = try #require(server.httpPort)
        // Twelve connections: silent ones, one with half a request's headers, and silent ones
        // on the HTTPS port (a TLS handshake that never starts).
        var sockets: [Int32] = []
        for index in 0..<12 {
            let port = index % 3 == 2 ? server.httpsPort : plain
            sockets.append(
                try Self.silentConnection(to: port, partial: index == 1 ? "GET / HTTP/1.1\r\nHost: maps.exa" : ""))
        }
        let opened = sockets
        defer { opened.forEach { close($0) } }
        // A real client still gets its page, and every silent connection is closed by the server.
        let client = try WebClient(folder: world.folder)
        let page = try await client.get(
            URL(string: "https://maps.example.test/real")!, timeout: 10, maximumBytes: 10_000)
        #expect(page.status == 200)
        let closed = await Task.detached {
            opened.map { descriptor -> Bool in
                var byte: UInt8 = 0
                return recv(descriptor, &byte, 1, 0) == 0  // end of stream, not the 10 s receive timeout
            }
        }.value
        #expect(closed.allSatisfy { $0 }, "closed by the server: \(closed)")
    }

    /// A symbolic link in a site's folder never serves a file from outside it.
    @Test func theAssociationRouteFollowsNoLinkOutOfTheSitesFolder() async throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.root) }
        let secret = world.root.appendingPathComponent("secret.txt")
        try Data("SECRET-OUTSIDE-THE-SITES".utf8).write(to: secret)
        let file = world.sites.appendingPathComponent("maps.example.test").appendingPathComponent(
            SiteAssociationFile.fileName)
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: secret)
        let fifo = world.sites.appendingPathComponent("other.example.test").appendingPathComponent(
            SiteAssociationFile.fileName)
        try FileManager.default.removeItem(at: fifo)
        try #require(mkfifo(fifo.path, 0o600) == 0)
        let server = try await world.start()
        defer { Task { await server.stop() } }
        let port = try #require(server.httpPort)
        for host in ["maps.example.test", "other.example.test"] {
            let request = Array(
                "GET /.well-known/apple-app-site-association HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n"
                    .utf8)
            let answer = try await Task.detached { try Self.raw(request, port: port) }.value
            #expect(answer.hasPrefix("HTTP/1.1 404"), "\(host): \(answer.prefix(80))")
            #expect(!answer.contains("SECRET"))
        }
    }

    @Test func aDeviceFetchesAnApprovingFileOverHTTPSAndKeepsItForMaxAge() async throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.root) }
        let server = try await world.start()
        let (outcome, check) = await world.outcome()
        await server.stop()
        #expect(outcome == .approved)
        #expect(abs(check.expiresAt.timeIntervalSince(check.checkedAt) - 120) < 0.001)
        let map = try HostsMap.read(from: world.folder.hostsMap)
        #expect(map.entry(for: "maps.example.test")?.https == server.httpsPort)
        #expect(map.entry(for: "sub.maps.example.test")?.https == server.httpsPort)
        #expect(map.entry(for: "example.test") == nil)
        let key =
            try FileManager.default.attributesOfItem(atPath: world.folder.authorityKey.path)[.posixPermissions] as? Int
        #expect(key == 0o600)
    }

    /// A signed file (iOS 8) is read once its signature verifies, and says so; a file only at
    /// the site's root is found there once `/.well-known/` answers 404.
    @Test func aSignedFileAndAFileAtTheRootAreReadAndSaySo() async throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.root) }
        let server = try await world.start(["maps.example.test": .signed, "other.example.test": .rootOnly])
        let verifier = SiteAssociationVerifier(folder: world.folder, timeout: 5)
        let signed = await verifier.fetch(host: "maps.example.test")
        let rooted = await verifier.fetch(host: "other.example.test")
        await server.stop()
        #expect(signed.outcome(for: Self.appID) == .approved)
        #expect(signed.path == SiteAssociationVerifier.wellKnownPath)
        #expect(signed.notes.contains { $0.hasPrefix("signed (PKCS #7, as iOS 8 required)") })
        #expect(rooted.outcome(for: Self.appID) == .approved)
        #expect(rooted.path == "/apple-app-site-association")
        #expect(rooted.notes.first?.hasPrefix("not at /.well-known/apple-app-site-association (404)") == true)
    }

    @Test func pagesComeOverHTTPSAndHTTPWithTheHostNamed() async throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.root) }
        let server = try await world.start()
        defer { Task { await server.stop() } }
        let client = try WebClient(folder: world.folder)
        let secure = try await client.get(
            URL(string: "https://maps.example.test/a/b?x=1")!, timeout: 5, maximumBytes: 10_000)
        #expect(secure.status == 200)
        #expect(String(decoding: secure.body, as: UTF8.self) == "# /a/b\n")
        let plain = try await client.get(URL(string: "http://other.example.test/")!, timeout: 5, maximumBytes: 10_000)
        #expect(plain.status == 200)
        await #expect(
            throws: WebFetchError.noAddress(host: "nowhere.example", reason: "not in \(world.folder.hostsMap.path)")
        ) {
            _ = try await client.get(URL(string: "https://nowhere.example/")!, timeout: 5, maximumBytes: 10)
        }
        // A client that does not trust the local authority refuses the server.
        let untrusting = WebClient(hostsMap: client.hostsMap, authority: nil)
        await #expect(throws: WebFetchError.self) {
            _ = try await untrusting.get(URL(string: "https://maps.example.test/")!, timeout: 5, maximumBytes: 10)
        }
    }

    @Test(arguments: [
        (Rehearsal.missing, "notFound"), (.notJSON, "notJSON"), (.wrong, "malformed"), (.unapproving, "notListed"),
        (.wrongContentType, "wrongContentType"), (.redirect, "redirected"), (.redirectLoop, "redirected"),
        (.tooLarge, "tooLarge"), (.signed, "approved"), (.rootOnly, "approved"),
    ])
    func everyRehearsalHasItsOutcome(rehearsal: Rehearsal, outcome: String) async throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.root) }
        let server = try await world.start(["maps.example.test": rehearsal])
        let (result, _) = await world.outcome()
        await server.stop()
        #expect(result.name == outcome, "\(rehearsal): \(result)")
    }

    /// The outcome says it timed out; a fetch that never returned is caught by the time limit (a
    /// wall-clock bound would fail on a loaded machine, where the timer waits for a thread).
    @Test(.timeLimit(.minutes(2)))
    func aServerThatNeverAnswersTimesOutAndAStoppedOneIsUnreachable() async throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.root) }
        let server = try await world.start(["maps.example.test": .hang])
        let (hung, _) = await world.outcome(timeout: 0.5)
        #expect(hung == .timedOut(seconds: 0.5))
        await server.stop()
        let asked = ContinuousClock.now
        let (stopped, check) = await world.outcome()
        // Before tmux sessions stopped inheriting the test process's descriptors, the stopped
        // server's listening socket lived on in a tmux server another test had started, and
        // this fetch timed out against a port that accepted and never answered.
        #expect(stopped.name == "unreachable", "\(stopped) after \(ContinuousClock.now - asked)")
        #expect(check.expiresAt == check.checkedAt, "a failure is not kept: the next launch asks again")
    }

    /// Only the connect's own timeout is a timeout. A refusal seen late (the task resumed after the
    /// timeout on a busy machine) is still unreachable.
    @Test func aRefusedConnectIsUnreachableHoweverLateAndOnlyTheConnectTimeoutTimesOut() {
        let refused = IOError(errnoCode: ECONNREFUSED, reason: "connect")
        #expect(
            WebClient.connectFailure(refused, host: "maps.example.test", address: "127.0.0.1:9", timeout: 0)
                == .unreachable(
                    host: "maps.example.test", reason: "connection refused by 127.0.0.1:9 (nothing listens there)"))
        #expect(
            WebClient.connectFailure(
                ChannelError.connectTimeout(.seconds(5)), host: "maps.example.test",
                address: "127.0.0.1:9", timeout: 5)
                == .timedOut(host: "maps.example.test", seconds: 5))
    }

    /// NIO reports a refusal seen on the socket as "connection reset (error set): Connection
    /// refused (errno: 111)"; the Browser says what happened and where, with no raw errno.
    @Test func systemErrorsAreSentencesWithoutErrno() {
        let late = IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)")
        let reason = WebClient.describe(late, address: "127.0.0.1:8443")
        #expect(reason == "connection refused by 127.0.0.1:8443 (nothing listens there)")
        for code in [ECONNRESET, ETIMEDOUT, EHOSTUNREACH, EADDRNOTAVAIL, EPIPE, 9999] {
            let text = WebClient.describe(
                IOError(errnoCode: code, reason: "read(descriptor:pointer:size:)"), address: "127.0.0.1:9")
            #expect(!text.contains("errno") && !text.contains("descriptor") && text.contains("127.0.0.1:9"), "\(text)")
        }
        #expect(
            WebFetchError.unreachable(host: "maps.example.test", reason: reason).description
                == "maps.example.test is unreachable: connection refused by 127.0.0.1:8443 (nothing listens there)")
    }

    @Test func aBadHostsMapIsAnErrorNamingTheFile() throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.root) }
        try world.folder.create()
        try Data(#"{"hosts": {"maps.example.test": {"address": "10.0.0.1", "https": 443}}}"#.utf8).write(
            to: world.folder.hostsMap)
        #expect(
            throws: WebError.file(
                world.folder.hostsMap.path,
                "maps.example.test: 10.0.0.1 is not a loopback address; the simulator only talks to this machine")
        ) {
            try HostsMap.read(from: world.folder.hostsMap)
        }
        try Data("not json".utf8).write(to: world.folder.hostsMap)
        #expect(throws: WebError.self) { try HostsMap.read(from: world.folder.hostsMap) }
    }
}
