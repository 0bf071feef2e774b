import Foundation

/// Everything about an activity that leaves the originating device when it is continued.
///
/// This is the value the payload encoding (``ActivityPayload/encoded()`` and
/// ``ActivityPayload/init(decoding:limits:)``) carries between devices.
public struct ActivityPayload: Sendable, Hashable {
    /// The identifier of the originating activity (Apple's `uniqueIdentifier`).
    public var activityIdentifier: UUID
    public var activityType: String
    public var title: String?
    public var userInfo: UserInfo
    public var webpageURL: URL?
    /// The team identifier of the originating app.
    public var teamIdentifier: String
    /// The bundle identifier of the originating app.
    public var bundleIdentifier: String
    public var expirationDate: Date?
    public var requiredUserInfoKeys: Set<String>
    public var targetContentIdentifier: String?
    public var supportsContinuationStreams: Bool
    /// A one-time token that binds continuation streams to this one continuation (empty when the
    /// activity does not support streams).
    public var streamToken: Data

    public init(
        activityIdentifier: UUID = UUID(),
        activityType: String,
        title: String? = nil,
        userInfo: UserInfo = [:],
        webpageURL: URL? = nil,
        teamIdentifier: String,
        bundleIdentifier: String,
        expirationDate: Date? = nil,
        requiredUserInfoKeys: Set<String> = [],
        targetContentIdentifier: String? = nil,
        supportsContinuationStreams: Bool = false,
        streamToken: Data = Data()
    ) {
        self.activityIdentifier = activityIdentifier
        self.activityType = activityType
        self.title = title
        self.userInfo = userInfo
        self.webpageURL = webpageURL
        self.teamIdentifier = teamIdentifier
        self.bundleIdentifier = bundleIdentifier
        self.expirationDate = expirationDate
        self.requiredUserInfoKeys = requiredUserInfoKeys
        self.targetContentIdentifier = targetContentIdentifier
        self.supportsContinuationStreams = supportsContinuationStreams
        self.streamToken = streamToken
    }
}
