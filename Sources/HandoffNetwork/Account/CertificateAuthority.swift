import Crypto
import Foundation
import HandoffCore
import SwiftASN1
import X509

/// Issues and checks the certificates of an account: the self-signed authority and the device
/// certificates it signs. Everything cryptographic is swift-certificates and swift-crypto.
enum CertificateAuthority {
    /// How far back `notValidBefore` is set, so hosts whose clocks lag still accept a new certificate.
    static let clockSkewAllowance: TimeInterval = 86_400
    static let authorityLifetime: TimeInterval = 30 * 365 * 86_400
    static let deviceLifetime: TimeInterval = 20 * 365 * 86_400

    /// The subject of an account's authority. It names the account's identifier, not its name,
    /// because an account can be imported under another name.
    static func authorityName(identifier: UUID) throws -> DistinguishedName {
        try DistinguishedName {
            OrganizationName("Handoff simulator")
            CommonName("Handoff account \(identifier.uuidString.lowercased())")
        }
    }

    static func makeAuthority(
        identifier: UUID, createdAt: Date
    ) throws(AccountError)
        -> (key: P256.Signing.PrivateKey, certificate: Certificate)
    {
        let key = P256.Signing.PrivateKey()
        let certificate = try mapping({ AccountError.certificateIssuance("account authority: \($0)") }) {
            let name = try authorityName(identifier: identifier)
            return try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                notValidBefore: createdAt - clockSkewAllowance, notValidAfter: createdAt + authorityLifetime,
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(keyIdentifier: keyIdentifier(of: key.publicKey))
                },
                issuerPrivateKey: .init(key))
        }
        return (key, certificate)
    }

    static func issueDeviceCertificate(
        id: DeviceID, publicKey: P256.Signing.PublicKey,
        authorityKey: P256.Signing.PrivateKey, authority: Certificate,
        now: Date = Date()
    ) throws(AccountError) -> Certificate {
        try mapping({ AccountError.certificateIssuance("device \(id): \($0)") }) {
            let subject = try DistinguishedName { CommonName(id.rawValue) }
            let notAfter = min(now + deviceLifetime, authority.notValidAfter)
            return try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(publicKey),
                notValidBefore: now - clockSkewAllowance, notValidAfter: notAfter,
                issuer: authority.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth, .clientAuth])
                    SubjectAlternativeNames([.dnsName(id.rawValue)])
                    AuthorityKeyIdentifier(keyIdentifier: keyIdentifier(of: authorityKey.publicKey))
                    SubjectKeyIdentifier(keyIdentifier: keyIdentifier(of: publicKey))
                },
                issuerPrivateKey: .init(authorityKey))
        }
    }

    /// RFC 7093 method 1: the leftmost 160 bits of the SHA-256 of the subject public key bits.
    static func keyIdentifier(of key: P256.Signing.PublicKey) -> ArraySlice<UInt8> {
        ArraySlice(SHA256.hash(data: key.x963Representation).prefix(20))
    }

    static func derBytes(of certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// Whether `certificate` was signed by `authority` (name chaining and signature).
    static func isIssued(_ certificate: Certificate, by authority: Certificate) -> Bool {
        certificate.issuer == authority.subject
            && authority.publicKey.isValidSignature(certificate.signature, for: certificate)
    }

    /// Checks that `certificate` is an acceptable account authority, or says why not.
    static func problemWithAuthority(_ certificate: Certificate, key: P256.Signing.PrivateKey?) -> String? {
        guard let publicKey = P256.Signing.PublicKey(certificate.publicKey) else {
            return "is not a P-256 certificate"
        }
        if let key, key.publicKey.rawRepresentation != publicKey.rawRepresentation {
            return "does not match the authority's private key"
        }
        guard certificate.subject == certificate.issuer,
            certificate.publicKey.isValidSignature(certificate.signature, for: certificate)
        else { return "is not a validly self-signed certificate" }
        guard case .isCertificateAuthority = (try? certificate.extensions.basicConstraints) ?? nil else {
            return "is not a certificate authority (basic constraints CA:true missing)"
        }
        guard let usage = (try? certificate.extensions.keyUsage) ?? nil, usage.keyCertSign else {
            return "lacks the keyCertSign key usage"
        }
        return nil
    }

    /// The device ID a device certificate names (subject CN, equal to its single SAN dNSName), or
    /// why it names none properly. Does not check the issuer.
    static func deviceID(named certificate: Certificate) -> Result<DeviceID, AccountError> {
        let commonNames = certificate.subject.flatMap { $0 }.filter { $0.type == .RDNAttributeType.commonName }
        guard commonNames.count == 1, let commonName = String(commonNames[0].value) else {
            return .failure(.invalidCertificate("the subject must have exactly one common name"))
        }
        guard let id = canonicalDeviceID(commonName), id.rawValue == commonName else {
            return .failure(.invalidCertificate("the common name \"\(commonName.prefix(80))\" is not a lowercase UUID"))
        }
        guard let names = (try? certificate.extensions.subjectAlternativeNames) ?? nil,
            names.contains(.dnsName(commonName))
        else {
            return .failure(.invalidCertificate("the subject alternative names do not include \(commonName)"))
        }
        if case .isCertificateAuthority = (try? certificate.extensions.basicConstraints) ?? nil {
            return .failure(.invalidCertificate("device \(commonName)'s certificate claims to be an authority"))
        }
        return .success(id)
    }

    /// `text` as a canonical device ID (lowercase UUID), accepting any case; nil if not a UUID.
    static func canonicalDeviceID(_ text: String) -> DeviceID? {
        guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { return nil }
        return DeviceID(uuid.uuidString.lowercased())
    }
}
