import Crypto
import Foundation
import HandoffCore
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An account as read from its file, with the authority's private key (which ``Account`` does not carry).
struct StoredAccount: Sendable {
    var account: Account
    var authorityKey: P256.Signing.PrivateKey { authorityKeyStorage.value }
    private let authorityKeyStorage: ImmutableCryptoValue<P256.Signing.PrivateKey>

    init(account: Account, authorityKey: P256.Signing.PrivateKey) {
        self.account = account
        self.authorityKeyStorage = ImmutableCryptoValue(authorityKey)
    }
}

/// The JSON formats of `account.json` and `devices/<id>.json`, and their hostile-input-safe decoding.
enum AccountFileFormat {
    static let version = 1
    static let accountFileLimit = 1 << 20
    static let deviceFileLimit = 64 << 10

    struct AccountFile: Codable {
        var format: String
        var version: Int
        var identifier: String
        var createdAt: String
        var beaconKey: String
        var authorityKey: String
        var authorityCertificate: String
        var revokedDevices: [String]
    }

    struct DeviceFile: Codable {
        var format: String
        var version: Int
        var name: String
        var kind: String
        var createdAt: String
        var privateKey: String
        var certificate: String
    }

    // MARK: Encoding

    static func encode(_ stored: StoredAccount) throws(AccountError) -> Data {
        let account = stored.account
        let file = try mapping({ AccountError.certificateIssuance("account \(account.name): \($0)") }) {
            AccountFile(
                format: "handoff-account", version: version,
                identifier: account.identifier.uuidString.lowercased(),
                createdAt: formatDate(account.createdAt),
                beaconKey: account.beaconKey.withUnsafeBytes { Data($0) }.base64EncodedString(),
                authorityKey: stored.authorityKey.pemRepresentation,
                authorityCertificate: try account.authorityCertificate.serializeAsPEM().pemString,
                revokedDevices: account.revokedDevices.map(\.rawValue).sorted())
        }
        return try json(file)
    }

    static func encode(_ identity: DeviceIdentity) throws(AccountError) -> Data {
        let file = try mapping({ AccountError.certificateIssuance("device \(identity.id): \($0)") }) {
            DeviceFile(
                format: "handoff-device", version: version, name: identity.name, kind: identity.kind.rawValue,
                createdAt: formatDate(identity.createdAt), privateKey: identity.privateKey.pemRepresentation,
                certificate: try identity.certificate.serializeAsPEM().pemString)
        }
        return try json(file)
    }

    private static func json<T: Encodable>(_ value: T) throws(AccountError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try mapping({ AccountError.certificateIssuance("cannot encode JSON: \($0)") }) {
            try encoder.encode(value)
        }
        data.append(0x0A)
        return data
    }

    // MARK: Decoding

    static func decodeAccount(_ data: Data, name: String, path: String) throws(AccountError) -> StoredAccount {
        let file: AccountFile = try decodeJSON(data, path: path)
        func corrupt(_ field: String, _ problem: String) -> AccountError {
            .corruptFile(path: path, field: field, problem: problem)
        }
        guard file.format == "handoff-account" else { throw corrupt("format", "is not \"handoff-account\"") }
        guard file.version == version else {
            throw corrupt("version", "is \(file.version); only \(version) is supported")
        }
        guard let identifier = UUID(uuidString: file.identifier) else { throw corrupt("identifier", "is not a UUID") }
        guard let createdAt = parseDate(file.createdAt) else { throw corrupt("createdAt", "is not an ISO 8601 date") }
        guard let keyBytes = Data(base64Encoded: file.beaconKey), keyBytes.count == 32 else {
            throw corrupt("beaconKey", "is not 32 bytes of base64")
        }
        guard let authorityKey = try? P256.Signing.PrivateKey(pemRepresentation: file.authorityKey) else {
            throw corrupt("authorityKey", "is not a PEM-encoded P-256 private key")
        }
        guard let authority = try? Certificate(pemEncoded: file.authorityCertificate) else {
            throw corrupt("authorityCertificate", "is not a PEM-encoded certificate")
        }
        if let problem = CertificateAuthority.problemWithAuthority(authority, key: authorityKey) {
            throw corrupt("authorityCertificate", problem)
        }
        var revoked = Set<DeviceID>()
        for (index, text) in file.revokedDevices.enumerated() {
            guard let id = CertificateAuthority.canonicalDeviceID(text) else {
                throw corrupt("revokedDevices[\(index)]", "is not a device ID (a UUID)")
            }
            revoked.insert(id)
        }
        let account = Account(
            name: name, identifier: identifier, beaconKey: SymmetricKey(data: keyBytes),
            authorityCertificate: authority, createdAt: createdAt, revokedDevices: revoked)
        return StoredAccount(account: account, authorityKey: authorityKey)
    }

    static func decodeDevice(
        _ data: Data, id: DeviceID, account: Account, path: String
    ) throws(AccountError)
        -> DeviceIdentity
    {
        let file: DeviceFile = try decodeJSON(data, path: path)
        func corrupt(_ field: String, _ problem: String) -> AccountError {
            .corruptFile(path: path, field: field, problem: problem)
        }
        guard file.format == "handoff-device" else { throw corrupt("format", "is not \"handoff-device\"") }
        guard file.version == version else {
            throw corrupt("version", "is \(file.version); only \(version) is supported")
        }
        if let problem = problemWithDeviceName(file.name) { throw corrupt("name", problem) }
        guard let kind = PeerInfo.Kind(rawValue: file.kind) else {
            throw corrupt("kind", "is not one of phone, tablet, laptop")
        }
        guard let createdAt = parseDate(file.createdAt) else { throw corrupt("createdAt", "is not an ISO 8601 date") }
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: file.privateKey) else {
            throw corrupt("privateKey", "is not a PEM-encoded P-256 private key")
        }
        guard let certificate = try? Certificate(pemEncoded: file.certificate) else {
            throw corrupt("certificate", "is not a PEM-encoded certificate")
        }
        guard let publicKey = P256.Signing.PublicKey(certificate.publicKey),
            publicKey.rawRepresentation == key.publicKey.rawRepresentation
        else { throw corrupt("certificate", "does not match the private key") }
        guard CertificateAuthority.isIssued(certificate, by: account.authorityCertificate) else {
            throw corrupt("certificate", "was not issued by account \(account.name)'s authority")
        }
        switch CertificateAuthority.deviceID(named: certificate) {
        case .failure(let error): throw corrupt("certificate", "\(error)")
        case .success(let named) where named != id:
            throw corrupt("certificate", "names device \(named), not \(id) as the file name says")
        case .success: break
        }
        return DeviceIdentity(
            id: id, name: file.name, kind: kind, accountName: account.name, privateKey: key,
            certificate: certificate, createdAt: createdAt)
    }

    /// The name in a device file, checked as ``decodeDevice(_:id:account:path:)`` checks it, without
    /// decoding the rest (the key and the certificate).
    static func decodeDeviceName(_ data: Data, path: String) throws(AccountError) -> String {
        struct Named: Decodable {
            var format: String
            var version: Int
            var name: String
        }
        let file: Named = try decodeJSON(data, path: path)
        guard file.format == "handoff-device" else {
            throw .corruptFile(path: path, field: "format", problem: "is not \"handoff-device\"")
        }
        guard file.version == version else {
            throw .corruptFile(
                path: path, field: "version", problem: "is \(file.version); only \(version) is supported")
        }
        if let problem = problemWithDeviceName(file.name) {
            throw .corruptFile(path: path, field: "name", problem: problem)
        }
        return file.name
    }

    static func decodeJSON<T: Decodable>(_ data: Data, path: String) throws(AccountError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw describe(error, path: path)
        } catch {
            throw .corruptFile(path: path, field: nil, problem: "is not valid JSON (\(error))")
        }
    }

    static func describe(_ error: DecodingError, path: String) -> AccountError {
        func fieldName(_ codingPath: [any CodingKey]) -> String? {
            guard !codingPath.isEmpty else { return nil }
            return codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .corruptFile(path: path, field: fieldName(context.codingPath + [key]), problem: "is missing")
        case .valueNotFound(_, let context):
            return .corruptFile(path: path, field: fieldName(context.codingPath), problem: "is null")
        case .typeMismatch(let type, let context):
            guard let field = fieldName(context.codingPath) else {
                return .corruptFile(path: path, field: nil, problem: "is not a JSON object")
            }
            return .corruptFile(path: path, field: field, problem: "is not of type \(type)")
        case .dataCorrupted(let context):
            if let field = fieldName(context.codingPath) {
                return .corruptFile(path: path, field: field, problem: "is not valid")
            }
            return .corruptFile(path: path, field: nil, problem: "is not valid JSON (truncated or garbage)")
        @unknown default:
            return .corruptFile(path: path, field: nil, problem: "cannot be decoded")
        }
    }

    // MARK: Names and dates

    /// Why `name` cannot name an account, or nil.
    static func problemWithAccountName(_ name: String) -> String? {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-".unicodeScalars)
        if name.isEmpty { return "it is empty" }
        if name.unicodeScalars.count > 64 { return "it is longer than 64 characters" }
        if !name.unicodeScalars.allSatisfy(allowed.contains) {
            return "only A-Z, a-z, 0-9, '.', '_' and '-' are allowed"
        }
        if name.hasPrefix(".") { return "it must not start with '.'" }
        return nil
    }

    /// Why `name` cannot name a device, or nil.
    static func problemWithDeviceName(_ name: String) -> String? {
        if name.trimmingCharacters(in: .whitespaces).isEmpty { return "is empty" }
        if name.count > 64 { return "is longer than 64 characters" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "contains control characters"
        }
        return nil
    }

    static func formatDate(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }

    static func parseDate(_ text: String) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// Now, to the second (dates are stored to the second, so a value reads back equal).
    static func now() -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }
}

/// Files readable by the user only: directories 0700, files 0600, written atomically.
enum SecureFile {
    static func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// Creates `url` and any missing parents with mode 0700; existing directories are left as they are.
    static func makeDirectories(_ url: URL) throws(AccountError) {
        var missing: [String] = []
        var current = url.standardizedFileURL.path
        while !current.isEmpty, current != "/", !isDirectory(current) {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for path in missing.reversed() {
            if mkdir(path, 0o700) != 0 {
                let code = errno
                if code == EEXIST, isDirectory(path) { continue }
                throw .fileSystem(path: path, operation: "create the directory", reason: errnoText(code))
            }
        }
    }

    /// Creates one directory with mode 0700 (its parent must exist).
    static func makeDirectory(_ path: String) throws(AccountError) {
        guard mkdir(path, 0o700) == 0 else {
            throw .fileSystem(path: path, operation: "create the directory", reason: errnoText())
        }
        _ = chmod(path, 0o700)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Writes `data` to a temporary file created with mode 0600 next to `url`, flushes it, then
    /// renames it over `url` and flushes the directory: a reader (or a process killed at any
    /// moment, `kill -9` included) sees the previous file whole or the new one whole, never a part.
    static func writeAtomically(_ data: Data, to url: URL) throws(AccountError) {
        let path = url.path
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + "." + UUID().uuidString.lowercased() + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .fileSystem(path: path, operation: "write", reason: errnoText())
        }
        var failure: Int32?
        if fchmod(descriptor, 0o600) != 0 { failure = errno }
        if failure == nil {
            data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < buffer.count {
                    let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        return
                    }
                    offset += written
                }
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw .fileSystem(path: path, operation: "write", reason: errnoText(failure))
        }
        // The rename itself reaches the disk only with the directory: until then a power loss
        // could bring back the previous file (never a partial one).
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    /// Reads a whole file of at most `limit` bytes. Returns nil when the file does not exist.
    ///
    /// Opened without blocking (a FIFO in its place would otherwise hang the command until a
    /// writer came); anything but a regular file is refused, and so is a file others may read or
    /// write: it holds the account's keys, so it is used only as this store writes it (0600), as
    /// ssh does for private keys.
    static func readFile(_ url: URL, limit: Int) throws(AccountError) -> Data? {
        let path = url.path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw .fileSystem(path: path, operation: "read", reason: errnoText(code))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw .fileSystem(path: path, operation: "read", reason: errnoText())
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .corruptFile(path: path, field: nil, problem: "is not a regular file")
        }
        let permissions = info.st_mode & 0o777
        guard permissions & 0o077 == 0 else {
            throw .corruptFile(
                path: path, field: nil,
                problem: "has permissions \(String(format: "%04o", permissions)), but it holds "
                    + "the account's keys: it must be readable and writable by you only (chmod 600 \(path))")
        }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(path: path, operation: "read", reason: errnoText())
            }
            if count == 0 { break }
            data.append(contentsOf: chunk[0..<count])
            if data.count > limit {
                throw .corruptFile(path: path, field: nil, problem: "is larger than \(limit) bytes")
            }
        }
        return data
    }

    /// Removes a directory tree, first renaming it aside so that it disappears at once.
    static func removeTree(_ url: URL) throws(AccountError) {
        let aside = url.deletingLastPathComponent()
            .appendingPathComponent(".removed-" + UUID().uuidString.lowercased())
        guard rename(url.path, aside.path) == 0 else {
            throw .fileSystem(path: url.path, operation: "remove", reason: errnoText())
        }
        do {
            try FileManager.default.removeItem(at: aside)
        } catch {
            throw .fileSystem(path: aside.path, operation: "remove", reason: "\(error)")
        }
    }
}

/// An exclusive `flock` on a file, held until the value is released. Each instance opens the file
/// anew, so two threads of one process exclude each other as two processes do.
final class FileLock {
    private let descriptor: Int32

    init(path: String) throws(AccountError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .fileSystem(path: path, operation: "open the lock file", reason: SecureFile.errnoText())
        }
        while flock(descriptor, LOCK_EX) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(descriptor)
            throw .fileSystem(path: path, operation: "lock", reason: SecureFile.errnoText(code))
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    static func withLock<T>(at path: String, _ body: () throws(AccountError) -> T) throws(AccountError) -> T {
        let lock = try FileLock(path: path)
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }
}
