import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// perf's control FIFOs (`perf record -D -1 --control fifo:CTL,ACK`): the bench says `enable`
/// when a discovery window opens and `disable` when it closes, so a profile holds the discovery
/// windows only, not the set-up of the devices' identities before them nor the shutdown after
/// (`handoff bench --perf-control CTL,ACK`, docs/bench.md).
package final class PerfControl: Sendable {
    private let control: CInt
    private let acknowledgement: CInt?

    /// Opens the FIFOs perf created and reads (`control`) and writes (`acknowledgement`, optional).
    package init(control path: String, acknowledgement ackPath: String?) throws {
        let control = open(path, O_WRONLY | O_CLOEXEC)
        guard control >= 0 else { throw BenchError.posix("--perf-control: open \(path)") }
        self.control = control
        if let ackPath {
            let descriptor = open(ackPath, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                Glibc.close(control)
                throw BenchError.posix("--perf-control: open \(ackPath)")
            }
            self.acknowledgement = descriptor
        } else {
            self.acknowledgement = nil
        }
    }

    deinit {
        Glibc.close(control)
        if let acknowledgement { Glibc.close(acknowledgement) }
    }

    /// Starts counting (blocks until perf acknowledged, when there is an acknowledgement FIFO).
    package func enable() { say("enable") }

    /// Stops counting.
    package func disable() { say("disable") }

    private func say(_ command: String) {
        let line = Array((command + "\n").utf8)
        _ = line.withUnsafeBytes { write(control, $0.baseAddress, $0.count) }
        guard let acknowledgement else { return }
        // perf answers "ack\n"; a short read is enough to know it acted.
        var buffer = [UInt8](repeating: 0, count: 16)
        _ = buffer.withUnsafeMutableBytes { read(acknowledgement, $0.baseAddress, $0.count) }
    }
}
