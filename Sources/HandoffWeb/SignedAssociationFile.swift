import Foundation
import HandoffCore
import SwiftASN1
@_spi(CMS) import X509

/// An association file signed as iOS 8 required it (the seed's Listing 2-8: `openssl smime -sign
/// … -nodetach -outform DER`, served as `application/pkcs7-mime`): a PKCS #7 (CMS) SignedData
/// whose content is the JSON file.
///
/// A device reads it as iOS 8 read it: the signature must verify, with swift-certificates' CMS
/// verifier, against a certificate authority the device trusts (here the local web's authority,
/// the only root devices trust), and then the content is judged as an unsigned file is. Since
/// iOS 9 a site may serve the JSON itself over HTTPS, which is what current systems expect;
/// every refusal says so.
///
/// Parsing only finds the parts (the bytes are hostile: SwiftASN1's BER parser, whose errors
/// become a reason); the cryptography is the library's.
package struct SignedAssociationFile: Sendable, Hashable {
    /// The whole DER (or BER) signed message, as served.
    package var message: Data
    /// The signed content: the JSON file.
    package var content: Data

    /// `id-signedData`, 1.2.840.113549.1.7.2.
    static let signedDataIdentifier: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]

    /// What current systems expect instead, said with every refusal.
    package static let currentRule =
        "current systems read the unsigned JSON file, served as application/json over HTTPS"

    /// The media types of a signed file (iOS 8: `application/pkcs7-mime`).
    package static let mediaTypes: Set<String> = ["application/pkcs7-mime", "application/x-pkcs7-mime"]

    /// Whether `body` looks like a PKCS #7 SignedData (a DER SEQUENCE holding `id-signedData`
    /// near its start), whatever it was served as.
    package static func looksSigned(_ body: Data) -> Bool {
        guard body.first == 0x30 else { return false }
        // The OID's DER bytes within the first few dozen bytes: a JSON file never starts with 0x30.
        let oid: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
        let head = Array(body.prefix(32))
        return head.count >= oid.count
            && (0...(head.count - oid.count)).contains { Array(head[$0..<$0 + oid.count]) == oid }
    }

    /// Finds the signed content of `message`.
    ///
    /// - Throws: a reason, naming what is wrong, when the bytes are not a SignedData with
    ///   attached content.
    package init(message: Data) throws(SignedFileError) {
        self.message = message
        let root: ASN1Node
        do {
            root = try BER.parse(Array(message))
        } catch {
            throw SignedFileError("not a PKCS #7 message (\(error))")
        }
        do {
            let content = try BER.sequence(root, identifier: .sequence) { nodes in
                let type = try ASN1ObjectIdentifier(berEncoded: &nodes)
                guard type == Self.signedDataIdentifier else {
                    throw SignedFileError("a PKCS #7 message of type \(type), not signed data")
                }
                return try BER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { signedData in
                    try Self.encapsulatedContent(of: signedData)
                }
            }
            guard let content else {
                throw SignedFileError("the signature is detached: the file carries no content (sign with -nodetach)")
            }
            self.content = content
        } catch let error as SignedFileError {
            throw error
        } catch {
            throw SignedFileError("not a PKCS #7 signed data message (\(error))")
        }
    }

    /// `SignedData.encapContentInfo.eContent`, nil when absent (a detached signature).
    private static func encapsulatedContent(of signedData: ASN1Node) throws -> Data? {
        try BER.sequence(signedData, identifier: .sequence) { nodes in
            guard nodes.next() != nil, nodes.next() != nil, let encapsulated = nodes.next() else {
                throw SignedFileError("the signed data has no encapsulated content")
            }
            while nodes.next() != nil {}
            return try BER.sequence(encapsulated, identifier: .sequence) { inner in
                _ = try ASN1ObjectIdentifier(berEncoded: &inner)
                let octets = try BER.optionalExplicitlyTagged(&inner, tagNumber: 0, tagClass: .contextSpecific) {
                    node in try ASN1OctetString(berEncoded: node)
                }
                while inner.next() != nil {}
                return octets.map { Data($0.bytes) }
            }
        }
    }

    /// The content once the signature verifies against `trustRoots` now; otherwise why not.
    package func verifiedContent(trustRoots: [Certificate]) async -> Result<Data, SignedFileError> {
        let result = await CMS.isValidSignature(
            dataBytes: content, signatureBytes: message, trustRoots: CertificateStore(trustRoots),
            allowAttachedContent: true
        ) {
            RFC5280Policy()
        }
        switch result {
        case .success:
            return .success(content)
        case .failure(let failure):
            let reason =
                switch failure {
                case .unableToValidateSigner:
                    "its signer is not issued by a certificate authority this device trusts"
                case .invalidCMSBlock(let block):
                    "the signature does not verify (\(String(block.reason.prefix(120))))"
                }
            return .failure(SignedFileError(reason))
        }
    }
}

/// Why a signed association file was not read.
package struct SignedFileError: Error, Sendable, Hashable, CustomStringConvertible {
    package var reason: String

    package init(_ reason: String) {
        self.reason = reason
    }

    package var description: String { reason }
}
