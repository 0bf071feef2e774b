import Foundation
import Synchronization

/// Where iCloud documents live on a device, and how their URLs cross devices.
///
/// Each device has its own container path (Apple's `url(forUbiquityContainerIdentifier:)`): the
/// same documents, at a different place on every device. The Handoff Programming Guide: "The
/// system modifies `NSURL` objects that use the `file:` scheme and point at iCloud documents to
/// point to those same items in the corresponding container on the receiving device." The origin
/// therefore sends such a URL as a reference relative to the container (``reference(to:in:)``,
/// scheme ``scheme``), and the receiving system turns it into a file URL in its own container
/// (``resolve(_:in:)``). A receiver without a container keeps the reference: there is no file
/// there to point at.
public enum UbiquityContainer {
    /// The scheme of a URL that names an item relative to the account's container, as payloads
    /// carry it (docs/payload.md, "Values").
    public static let scheme = "x-handoff-ubiquity"

    /// Whether `url` is a file URL inside `container` (the container itself excluded).
    public static func contains(_ url: URL, in container: URL) -> Bool {
        relativeComponents(of: url, in: container) != nil
    }

    /// The reference to send for `url` when it is a file URL inside `container`, else nil.
    static func reference(to url: URL, in container: URL) -> URL? {
        guard let components = relativeComponents(of: url, in: container) else { return nil }
        var reference = URLComponents()
        reference.scheme = scheme
        reference.path = "/" + components.joined(separator: "/")
        return reference.url
    }

    /// The file URL in `container` that a received reference names; nil when `url` is not a
    /// reference, or a malformed one (empty, `.` or `..` components, a host, a query): a hostile
    /// peer's reference never points outside the container.
    static func resolve(_ url: URL, in container: URL) -> URL? {
        guard url.scheme == scheme, url.host == nil || url.host == "", url.query == nil, url.fragment == nil
        else { return nil }
        let path = url.path
        guard path.hasPrefix("/") else { return nil }
        let components = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard !components.isEmpty,
            components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") })
        else { return nil }
        var resolved = container
        for (index, component) in components.enumerated() {
            resolved.appendPathComponent(String(component), isDirectory: index < components.count - 1)
        }
        return resolved
    }

    /// `userInfo` with every file URL inside `container` (at any depth) replaced by its reference.
    static func references(in userInfo: UserInfo, container: URL) -> UserInfo {
        userInfo.mapValues { map($0) { reference(to: $0, in: container) } }
    }

    /// `userInfo` with every reference (at any depth) resolved in `container`; the file URLs it
    /// produced are returned too (the receiving app gets them security-scoped).
    static func resolving(_ userInfo: UserInfo, container: URL) -> (UserInfo, resolved: [URL]) {
        var resolved: [URL] = []
        let mapped = userInfo.mapValues { value in
            map(value) { url in
                guard let file = resolve(url, in: container) else { return nil }
                resolved.append(file)
                return file
            }
        }
        return (mapped, resolved)
    }

    private static func map(_ value: UserInfoValue, _ transform: (URL) -> URL?) -> UserInfoValue {
        switch value {
        case .url(let url): .url(transform(url) ?? url)
        case .array(let elements): .array(elements.map { map($0, transform) })
        case .dictionary(let entries): .dictionary(entries.mapValues { map($0, transform) })
        case .set(let elements): .set(Set(elements.map { map($0, transform) }))
        case .data, .date, .null, .integer, .double, .bool, .string, .uuid: value
        }
    }

    /// The path components of `url` below `container`, or nil when it is not a file URL inside it.
    private static func relativeComponents(of url: URL, in container: URL) -> [String]? {
        guard url.isFileURL, container.isFileURL else { return nil }
        let base = canonicalComponents(container)
        let full = canonicalComponents(url)
        guard full.count > base.count, Array(full.prefix(base.count)) == base else { return nil }
        return Array(full.dropFirst(base.count))
    }

    private static func canonicalComponents(_ url: URL) -> [String] {
        url.standardizedFileURL.path.split(separator: "/").map(String.init)
    }
}

/// Security-scoped access to the file URLs a continued activity brought (Apple's
/// `startAccessingSecurityScopedResource` / `stopAccessingSecurityScopedResource`).
///
/// The guide: "For URLs transferred in the `userInfo` dictionary of an `NSUserActivity` object,
/// you must call `startAccessingSecurityScopedResource` and it must return `YES` before you can
/// access the URL. Call `stopAccessingSecurityScopedResource` when you are done using the file."
/// When the system delivers a continued activity, it grants each file URL it resolved into the
/// receiver's container (``UbiquityContainer``); until the app starts accessing it, that file
/// is closed to the app (``checkAccess(to:)`` throws), as a sandbox would keep it; once the app
/// stops as often as it started, the grant is over and the file is the app's as before. Quitting
/// the app ends its grants.
///
/// Apps read files through ``checkAccess(to:)`` first (the Reader's `DocumentLibrary` does): it
/// stands for the sandbox, which apps cannot skip. The state is the process's (several devices
/// may share a process); each device's container has its own path, so grants never mix devices,
/// and a grant belongs to the device object that made it, not to its ID: devices of different
/// neighbourhoods in one process (the tests') may share an ID, and quitting an app on one must
/// not end the grants of its namesake on another.
public enum SecurityScopedResources {
    private struct Grant {
        var bundleIdentifier: String
        var device: ObjectIdentifier
        var accessCount = 0
    }

    private static let grants = Mutex<[String: Grant]>([:])

    /// Grants security-scoped access to `url` to the app `bundleIdentifier` on `device`.
    static func grant(_ url: URL, to bundleIdentifier: String, on device: Device) {
        let key = key(url)
        let owner = ObjectIdentifier(device)
        grants.withLock { grants in
            if grants[key] == nil { grants[key] = Grant(bundleIdentifier: bundleIdentifier, device: owner) }
        }
    }

    /// Ends the grant of `url`: the system opened it for the app itself (AppKit reopening a
    /// document), which needs no security-scoped access.
    static func revoke(_ url: URL) {
        let key = key(url)
        grants.withLock { grants in grants[key] = nil }
    }

    /// Ends every grant of `bundleIdentifier` on `device` (the app was quit).
    static func revokeAll(of bundleIdentifier: String, on device: Device) {
        let owner = ObjectIdentifier(device)
        grants.withLock { grants in
            grants = grants.filter { $0.value.bundleIdentifier != bundleIdentifier || $0.value.device != owner }
        }
    }

    /// Whether `url` is security-scoped and not being accessed now.
    public static func isClosed(_ url: URL) -> Bool {
        let key = key(url)
        return grants.withLock { grants in grants[key].map { $0.accessCount == 0 } ?? false }
    }

    /// Throws when `url` is a security-scoped URL the app has not started accessing (or stopped).
    ///
    /// - Throws: ``FileAccessError`` naming the file and the missing call.
    public static func checkAccess(to url: URL) throws(FileAccessError) {
        guard isClosed(url) else { return }
        throw FileAccessError(
            url: url,
            message:
                "“\(url.lastPathComponent)” came with a continued activity and is security-scoped: "
                + "the app must call startAccessingSecurityScopedResource() before reading it")
    }

    fileprivate static func start(_ url: URL) -> Bool {
        let key = key(url)
        return grants.withLock { grants in
            guard grants[key] != nil else { return false }
            grants[key]!.accessCount += 1
            return true
        }
    }

    fileprivate static func stop(_ url: URL) {
        let key = key(url)
        grants.withLock { grants in
            guard let grant = grants[key], grant.accessCount > 0 else { return }
            if grant.accessCount == 1 {
                grants[key] = nil
            } else {
                grants[key]!.accessCount -= 1
            }
        }
    }

    private static func key(_ url: URL) -> String { url.standardizedFileURL.path }
}

/// A file the app may not read (yet).
public struct FileAccessError: Error, Sendable, Hashable, CustomStringConvertible {
    public var url: URL
    public var message: String
    public var description: String { message }
}

extension URL {
    /// Makes a security-scoped URL (a file URL a continued activity brought) readable; true when
    /// it is one. Balance every call that returned true with
    /// ``stopAccessingSecurityScopedResource()``. See ``SecurityScopedResources``.
    public func startAccessingSecurityScopedResource() -> Bool {
        SecurityScopedResources.start(self)
    }

    /// Ends one ``startAccessingSecurityScopedResource()``; after the last, the grant is over.
    public func stopAccessingSecurityScopedResource() {
        SecurityScopedResources.stop(self)
    }
}
