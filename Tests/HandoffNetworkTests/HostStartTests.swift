import Foundation
import HandoffCore
import HandoffProcesses
import Testing

@testable import HandoffBench
@testable import HandoffNetwork

#if canImport(Glibc)
import Glibc
#endif

/// What a host does before ``DeviceHost/start()`` and what start does: a terminal device makes its
/// host, installs its apps and draws its first frame before it joins the network, so the host's
/// TLS contexts are made by start, and start says anything they cannot be made from.
@Suite("A host's start", .serialized)
struct HostStartTests {
    func temporaryStore() -> AccountStore {
        AccountStore(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent(
                "handoff-host-start-\(UUID().uuidString)"))
    }

    /// One device, "Alpha", of account `name` in `store`, and options on a free discovery port.
    func alpha(
        of name: String, in store: AccountStore
    ) throws -> (account: Account, identity: DeviceIdentity, options: NetworkOptions) {
        let account = try store.createAccount(named: name)
        let identity = try store.deviceIdentity(named: "Alpha", kind: .phone, in: account.name)
        return (
            account, identity, NetworkOptions(discoveryPort: try FloorBench.freeUDPPort(), lan: false, timing: .instant)
        )
    }

    @Test func aHostIsMadeWithoutJoiningAndSaysSoUntilStarted() async throws {
        let store = temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.directory) }
        let (account, identity, options) = try alpha(of: "start", in: store)
        let host = try DeviceHost(identity: identity, account: account, store: store, options: options)
        #expect(!host.performAndWait { _ in host.isStarted })
        #expect(host.discoveryMode == "not started")
        try await host.start()
        #expect(host.performAndWait { _ in host.isStarted })
        #expect(host.sessionPort > 0)
        await host.shutdown()
    }

    @Test func anIdentityThatCannotMakeTheTLSContextsFailsAtStartNamingIt() async throws {
        let store = temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.directory) }
        let first = try store.createAccount(named: "first")
        let second = try store.createAccount(named: "second")
        // A device of the first account, with the second account's authority to trust: its
        // certificate was not issued by that authority.
        let identity = try store.deviceIdentity(named: "Alpha", kind: .phone, in: first.name)
        let options = NetworkOptions(discoveryPort: try FloorBench.freeUDPPort(), lan: false, timing: .instant)
        let host = try DeviceHost(identity: identity, account: second, store: store, options: options)
        await #expect {
            try await host.start()
        } throws: { error in
            "\(error)".contains("was not issued by account second's authority")
        }
        #expect(!host.performAndWait { _ in host.isStarted })
        await host.shutdown()
    }

    /// `handoff device --session-port`: the sessions listen where they are told, and a port
    /// another socket holds is one clear error, not a crash or a port of the kernel's choice.
    @Test func aGivenSessionPortIsUsedAndOneInUseIsNamed() async throws {
        let store = temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.directory) }
        var (account, identity, options) = try alpha(of: "ports", in: store)
        let heldPort: Int
        do {
            // A listening socket holds a port of the kernel's choice (closed at the end of this block).
            let held = try RawSocket(type: SOCK_STREAM)
            try held.bind(address: inet_addr("127.0.0.1"), port: 0)
            try held.listen()
            heldPort = try held.localPort()
            options.sessionPort = heldPort
            let refused = try DeviceHost(identity: identity, account: account, store: store, options: options)
            await #expect(throws: PortInUse(.session, port: heldPort)) { try await refused.start() }
            #expect(!refused.performAndWait { _ in refused.isStarted })
            await refused.shutdown()
            #expect(
                "\(PortInUse(.session, port: heldPort))"
                    == "the TCP session port \(heldPort) is in use by another program"
            )
            withExtendedLifetime(held) {}
        }

        // A port nothing holds is taken as given: one below Linux's ephemeral range, so that no
        // socket bound to port 0 takes it meanwhile (another tried if a test took it meanwhile).
        var started: DeviceHost?
        for port in DiscoveryPort.freeSessionPorts(5) where started == nil {
            options.sessionPort = port
            let host = try DeviceHost(identity: identity, account: account, store: store, options: options)
            do {
                try await host.start()
                started = host
            } catch is PortInUse {
                await host.shutdown()
            }
        }
        let host = try #require(started)
        #expect(host.sessionPort == options.sessionPort && host.sessionPort != heldPort)
        await host.shutdown()
    }

    /// An app may make its activity current before its device has joined the network (a terminal
    /// device's apps launch with its first frame): the first beacon offers it.
    @Test func theFirstBeaconOffersAnActivityMadeCurrentBeforeTheStart() async throws {
        let world = try BenchWorld(names: ["Laptop", "Phone"], fetchTimeout: 5, connectTimeout: 5)
        let (laptop, phone) = (world.hosts[0], world.hosts[1])
        LoopbackApp.install(on: world.hosts)
        laptop.performAndWait { device in LoopbackApp.becomeCurrent(on: device, page: 3) }
        #expect(laptop.performAndWait { device in device.system.advertisement != nil })
        do {
            try await world.start()
            let id = laptop.identity.id
            try await waitUntil("Phone hears Laptop's offer", timeout: .seconds(30)) {
                phone.performAndWait { device in device.system.offers[id] != nil }
            }
        } catch {
            await world.shutdown()
            throw error
        }
        await world.shutdown()
    }
}
