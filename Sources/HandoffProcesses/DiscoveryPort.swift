import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A discovery port for a private run of devices (a test, a soak, a scenario): random, so that
/// runs side by side do not hear each other, and below the kernel's ephemeral port range, from
/// which every socket bound to port 0 takes its port (a device's own beacon socket among them).
/// A port picked at random inside that range was sometimes already taken by such a socket, and
/// the device could not start ("Address already in use").
package enum DiscoveryPort {
    package static func random() -> Int {
        let ephemeral = ephemeralRange()
        if ephemeral.lowerBound > 21_024 { return Int.random(in: 20_000..<ephemeral.lowerBound) }
        if ephemeral.upperBound < 64_511 { return Int.random(in: (ephemeral.upperBound + 1)...65_535) }
        return DiscoveryPort.random()
    }

    /// `count` distinct TCP ports for devices' sessions (`handoff device --session-port`), chosen as
    /// ``random()`` chooses, that nothing on loopback holds now: each is bound once to check, then
    /// released. Fewer than `count` only if 100 tries found no more.
    package static func freeSessionPorts(_ count: Int) -> [Int] {
        var ports: [Int] = []
        for _ in 0..<100 where ports.count < count {
            let port = random()
            guard !ports.contains(port) else { continue }
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if bound == 0 { ports.append(port) }
        }
        return ports
    }

    /// The range in /proc/sys/net/ipv4/ip_local_port_range (Linux's default when unreadable).
    static func ephemeralRange() -> ClosedRange<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] <= bounds[1], bounds[0] > 0, bounds[1] <= 65_535 else {
            return 32_768...60_999
        }
        return bounds[0]...bounds[1]
    }
}
