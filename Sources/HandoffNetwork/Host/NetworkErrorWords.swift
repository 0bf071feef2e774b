import HandoffCore
import NIOCore
import NIOPosix

/// Errors from the network as people read them, for the reasons that reach screens (the
/// lifecycle log, an app's message): a system error in words, never NIO's "(errno: 111)".
enum NetworkErrorWords {
    static func describe(_ error: any Error, address: String? = nil) -> String {
        if let io = error as? IOError { return ConnectionFailure.sentence(errno: io.errnoCode, address: address) }
        if let connection = error as? NIOConnectionError, let first = connection.connectionErrors.first {
            return describe(first.error, address: address)
        }
        return "\(error)"
    }
}
