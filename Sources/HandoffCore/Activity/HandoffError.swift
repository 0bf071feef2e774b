import Foundation

/// A failure to continue an activity, with Apple's public error codes.
///
/// The codes are those of `NSCocoaErrorDomain` (`CocoaError.Code`): 4608–4611 for Handoff and
/// 3072 for a user-cancelled operation. ``cocoaError`` converts to Foundation's type.
public struct HandoffError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Code: Int, Sendable, Hashable, Codable, CaseIterable {
        /// 4608 `NSUserActivityHandoffFailedError`: the data for the activity was not available.
        case handoffFailed = 4608
        /// 4609 `NSUserActivityConnectionUnavailableError`: a required connection was not available.
        case connectionUnavailable = 4609
        /// 4610 `NSUserActivityRemoteApplicationTimedOutError`: the remote app did not send the data in time.
        case remoteApplicationTimedOut = 4610
        /// 4611 `NSUserActivityHandoffUserInfoTooLargeError`: the userInfo was too large to receive.
        case userInfoTooLarge = 4611
        /// 3072 `NSUserCancelledError`: the user cancelled.
        case userCancelled = 3072

        /// Apple's constant name.
        public var constantName: String {
            switch self {
            case .handoffFailed: "NSUserActivityHandoffFailedError"
            case .connectionUnavailable: "NSUserActivityConnectionUnavailableError"
            case .remoteApplicationTimedOut: "NSUserActivityRemoteApplicationTimedOutError"
            case .userInfoTooLarge: "NSUserActivityHandoffUserInfoTooLargeError"
            case .userCancelled: "NSUserCancelledError"
            }
        }

        /// What the code means, in one line.
        public var meaning: String {
            switch self {
            case .handoffFailed: "the data for the activity was not available"
            case .connectionUnavailable: "a required connection was not available"
            case .remoteApplicationTimedOut: "the remote app did not send the data in time"
            case .userInfoTooLarge: "the activity's userInfo was too large to receive"
            case .userCancelled: "the user cancelled"
            }
        }
    }

    public var code: Code
    /// What happened in this instance (e.g. "origin device went away during the fetch").
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "error \(code.rawValue) (\(code.constantName)): \(code.meaning): \(reason)" }

    /// The same error as Foundation's `CocoaError`, with the reason as its failure reason.
    public var cocoaError: CocoaError {
        CocoaError(CocoaError.Code(rawValue: code.rawValue), userInfo: [NSLocalizedFailureReasonErrorKey: reason])
    }
}

/// A programming error in the use of a ``UserActivity`` (Apple raises an exception for these).
public struct UserActivityError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case invalidActivityType(String)
        case unsupportedWebpageURLScheme(String)
        case invalidated
    }

    public var kind: Kind
    public var message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
