import Crypto
import Foundation
import HandoffCore
import SwiftASN1
import X509

/// The pasteable form of an account: `handoff-account-v1:` followed by base64url (no padding) of
/// a compact JSON document and the first 8 bytes of its SHA-256, which catches a damaged or
/// incomplete paste. The code carries everything another host needs to join the account (the
/// authority's key and certificate, the beacon key, the revocation list), so it is as secret as
/// the account itself. Device identities are not in it: each host issues its own.
enum AccountCode {
    static let prefix = "handoff-account-v1:"
    static let checksumLength = 8
    static let maximumLength = 256 << 10

    struct Payload: Codable {
        var format: String
        var version: Int
        var name: String
        var identifier: String
        var createdAt: String
        var beaconKey: String
        /// The raw 32-byte P-256 scalar, base64.
        var authorityKey: String
        /// DER, base64.
        var authorityCertificate: String
        var revokedDevices: [String]
    }

    static func encode(_ stored: StoredAccount) throws(AccountError) -> String {
        let account = stored.account
        let json = try mapping({ AccountError.certificateIssuance("cannot export account \(account.name): \($0)") }) {
            let payload = Payload(
                format: "handoff-account-code", version: 1, name: account.name,
                identifier: account.identifier.uuidString.lowercased(),
                createdAt: AccountFileFormat.formatDate(account.createdAt),
                beaconKey: account.beaconKey.withUnsafeBytes { Data($0) }.base64EncodedString(),
                authorityKey: stored.authorityKey.rawRepresentation.base64EncodedString(),
                authorityCertificate: Data(try CertificateAuthority.derBytes(of: account.authorityCertificate))
                    .base64EncodedString(),
                revokedDevices: account.revokedDevices.map(\.rawValue).sorted())
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try encoder.encode(payload)
        }
        var bytes = json
        bytes.append(contentsOf: SHA256.hash(data: json).prefix(checksumLength))
        return prefix + base64URL(bytes)
    }

    /// Decodes and checks a code; `newName` replaces the name it carries.
    static func decode(_ code: String, as newName: String?) throws(AccountError) -> StoredAccount {
        let text = String(code.unicodeScalars.filter { !$0.properties.isWhitespace })
        guard text.utf8.count <= maximumLength else {
            throw .invalidCode("it is longer than \(maximumLength) characters")
        }
        guard text.hasPrefix(prefix) else {
            throw .invalidCode("it does not start with \"\(prefix)\" (made by `handoff account export`)")
        }
        guard let bytes = fromBase64URL(String(text.dropFirst(prefix.count))) else {
            throw .invalidCode("the text after \"\(prefix)\" is not base64url")
        }
        guard bytes.count > checksumLength else { throw .invalidCode("it is too short (incomplete paste?)") }
        let json = bytes.prefix(bytes.count - checksumLength)
        guard Data(SHA256.hash(data: json).prefix(checksumLength)) == bytes.suffix(checksumLength) else {
            throw .invalidCode("its checksum does not match: the code is damaged or incomplete")
        }
        let payload: Payload
        do throws(AccountError) {
            payload = try AccountFileFormat.decodeJSON(Data(json), path: "account code")
        } catch {
            if case .corruptFile(_, let field, let problem) = error {
                throw .invalidCode(field.map { "field \"\($0)\" \(problem)" } ?? problem)
            }
            throw error
        }
        func invalid(_ field: String, _ problem: String) -> AccountError {
            .invalidCode("field \"\(field)\" \(problem)")
        }
        guard payload.format == "handoff-account-code", payload.version == 1 else {
            throw invalid("version", "is not supported by this version of handoff")
        }
        let name = newName ?? payload.name
        if let problem = AccountFileFormat.problemWithAccountName(name) {
            throw newName == nil ? invalid("name", problem) : .invalidAccountName(name, reason: problem)
        }
        guard let identifier = UUID(uuidString: payload.identifier) else {
            throw invalid("identifier", "is not a UUID")
        }
        guard let createdAt = AccountFileFormat.parseDate(payload.createdAt) else {
            throw invalid("createdAt", "is not an ISO 8601 date")
        }
        guard let beaconKey = Data(base64Encoded: payload.beaconKey), beaconKey.count == 32 else {
            throw invalid("beaconKey", "is not 32 bytes of base64")
        }
        guard let keyBytes = Data(base64Encoded: payload.authorityKey),
            let authorityKey = try? P256.Signing.PrivateKey(rawRepresentation: keyBytes)
        else { throw invalid("authorityKey", "is not a P-256 private key") }
        guard let der = Data(base64Encoded: payload.authorityCertificate),
            let authority = try? Certificate(derEncoded: Array(der))
        else { throw invalid("authorityCertificate", "is not a DER certificate") }
        if let problem = CertificateAuthority.problemWithAuthority(authority, key: authorityKey) {
            throw invalid("authorityCertificate", problem)
        }
        var revoked = Set<DeviceID>()
        for (index, text) in payload.revokedDevices.enumerated() {
            guard let id = CertificateAuthority.canonicalDeviceID(text) else {
                throw invalid("revokedDevices[\(index)]", "is not a device ID (a UUID)")
            }
            revoked.insert(id)
        }
        let account = Account(
            name: name, identifier: identifier, beaconKey: SymmetricKey(data: beaconKey),
            authorityCertificate: authority, createdAt: createdAt, revokedDevices: revoked)
        return StoredAccount(account: account, authorityKey: authorityKey)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func fromBase64URL(_ text: String) -> Data? {
        guard
            text.unicodeScalars.allSatisfy({
                $0.isASCII
                    && (CharacterSet.alphanumerics.contains($0)
                        || $0 == "-" || $0 == "_")
            })
        else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if standard.count % 4 == 1 { return nil }
        while standard.count % 4 != 0 { standard.append("=") }
        return Data(base64Encoded: standard)
    }
}
