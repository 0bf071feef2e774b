import Crypto
import Foundation
import NIOSSL
import SwiftASN1
@_spi(CMS) import X509

/// The local web's certificate authority: a P-256 key and a self-signed certificate kept in the
/// ``WebFolder`` (created on first use), and the server certificates it issues for the demo
/// hosts. The simulated devices trust it, and only it, for HTTPS: Apple requires the association
/// file over HTTPS with a valid certificate, and this is how a machine with no public name gets
/// one. Everything cryptographic is swift-certificates and swift-crypto; TLS is NIOSSL.
package struct LocalCertificateAuthority {
    package let key: P256.Signing.PrivateKey
    package let certificate: Certificate

    static let clockSkewAllowance: TimeInterval = 86_400
    static let authorityLifetime: TimeInterval = 10 * 365 * 86_400
    static let serverLifetime: TimeInterval = 365 * 86_400

    package init(key: P256.Signing.PrivateKey, certificate: Certificate) {
        self.key = key
        self.certificate = certificate
    }

    /// A new authority (not stored).
    package static func make(now: Date = Date()) throws(WebError) -> LocalCertificateAuthority {
        let key = P256.Signing.PrivateKey()
        do {
            let name = try DistinguishedName {
                OrganizationName("Handoff simulator")
                CommonName("Handoff simulator local web authority")
            }
            let certificate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                notValidBefore: now - clockSkewAllowance, notValidAfter: now + authorityLifetime,
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(keyIdentifier: keyIdentifier(of: key.publicKey))
                },
                issuerPrivateKey: .init(key))
            return LocalCertificateAuthority(key: key, certificate: certificate)
        } catch {
            throw .certificate("cannot make the authority: \(error)")
        }
    }

    /// The authority stored in `folder`, made and stored there first when it has none.
    ///
    /// - Throws: ``WebError`` naming the file when one exists but cannot be used (it is never
    ///   replaced silently: devices trust the one they have).
    package static func loadOrCreate(in folder: WebFolder) throws(WebError) -> LocalCertificateAuthority {
        let manager = FileManager.default
        if manager.fileExists(atPath: folder.authorityCertificate.path)
            || manager.fileExists(atPath: folder.authorityKey.path)
        {
            let certificate = try trustedCertificate(in: folder)
            let keyText = try readText(folder.authorityKey)
            guard let key = try? P256.Signing.PrivateKey(pemRepresentation: keyText) else {
                throw .file(folder.authorityKey.path, "not a P-256 private key in PEM")
            }
            guard key.publicKey.rawRepresentation == P256.Signing.PublicKey(certificate.publicKey)?.rawRepresentation
            else {
                throw .file(
                    folder.authorityKey.path, "does not belong to \(folder.authorityCertificate.lastPathComponent)")
            }
            return LocalCertificateAuthority(key: key, certificate: certificate)
        }
        try folder.create()
        let authority = try make()
        do {
            try Data(authority.key.pemRepresentation.utf8).write(to: folder.authorityKey, options: .atomic)
            try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.authorityKey.path)
            try Data(authority.certificatePEM.utf8).write(to: folder.authorityCertificate, options: .atomic)
        } catch {
            throw .file(folder.url.path, "cannot store the authority: \(error.localizedDescription)")
        }
        return authority
    }

    /// The authority's certificate as devices read it: `ca.pem` in `folder`.
    package static func trustedCertificate(in folder: WebFolder) throws(WebError) -> Certificate {
        let text = try readText(folder.authorityCertificate)
        guard let certificate = try? Certificate(pemEncoded: text) else {
            throw .file(folder.authorityCertificate.path, "not a certificate in PEM")
        }
        return certificate
    }

    /// The certificate in PEM.
    package var certificatePEM: String {
        (try? certificate.serializeAsPEM().pemString) ?? ""
    }

    /// A server certificate for `hosts` (and each one's subdomains, `*.host`, and `localhost`),
    /// with its new key, as NIOSSL wants them, and as a signer of files (a site signs its
    /// association file with the identity it serves HTTPS with, as the seed's Listing 2-8 advises).
    package func issueServerIdentity(
        hosts: [String], now: Date = Date()
    ) throws(WebError)
        -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey, signer: AssociationSigner)
    {
        let serverKey = P256.Signing.PrivateKey()
        do {
            var names: [GeneralName] = [.dnsName("localhost")]
            for host in Set(hosts.map { $0.lowercased() }).sorted() {
                names.append(.dnsName(host))
                names.append(.dnsName("*." + host))
            }
            let subject = try DistinguishedName { CommonName(hosts.first ?? "localhost") }
            let server = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
                notValidBefore: now - Self.clockSkewAllowance,
                notValidAfter: min(now + Self.serverLifetime, certificate.notValidAfter),
                issuer: certificate.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(names)
                    AuthorityKeyIdentifier(keyIdentifier: Self.keyIdentifier(of: key.publicKey))
                    SubjectKeyIdentifier(keyIdentifier: Self.keyIdentifier(of: serverKey.publicKey))
                },
                issuerPrivateKey: .init(key))
            let chain = try NIOSSLCertificate(bytes: Self.der(server), format: .der)
            let nioKey = try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem)
            return ([chain], nioKey, AssociationSigner(certificate: server, key: .init(serverKey)))
        } catch {
            throw .certificate("cannot issue the server certificate: \(error)")
        }
    }

    /// The authority as a NIOSSL trust root.
    package static func trustRoot(_ certificate: Certificate) throws(WebError) -> NIOSSLCertificate {
        do {
            return try NIOSSLCertificate(bytes: der(certificate), format: .der)
        } catch {
            throw .certificate("cannot use the authority's certificate: \(error)")
        }
    }

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// RFC 7093 method 1: the leftmost 160 bits of the SHA-256 of the public key.
    static func keyIdentifier(of key: P256.Signing.PublicKey) -> ArraySlice<UInt8> {
        ArraySlice(SHA256.hash(data: key.x963Representation).prefix(20))
    }

    static func readText(_ file: URL) throws(WebError) -> String {
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            let data = try handle.read(upToCount: 64 * 1024 + 1) ?? Data()
            guard data.count <= 64 * 1024 else { throw WebError.file(file.path, "over 64 KB: not a PEM file") }
            return String(decoding: data, as: UTF8.self)
        } catch let error as WebError {
            throw error
        } catch {
            throw .file(
                file.path,
                "cannot be read (\(error.localizedDescription)); start the local web with `handoff web serve`")
        }
    }
}

/// Signs a site's association file as iOS 8 wanted it: PKCS #7 SignedData with the content
/// attached, DER (`openssl smime -sign -nodetach -outform DER`), through swift-certificates' CMS.
package struct AssociationSigner: Sendable {
    package var certificate: Certificate
    package var key: Certificate.PrivateKey

    package init(certificate: Certificate, key: Certificate.PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// `data` signed, the signer's certificate included.
    package func sign(_ data: Data) throws -> Data {
        Data(try CMS.sign(data, certificate: certificate, privateKey: key, detached: false))
    }
}
