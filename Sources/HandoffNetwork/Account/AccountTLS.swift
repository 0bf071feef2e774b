import Crypto
import Foundation
import HandoffCore
import NIOSSL
import X509

/// Mutual TLS 1.3 between the devices of one account.
///
/// Both sides present their device certificate and NIOSSL verifies the peer's chain against the
/// account's authority as the only trust root (`certificateVerification = .noHostnameVerification`,
/// `trustRoots = .certificates([ca])`); with that setting the server requires a client
/// certificate. Host names are not checked: after the handshake, ``Account/verifiedDeviceID(of:)``
/// says which device the peer proved to be (and whether it is revoked), and the session compares
/// it with the device the beacon named.
extension DeviceIdentity {
    package func makeServerTLSConfiguration(trusting account: Account) throws(AccountError) -> TLSConfiguration {
        let material = try tlsMaterial(trusting: account)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(material.certificate)], privateKey: .privateKey(material.key))
        Self.restrict(&configuration, root: material.root)
        return configuration
    }

    package func makeClientTLSConfiguration(trusting account: Account) throws(AccountError) -> TLSConfiguration {
        let material = try tlsMaterial(trusting: account)
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateChain = [.certificate(material.certificate)]
        configuration.privateKey = .privateKey(material.key)
        Self.restrict(&configuration, root: material.root)
        return configuration
    }

    private static func restrict(_ configuration: inout TLSConfiguration, root: NIOSSLCertificate) {
        configuration.minimumTLSVersion = .tlsv13
        configuration.maximumTLSVersion = .tlsv13
        configuration.certificateVerification = .noHostnameVerification
        configuration.trustRoots = .certificates([root])
        configuration.additionalTrustRoots = []
    }

    private func tlsMaterial(
        trusting account: Account
    ) throws(AccountError)
        -> (certificate: NIOSSLCertificate, key: NIOSSLPrivateKey, root: NIOSSLCertificate)
    {
        guard CertificateAuthority.isIssued(certificate, by: account.authorityCertificate) else {
            throw .tlsConfiguration("device \(id)'s certificate was not issued by account \(account.name)'s authority")
        }
        return try mapping({ AccountError.tlsConfiguration("device \(id): \($0)") }) {
            let certificate = try NIOSSLCertificate(bytes: CertificateAuthority.derBytes(of: certificate), format: .der)
            let key = try NIOSSLPrivateKey(bytes: Array(privateKey.pemRepresentation.utf8), format: .pem)
            let root = try NIOSSLCertificate(
                bytes: CertificateAuthority.derBytes(of: account.authorityCertificate), format: .der)
            return (certificate, key, root)
        }
    }
}

extension Account {
    /// After a handshake: the device ID proven by a peer's (already chain-verified) certificate, or
    /// why it is not acceptable (not issued by this account's CA, no/invalid CN, revoked).
    ///
    /// The check stands on its own: it verifies the authority's signature and the validity period
    /// again rather than trusting that the certificate came through a verified handshake.
    package func verifiedDeviceID(of peerCertificate: NIOSSLCertificate) -> Result<DeviceID, AccountError> {
        guard let der = try? peerCertificate.toDERBytes(), let certificate = try? Certificate(derEncoded: der) else {
            return .failure(.invalidCertificate("it cannot be parsed"))
        }
        return verifiedDeviceID(of: certificate)
    }

    /// ``verifiedDeviceID(of:)-(NIOSSLCertificate)`` for a swift-certificates value.
    package func verifiedDeviceID(of certificate: Certificate, at now: Date = Date()) -> Result<DeviceID, AccountError>
    {
        guard CertificateAuthority.isIssued(certificate, by: authorityCertificate) else {
            return .failure(.notIssuedByAccount(account: name))
        }
        guard certificate.notValidBefore <= now, now <= certificate.notValidAfter else {
            return .failure(.invalidCertificate("it is not valid at \(AccountFileFormat.formatDate(now))"))
        }
        switch CertificateAuthority.deviceID(named: certificate) {
        case .failure(let error):
            return .failure(error)
        case .success(let id) where isRevoked(id):
            return .failure(.deviceRevoked(id, account: name))
        case .success(let id):
            return .success(id)
        }
    }
}
