import Foundation
import HandoffProcesses
import HandoffTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A port that another program holds is one clear line naming the port and the option that
/// chooses another, for the device's discovery port and for the local web's ports.
@Suite("A port in use", .tags(.endToEnd), .ownThread, .enabled(if: HandoffExecutable.url != nil))
struct PortInUseTests {
    /// A socket of `type` bound to `address`:`port` without SO_REUSEADDR (a program that does
    /// not share the port); listening when it is TCP.
    func holdPort(_ port: Int, type: Int32, address: String) throws -> Int32 {
        let descriptor = socket(AF_INET, type, 0)
        try #require(descriptor >= 0)
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, address, &socketAddress.sin_addr)
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0, "bind \(address):\(port): errno \(errno)")
        if type == Int32(SOCK_STREAM.rawValue) { try #require(listen(descriptor, 4) == 0) }
        return descriptor
    }

    /// Runs `handoff ARGUMENTS` to its end: its status and what it wrote (both streams).
    func handoff(_ arguments: [String], in directory: URL) throws -> (Int32, String) {
        let output = directory.appendingPathComponent("output-\(UUID().uuidString)")
        let executable = try #require(HandoffExecutable.url).path
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: environment,
            standardOutput: .file(output.path), standardError: .standardOutput)
        let termination = try #require(child.waitForExit())
        return (termination.status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-port-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aDiscoveryPortHeldByAnotherProgramIsOneLineNamingItAndTheOption() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = DiscoveryPort.random()
        let held = try holdPort(port, type: Int32(SOCK_DGRAM.rawValue), address: "0.0.0.0")
        defer { close(held) }
        let (status, output) = try handoff(
            [
                "device", "--headless", "--port", String(port), "--account", "ports",
                "--config-dir", folder.appendingPathComponent("config").path,
            ], in: folder)
        #expect(status == 1, "\(output)")
        let lines = output.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(output)")
        #expect(output.contains("discovery port \(port) is in use") && output.contains("--port"), "\(output)")
        #expect(!output.contains("errno"), "\(output)")
    }

    @Test func aWebPortHeldByAnotherProgramIsOneLineNamingItAndTheOption() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = DiscoveryPort.random()
        let held = try holdPort(port, type: Int32(SOCK_STREAM.rawValue), address: "127.0.0.1")
        defer { close(held) }
        let web = folder.appendingPathComponent("web").path
        let (status, output) = try handoff(
            ["web", "serve", "--port", String(port), "--http-port", "0", "--web-dir", web], in: folder)
        #expect(status == 1, "\(output)")
        #expect(output.split(separator: "\n").count == 1, "one line: \(output)")
        #expect(output.contains("HTTPS port \(port) is already in use") && output.contains("--port"), "\(output)")
        #expect(!output.contains("errno"), "\(output)")

        let (plainStatus, plain) = try handoff(
            ["web", "serve", "--port", "0", "--http-port", String(port), "--web-dir", web], in: folder)
        #expect(plainStatus == 1, "\(plain)")
        #expect(plain.contains("HTTP port \(port) is already in use") && plain.contains("--http-port"), "\(plain)")
    }
}

/// Lab options with a mistake in them are refused before anything starts, naming the mistake.
@Suite("The lab's options", .tags(.endToEnd), .ownThread, .enabled(if: HandoffExecutable.url != nil))
struct LabOptionTests {
    @Test(arguments: [
        (["--fault", "slow-link:"], "write KIND or KIND:sticky"),
        (["--fault", "slow-link:often"], "write KIND or KIND:sticky"),
        (["--fault", "slowlink"], "no fault named \"slowlink\""),
        (["--slow-link", "fast"], "write KBPS or KBPS:LATENCY"),
        (["--slow-link", "0"], "kbps must be from 1"),
        (["--slow-link", "256:99999"], "latencyMs must be from 0"),
    ])
    func aMistakeIsRefusedAndNamed(_ options: [String], _ expected: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-lab-options-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, output) = try PortInUseTests().handoff(
            [
                "device", "--headless", "--account", "lab",
                "--config-dir", folder.appendingPathComponent("config").path,
            ] + options,
            in: folder)
        #expect(status != 0, "\(options): \(output)")
        #expect(output.contains(expected), "\(options): \(output)")
    }
}
