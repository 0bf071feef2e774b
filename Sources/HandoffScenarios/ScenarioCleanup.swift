import Foundation
import HandoffProcesses
import Synchronization

/// What scenario runs leave behind while they run: their temporary accounts folders (which hold
/// account keys) and their headless device processes. ``ScenarioRunner`` registers both as it
/// creates them and removes them when it ends; when the program is interrupted (SIGINT, SIGTERM)
/// before that, ``cleanUpNow(grace:)`` stops the processes and deletes the folders, so nothing
/// is left in the temporary folder and no device keeps running.
package final class ScenarioCleanup: Sendable {
    private struct State {
        var folders: [URL] = []
        var processes: [ObjectIdentifier: HeadlessProcess] = [:]
        var isCleaningUp = false
    }

    private let state = Mutex(State())

    package init() {}

    /// True once ``cleanUpNow(grace:)`` began: the run is being abandoned.
    package var isCleaningUp: Bool { state.withLock { $0.isCleaningUp } }

    /// The folders and processes registered now (for tests and messages).
    package var registered: (folders: [URL], processes: Int) {
        state.withLock { ($0.folders, $0.processes.count) }
    }

    func add(folder: URL) { state.withLock { $0.folders.append(folder) } }
    func remove(folder: URL) { state.withLock { $0.folders.removeAll { $0 == folder } } }
    func add(_ process: HeadlessProcess) { state.withLock { $0.processes[ObjectIdentifier(process)] = process } }
    func remove(_ process: HeadlessProcess) {
        _ = state.withLock { $0.processes.removeValue(forKey: ObjectIdentifier(process)) }
    }

    /// Stops every registered device (SIGTERM, so it says goodbye to its peers; SIGKILL for one
    /// still running after `grace` seconds), then removes every registered folder. Safe to call
    /// from any thread, once or more.
    ///
    /// - Returns: How many processes were stopped and folders removed.
    @discardableResult
    package func cleanUpNow(grace: TimeInterval = 2) -> (processes: Int, folders: Int) {
        let (processes, folders) = state.withLock { state in
            state.isCleaningUp = true
            let taken = (Array(state.processes.values), state.folders)
            state.processes = [:]
            state.folders = []
            return taken
        }
        let running = processes.filter { $0.process.isRunning }
        for process in running { process.terminate() }
        for process in running where process.waitForExit(timeout: grace) == nil { process.kill() }
        for process in running { _ = process.waitForExit(timeout: grace) }
        var removed = 0
        for folder in folders where FileManager.default.fileExists(atPath: folder.path) {
            if (try? FileManager.default.removeItem(at: folder)) != nil { removed += 1 }
        }
        return (running.count, removed)
    }
}
