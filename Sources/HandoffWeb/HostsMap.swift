import Foundation

/// A device's own hosts map: where each demo host is served. The simulator never asks the
/// system's resolver (nor `/etc/hosts`): a host missing here is unreachable, and every address
/// must be on loopback, so a device never sends a byte off this machine.
///
/// Stored as `hosts.json` in the ``WebFolder``:
///
/// ```json
/// {"hosts": {"maps.handoffsim.example": {"address": "127.0.0.1", "https": 17843, "http": 17844}}}
/// ```
package struct HostsMap: Hashable, Sendable, Codable {
    /// Where one host is served.
    package struct Entry: Hashable, Sendable, Codable {
        /// A loopback address (`127.x.y.z` or `::1`).
        package var address: String
        /// The HTTPS port.
        package var https: Int?
        /// The plain-HTTP port.
        package var http: Int?

        package init(address: String = "127.0.0.1", https: Int?, http: Int?) {
            self.address = address
            self.https = https
            self.http = http
        }

        /// The port for `scheme` (`https` or `http`).
        package func port(forScheme scheme: String) -> Int? {
            scheme.lowercased() == "https" ? https : (scheme.lowercased() == "http" ? http : nil)
        }
    }

    /// Host (lower case) → where it is served.
    package var hosts: [String: Entry]

    package init(hosts: [String: Entry] = [:]) {
        self.hosts = Dictionary(hosts.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// Where `host` is served: its own entry, else the entry of the nearest parent domain that is
    /// served (a wildcard site's subdomains reach their parent's server).
    package func entry(for host: String) -> Entry? {
        var name = host.lowercased()
        while true {
            if let entry = hosts[name] { return entry }
            guard let dot = name.firstIndex(of: "."), name[name.index(after: dot)...].contains(".") else { return nil }
            name = String(name[name.index(after: dot)...])
        }
    }

    /// The largest hosts file read.
    package static let maximumBytes = 256 * 1024

    /// Reads `file`, hostile-input safe.
    ///
    /// - Throws: ``WebError/file(_:_:)`` naming the file and, for a bad entry, the host.
    package static func read(from file: URL) throws(WebError) -> HostsMap {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            throw .file(file.path, "cannot be read (\(error.localizedDescription))")
        }
        guard data.count <= maximumBytes else {
            throw .file(file.path, "over \(maximumBytes / 1024) KB: not a hosts map")
        }
        let map: HostsMap
        do {
            map = try JSONDecoder().decode(HostsMap.self, from: data)
        } catch {
            throw .file(file.path, "not a hosts map: \(Self.describe(error))")
        }
        for (host, entry) in map.hosts.sorted(by: { $0.key < $1.key }) {
            guard Self.isLoopback(entry.address) else {
                throw .file(
                    file.path,
                    "\(host): \(entry.address) is not a loopback address; the simulator only talks to this machine")
            }
            for port in [entry.https, entry.http].compactMap({ $0 }) where !(1...65_535).contains(port) {
                throw .file(file.path, "\(host): port \(port) is not between 1 and 65535")
            }
        }
        return HostsMap(hosts: map.hosts)
    }

    /// Writes the map (replacing the file atomically).
    package func write(to file: URL) throws(WebError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(self).write(to: file, options: .atomic)
        } catch {
            throw .file(file.path, "cannot be written: \(error.localizedDescription)")
        }
    }

    /// `127.0.0.0/8` or `::1`.
    package static func isLoopback(_ address: String) -> Bool {
        if address == "::1" { return true }
        let parts = address.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): "not JSON (\(context.debugDescription))"
        case DecodingError.keyNotFound(let key, let context):
            "missing \"\(key.stringValue)\""
                + (context.codingPath.isEmpty
                    ? "" : " in \(context.codingPath.map(\.stringValue).joined(separator: "."))")
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: "\(error)"
        }
    }
}
