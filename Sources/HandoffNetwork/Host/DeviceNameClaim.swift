import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A device name held by one running process, so that devices started without `--name` get
/// distinct, stable names ("Phone 1", "Phone 2", ...) and keep their identity across restarts.
///
/// The claim is an `flock` on a file under the account's run directory: it is released when the
/// process exits, however it exits.
package final class DeviceNameClaim: Sendable {
    package let name: String
    private let descriptor: Int32

    private init(name: String, descriptor: Int32) {
        self.name = name
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Claims `name`, or returns nil when another running process holds it.
    package static func claim(_ name: String, in directory: URL) -> DeviceNameClaim? {
        try? FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let safe = String(name.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : "_" })
        let path = directory.appendingPathComponent(safe + ".lock").path
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return DeviceNameClaim(name: name, descriptor: descriptor)
    }

    /// Claims the first free name among "`base` 1", "`base` 2", ...
    package static func claimFirstFree(base: String, in directory: URL, limit: Int = 64) -> DeviceNameClaim? {
        for index in 1...limit {
            if let claim = claim("\(base) \(index)", in: directory) { return claim }
        }
        return nil
    }
}
