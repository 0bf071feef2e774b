import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

@testable import HandoffNetwork

#if canImport(Glibc)
import Glibc
#endif

/// Account files and device identities are written whole or not at all: `handoff` processes that
/// write them are killed (SIGKILL) at moments spread over their whole run, and after each the
/// account and every device identity still read back, with user-only permissions.
@Suite(
    "Account files survive a kill mid-write", .tags(.endToEnd), .ownThread, .serialized,
    .enabled(if: HandoffExecutable.url != nil))
struct AccountFileCrashTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-crash-\(UUID().uuidString)")

    func run(_ arguments: [String], killAfter delay: TimeInterval?) throws -> (killed: Bool, status: Int32) {
        let executable: URL = try #require(HandoffExecutable.url)
        let process = try ChildProcess(
            executable: executable.path, arguments: arguments + ["--config-dir", directory.path])
        var killed = false
        if let delay {
            let deadline = Date().addingTimeInterval(delay)
            while process.isRunning, Date() < deadline { usleep(500) }
            if process.isRunning {
                process.send(SIGKILL)
                killed = true
            }
        }
        let termination = try #require(process.waitForExit(timeout: 60), "handoff \(arguments.first ?? "") did not end")
        return (killed, termination.status)
    }

    func mode(_ url: URL) -> Int {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return -1 }
        return Int(info.st_mode & 0o777)
    }

    @Test func revocationsAndNewDevicesKilledAtAnyMomentLeaveValidFiles() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = AccountStore(directory: directory)
        _ = try store.createAccount(named: "crash")
        let accountFile = store.accountFile("crash")
        // How long one whole revocation takes, to spread the kills over it.
        let clock = ContinuousClock()
        let start = clock.now
        #expect(
            try run(["account", "devices", "crash", "--revoke", UUID().uuidString.lowercased()], killAfter: nil).status
                == 0)
        let whole =
            Double((clock.now - start).components.attoseconds) / 1e18 + Double((clock.now - start).components.seconds)
        var revoked = try store.account(named: "crash").revokedDevices.count
        var killedCount = 0
        var completed = 0
        for round in 0..<60 {
            let delay = whole * Double(round % 20 + 1) / 20
            let outcome = try run(
                ["account", "devices", "crash", "--revoke", UUID().uuidString.lowercased()], killAfter: delay)
            if outcome.killed { killedCount += 1 } else { completed += 1 }
            // The previous file or the new one, whole: it decodes, keeps every earlier revocation.
            let account = try store.account(named: "crash")
            #expect(account.revokedDevices.count >= revoked, "round \(round): revocations went back")
            #expect(account.revokedDevices.count <= revoked + 1)
            revoked = account.revokedDevices.count
            #expect(
                mode(accountFile) == 0o600, "round \(round): account.json mode \(String(mode(accountFile), radix: 8))")
        }
        // Device identities: a device issues its own at start; kill starts at every moment too.
        for round in 0..<20 {
            let delay = whole * 2 * Double(round + 1) / 20
            let outcome = try run(
                [
                    "device", "--headless", "--account", "crash", "--name", "Crash \(round)", "--port",
                    String(DiscoveryPort.random()),
                ],
                killAfter: delay)
            if outcome.killed { killedCount += 1 } else { completed += 1 }
            let devices = try store.devices(in: "crash")
            for device in devices {
                _ = try store.deviceIdentity(named: device.name, kind: device.kind, in: "crash")
            }
            let folder = store.directory(ofAccount: "crash").appendingPathComponent("devices")
            for file in (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil))
                ?? []
            {
                #expect(mode(file) == 0o600, "\(file.lastPathComponent) mode \(String(mode(file), radix: 8))")
            }
        }
        print("account files: \(killedCount) writers killed mid-run, \(completed) finished; every file read back whole")
        #expect(killedCount > 10)
    }
}
