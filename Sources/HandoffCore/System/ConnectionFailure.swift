import Foundation

/// A failed connection in words for people: what happened and where, never the system's
/// "Connection refused (errno: 111)" (logs keep the raw error).
public enum ConnectionFailure {
    /// What the system error number `code` means for a connection, naming `address` when known.
    public static func sentence(errno code: Int32, address: String? = nil) -> String {
        let by = address.map { " by \($0)" } ?? ""
        let to = address.map { " to \($0)" } ?? ""
        return switch code {
        case ECONNREFUSED: "connection refused\(by) (nothing listens there)"
        case ECONNRESET: "connection reset\(by)"
        case ECONNABORTED: "connection aborted\(by)"
        case EPIPE: "connection closed\(by) while sending"
        case ETIMEDOUT: "no answer\(address.map { " from \($0)" } ?? "") in time"
        case EHOSTUNREACH, ENETUNREACH: "no route\(to)"
        case EADDRNOTAVAIL: "address\(address.map { " \($0)" } ?? "") not available here"
        case EACCES, EPERM: "not permitted to connect\(to)"
        case EMFILE, ENFILE: "too many open files to connect\(to)"
        default: "could not connect\(to) (system error \(code))"
        }
    }
}
