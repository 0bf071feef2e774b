import Crypto
import Foundation
import HandoffCore
import SwiftASN1
import X509

/// An account: the simulated iCloud keychain that the devices of one user share.
///
/// It holds two secrets: the beacon key (discovery) and the certificate authority that issues
/// every device's identity (sessions). The authority's private key stays in the ``AccountStore``;
/// it is read only when a device identity is issued, never kept in this value. See
/// docs/security.md for the trust model.
package struct Account: Sendable {
    package let name: String
    package let identifier: UUID
    /// The account's shared discovery secret (32 bytes): beacons are sealed with keys derived from it.
    package var beaconKey: SymmetricKey { beaconKeyStorage.value }
    /// The account's certificate authority certificate (P-256, CA:true, keyCertSign).
    package let authorityCertificate: Certificate
    package let createdAt: Date
    package var revokedDevices: Set<DeviceID>
    private let beaconKeyStorage: ImmutableCryptoValue<SymmetricKey>

    init(
        name: String, identifier: UUID, beaconKey: SymmetricKey, authorityCertificate: Certificate, createdAt: Date,
        revokedDevices: Set<DeviceID>
    ) {
        self.name = name
        self.identifier = identifier
        self.beaconKeyStorage = ImmutableCryptoValue(beaconKey)
        self.authorityCertificate = authorityCertificate
        self.createdAt = createdAt
        self.revokedDevices = revokedDevices
    }

    /// The SHA-256 of the authority certificate's DER encoding, as colon-separated upper-case hex
    /// (the form `openssl x509 -fingerprint -sha256` prints).
    package var authorityFingerprint: String {
        let der = (try? CertificateAuthority.derBytes(of: authorityCertificate)) ?? []
        return SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// Whether `id` is on the account's revocation list.
    package func isRevoked(_ id: DeviceID) -> Bool { revokedDevices.contains(id) }
}

/// One device's identity in an account: its own P-256 key pair and a certificate the account's
/// authority issued for it.
package struct DeviceIdentity: Sendable {
    /// A lowercase UUID string, stable per (account, device name) in one store.
    package let id: DeviceID
    package let name: String
    package let kind: PeerInfo.Kind
    package let accountName: String
    package var privateKey: P256.Signing.PrivateKey { privateKeyStorage.value }
    /// Issued by the account CA: subject CN = id, SAN dNSName = id, EKU serverAuth + clientAuth.
    package let certificate: Certificate
    /// When the identity was issued.
    package let createdAt: Date

    private let privateKeyStorage: ImmutableCryptoValue<P256.Signing.PrivateKey>

    init(
        id: DeviceID, name: String, kind: PeerInfo.Kind, accountName: String, privateKey: P256.Signing.PrivateKey,
        certificate: Certificate, createdAt: Date
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.accountName = accountName
        self.privateKeyStorage = ImmutableCryptoValue(privateKey)
        self.certificate = certificate
        self.createdAt = createdAt
    }

    package var peerInfo: PeerInfo { PeerInfo(id: id, name: name, kind: kind) }

    /// What the store lists about this device.
    package func record(isRevoked: Bool) -> DeviceRecord {
        DeviceRecord(id: id, name: name, kind: kind, createdAt: createdAt, isRevoked: isRevoked)
    }
}

/// What an account knows about one of the devices issued on this host.
package struct DeviceRecord: Sendable, Hashable, Codable {
    package let id: DeviceID
    package let name: String
    package let kind: PeerInfo.Kind
    package let createdAt: Date
    package let isRevoked: Bool

    package init(id: DeviceID, name: String, kind: PeerInfo.Kind, createdAt: Date, isRevoked: Bool) {
        self.id = id
        self.name = name
        self.kind = kind
        self.createdAt = createdAt
        self.isRevoked = isRevoked
    }
}

/// Why an account operation failed. Every case names the account, file or field concerned.
package enum AccountError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The account name is not `[A-Za-z0-9._-]{1,64}` (or starts with a dot).
    case invalidAccountName(String, reason: String)
    case invalidDeviceName(String, reason: String)
    case invalidDeviceID(String)
    case accountExists(name: String, path: String)
    case accountNotFound(name: String, path: String)
    /// The file could not be read or written (permissions, disk full, ...).
    case fileSystem(path: String, operation: String, reason: String)
    /// The file was read but its content is not acceptable; `field` is nil when the whole file is.
    case corruptFile(path: String, field: String?, problem: String)
    /// An account code (export/import) is not acceptable.
    case invalidCode(String)
    /// An imported code names an existing account's identifier but carries other secrets.
    case accountMismatch(name: String, reason: String)
    /// A certificate could not be built or serialised.
    case certificateIssuance(String)
    /// A TLS configuration could not be built from an identity.
    case tlsConfiguration(String)
    /// A peer's certificate cannot be read or does not name a device properly.
    case invalidCertificate(String)
    /// A peer's certificate was not issued by this account's authority.
    case notIssuedByAccount(account: String)
    /// A peer's certificate names a device the account has revoked.
    case deviceRevoked(DeviceID, account: String)

    package var description: String {
        switch self {
        case .invalidAccountName(let name, let reason):
            "invalid account name \(Self.quoted(name)): \(reason)"
        case .invalidDeviceName(let name, let reason):
            "invalid device name \(Self.quoted(name)): \(reason)"
        case .invalidDeviceID(let id):
            "invalid device ID \(Self.quoted(id)): expected a UUID such as 8d3e5c1a-0b6f-4e2a-9c7d-1f2e3a4b5c6d"
        case .accountExists(let name, let path):
            "account \(name) already exists (\(path))"
        case .accountNotFound(let name, let path):
            "no account named \(name) (looked in \(path))"
        case .fileSystem(let path, let operation, let reason):
            "\(path): cannot \(operation): \(reason)"
        case .corruptFile(let path, let field?, let problem):
            "\(path): field \"\(field)\" \(problem)"
        case .corruptFile(let path, nil, let problem):
            "\(path): \(problem)"
        case .invalidCode(let problem):
            "invalid account code: \(problem)"
        case .accountMismatch(let name, let reason):
            "account \(name): \(reason)"
        case .certificateIssuance(let reason):
            "cannot issue a certificate: \(reason)"
        case .tlsConfiguration(let reason):
            "cannot build the TLS configuration: \(reason)"
        case .invalidCertificate(let reason):
            "unacceptable certificate: \(reason)"
        case .notIssuedByAccount(let account):
            "the certificate was not issued by account \(account)'s authority"
        case .deviceRevoked(let id, let account):
            "device \(id) has been revoked in account \(account)"
        }
    }

    private static func quoted(_ text: String) -> String {
        let limited = text.count > 80 ? String(text.prefix(80)) + "..." : text
        return "\""
            + limited.unicodeScalars.map {
                $0.properties.generalCategory == .control
                    ? $0.escaped(asASCII: true) : String($0)
            }.joined() + "\""
    }
}

/// Carries a swift-crypto key across concurrency domains.
///
/// swift-crypto 3 (`Package.swift` asks for 3.12.3 up to, not including, 4) does not declare its
/// key types `Sendable`; they are immutable values (swift-crypto 4 declares them `Sendable`), so
/// sharing one is safe.
struct ImmutableCryptoValue<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs `body`, turning any error it throws into an ``AccountError``.
@inline(__always)
func mapping<T>(_ transform: (any Error) -> AccountError, _ body: () throws -> T) throws(AccountError) -> T {
    do {
        return try body()
    } catch {
        throw transform(error)
    }
}
