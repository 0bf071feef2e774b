import Foundation
import HandoffCore
import HandoffNetwork
import HandoffProcesses

/// `handoff bench --classroom N --processes`: one process per pair, as a class's machines would be.
/// This process creates the account and every device's identity, then starts N children
/// (`handoff bench --classroom-child I …`, ``runChild(_:)``), each running one pair with the same
/// start time and duration; each prints its share as one JSON line, and this process adds them up.
extension ClassroomBench {
    /// What a child needs: where the account is, the discovery port, its pair, and when to start.
    package struct ChildOptions: Sendable {
        package var directory: URL
        package var port: Int
        package var pair: Int
        package var startAt: Date
        package var classroom: Options

        package init(directory: URL, port: Int, pair: Int, startAt: Date, classroom: Options) {
            self.directory = directory
            self.port = port
            self.pair = pair
            self.startAt = startAt
            self.classroom = classroom
        }
    }

    /// The class across `options.pairs` processes of `executable` (a `handoff`).
    package static func runInProcesses(_ options: Options, executable: String) async throws -> Result {
        guard options.pairs > 0, options.seconds > 0, options.idleSeconds >= 0, options.pace >= 0 else {
            throw BenchError("the classroom needs at least one pair, a positive duration and a pace of 0 or more")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "handoff-bench-classroom-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = AccountStore(directory: directory)
        let account = try store.createAccount(named: BenchWorld.accountName)
        _ = try store.deviceIdentities(studentNames(pairs: options.pairs).map { ($0, .laptop) }, in: account.name)
        let port = try FloorBench.freeUDPPort()
        // Every child starts its devices and waits for its partner first; they begin together.
        let startAt = Date().addingTimeInterval(3 + 0.15 * Double(options.pairs))
        options.progress?("starting \(options.pairs) processes, one per pair")
        var children: [ChildProcess] = []
        defer { for child in children where child.isRunning { child.terminate() } }
        for pair in 0..<options.pairs {
            let arguments = [
                "bench", "--classroom-child", "\(pair)", "--classroom-directory", directory.path,
                "--classroom-port", "\(port)", "--classroom-start",
                String(format: "%.3f", startAt.timeIntervalSince1970),
                "--seconds", "\(options.seconds)", "--pace", "\(options.pace)", "--idle-seconds",
                "\(options.idleSeconds)",
            ]
            children.append(
                try ChildProcess(
                    executable: executable, arguments: arguments, standardOutput: .pipe, standardError: .inherit))
        }
        let outputs = await withTaskGroup(of: (Int, Data).self) { group in
            for (index, child) in children.enumerated() {
                group.addTask {
                    await onThread { (index, child.standardOutput?.readDataToEndOfFile() ?? Data()) }
                }
            }
            var outputs = [Data](repeating: Data(), count: children.count)
            for await (index, data) in group { outputs[index] = data }
            return outputs
        }
        var parts: [Result] = []
        for (index, child) in children.enumerated() {
            let ending = await onThread { child.waitForExit(timeout: 30) }
            let line = String(decoding: outputs[index], as: UTF8.self).split(separator: "\n").last.map(String.init)
            guard ending == .exited(0), let line,
                let part = try? JSONDecoder().decode(Result.self, from: Data(line.utf8))
            else {
                var failed = Result(pairs: 1, processes: 1, seconds: options.seconds)
                failed.failures = 1
                failed.failureReasons = [
                    "pair \(index + 1)'s process ended with \(ending.map { "\($0)" } ?? "no exit")"
                ]
                parts.append(failed)
                continue
            }
            parts.append(part)
        }
        return Result.merging(parts, pairs: options.pairs, processes: options.pairs)
    }

    /// One pair of the class, in this process (a child of ``runInProcesses(_:executable:)``).
    package static func runChild(_ child: ChildOptions) async throws -> Result {
        let names = studentNames(pairs: child.pair + 1).suffix(2)
        let world = try BenchWorld(
            existing: child.directory, port: child.port, names: Array(names),
            fetchTimeout: child.classroom.fetchTimeout, connectTimeout: child.classroom.connectTimeout)
        do {
            try await world.start()
            let pair = ClassroomPair(first: world.hosts[0], second: world.hosts[1])
            let result = try await run([pair], processes: 1, options: child.classroom, startAt: child.startAt)
            await world.shutdown()
            return result
        } catch {
            await world.shutdown()
            throw error
        }
    }

    /// "Student 1 A", "Student 1 B", "Student 2 A"…
    static func studentNames(pairs: Int) -> [String] {
        (1...max(1, pairs)).flatMap { ["Student \($0) A", "Student \($0) B"] }
    }

    /// Blocking work (a pipe read, a wait for a child) on a thread of its own.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
