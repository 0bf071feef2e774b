import Crypto
import Foundation
import _CryptoExtras

/// AES-GCM with an IV of any length (NIST SP 800-38D), for Apple's Handoff advertisement, whose
/// IV is its 2-byte counter. swift-crypto's `AES.GCM` takes 12-byte nonces only, and a GCM with
/// another IV length differs in one place: the first counter block `J0` is `GHASH(IV padded ‖
/// 0⁶⁴ ‖ [len(IV)]₆₄)` instead of `IV ‖ 0³¹1`.
///
/// Nothing cryptographic is written here (DECISIONS.md, 2026-11-28): the AES block function is
/// swift-crypto's `AES.permute` (`_CryptoExtras`), and every GHASH is computed by swift-crypto's
/// own `AES.GCM`. For a fixed 12-byte nonce `N`, `AES.GCM.seal` of a plaintext `P` with
/// associated data `A` gives the tag `E(N‖1) ⊕ GHASH(A, C)`, where `C` is `P` XOR the keystream
/// `E(N‖2), E(N‖3)…`. Choosing `P` as the wanted `C` XOR that keystream makes the library
/// authenticate exactly `C`, and XOR-ing `E(N‖1)` away leaves `GHASH(A, C)`. `J0` is
/// `GHASH(∅, IV)`: GCM's length block for an empty `A` and a `C` as long as the IV is exactly
/// the IV's length block. What is left is mode glue: XOR, and the 32-bit counter increment.
/// Known-answer tests: the GCM specification's test cases 17 (64-bit IV) and 18 (480-bit IV),
/// and vectors with a 2-byte IV made by OpenSSL (`ShortNonceGCMTests`).
package enum ShortNonceGCM {
    /// What the GCM could not do, with the reason.
    package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        package var description: String
    }

    /// The most bytes of plaintext or associated data this accepts (far above the 10 an
    /// advertisement holds; GCM's own limit is about 64 GB).
    package static let maximumLength = 1 << 20

    /// Encrypts `plaintext`: the ciphertext (as long as the plaintext) and the full 16-byte tag.
    package static func seal(
        _ plaintext: [UInt8], key: SymmetricKey, iv: [UInt8], authenticating aad: [UInt8]
    ) throws(Failure) -> (ciphertext: [UInt8], tag: [UInt8]) {
        try check(key: key, iv: iv, lengths: plaintext.count, aad.count)
        let j0 = try firstCounterBlock(key: key, iv: iv)
        let ciphertext = try counterMode(plaintext, key: key, from: increment(j0))
        let tag = try computeTag(key: key, j0: j0, aad: aad, ciphertext: ciphertext)
        return (ciphertext, tag)
    }

    /// The full 16-byte tag of `ciphertext`: a receiver compares what was sent with its first bytes.
    package static func tag(
        of ciphertext: [UInt8], key: SymmetricKey, iv: [UInt8], authenticating aad: [UInt8]
    ) throws(Failure) -> [UInt8] {
        try check(key: key, iv: iv, lengths: ciphertext.count, aad.count)
        let j0 = try firstCounterBlock(key: key, iv: iv)
        return try computeTag(key: key, j0: j0, aad: aad, ciphertext: ciphertext)
    }

    /// Decrypts `ciphertext` without checking anything: call it only after the tag matched.
    package static func decrypt(_ ciphertext: [UInt8], key: SymmetricKey, iv: [UInt8]) throws(Failure) -> [UInt8] {
        try check(key: key, iv: iv, lengths: ciphertext.count)
        let j0 = try firstCounterBlock(key: key, iv: iv)
        return try counterMode(ciphertext, key: key, from: increment(j0))
    }

    // MARK: The construction

    /// The nonce of the library GCM used as a GHASH oracle; its outputs never leave this type.
    private static let oracleNonce = [UInt8](repeating: 0, count: 12)

    private static func check(key: SymmetricKey, iv: [UInt8], lengths: Int...) throws(Failure) {
        guard [16, 24, 32].contains(key.bitCount / 8) else {
            throw Failure(description: "the key is \(key.bitCount / 8) bytes; AES takes 16, 24 or 32")
        }
        guard !iv.isEmpty, iv.count <= maximumLength else {
            throw Failure(description: "the IV is \(iv.count) bytes; GCM takes 1 to \(maximumLength)")
        }
        for length in lengths where length > maximumLength {
            throw Failure(description: "\(length) bytes is more than the \(maximumLength) this GCM takes")
        }
    }

    /// `E(K, block)`, swift-crypto's AES block function.
    private static func encryptBlock(_ block: [UInt8], key: SymmetricKey) throws(Failure) -> [UInt8] {
        var block = block
        do {
            try AES.permute(&block, key: key)
        } catch {
            throw Failure(description: "the AES block function failed: \(error)")
        }
        return block
    }

    /// The 32-bit increment of GCM (`inc32`): the last four bytes, modulo 2³².
    private static func increment(_ block: [UInt8]) -> [UInt8] {
        var block = block
        var index = 15
        while index >= 12 {
            block[index] &+= 1
            if block[index] != 0 { break }
            index -= 1
        }
        return block
    }

    /// GCM's counter mode (`GCTR`) from `counter`, with the library's block function.
    private static func counterMode(
        _ input: [UInt8], key: SymmetricKey, from counter: [UInt8]
    ) throws(Failure)
        -> [UInt8]
    {
        var output = [UInt8]()
        output.reserveCapacity(input.count)
        var counter = counter
        var offset = 0
        while offset < input.count {
            let stream = try encryptBlock(counter, key: key)
            for index in 0..<min(16, input.count - offset) {
                output.append(input[offset + index] ^ stream[index])
            }
            offset += 16
            counter = increment(counter)
        }
        return output
    }

    /// `GHASH(A ‖ 0ᵛ ‖ C ‖ 0ᵘ ‖ [len(A)]₆₄ ‖ [len(C)]₆₄)`, computed by the library's `AES.GCM`.
    private static func ghash(key: SymmetricKey, aad: [UInt8], ciphertext: [UInt8]) throws(Failure) -> [UInt8] {
        let first = oracleNonce + [0, 0, 0, 1]
        // The plaintext whose encryption under the oracle nonce is exactly `ciphertext`.
        let plaintext = try counterMode(ciphertext, key: key, from: increment(first))
        let sealed: AES.GCM.SealedBox
        do {
            sealed = try AES.GCM.seal(
                plaintext, using: key, nonce: try AES.GCM.Nonce(data: oracleNonce), authenticating: aad)
        } catch {
            throw Failure(description: "the library's AES-GCM failed: \(error)")
        }
        let mask = try encryptBlock(first, key: key)
        return zip(Array(sealed.tag), mask).map { $0 ^ $1 }
    }

    /// `J0`: `IV ‖ 0³¹1` for a 96-bit IV, else `GHASH(IV ‖ 0^(s+64) ‖ [len(IV)]₆₄)`.
    private static func firstCounterBlock(key: SymmetricKey, iv: [UInt8]) throws(Failure) -> [UInt8] {
        if iv.count == 12 { return iv + [0, 0, 0, 1] }
        return try ghash(key: key, aad: [], ciphertext: iv)
    }

    /// `E(J0) ⊕ GHASH(A, C)`.
    private static func computeTag(
        key: SymmetricKey, j0: [UInt8], aad: [UInt8], ciphertext: [UInt8]
    )
        throws(Failure) -> [UInt8]
    {
        let hash = try ghash(key: key, aad: aad, ciphertext: ciphertext)
        let mask = try encryptBlock(j0, key: key)
        return zip(hash, mask).map { $0 ^ $1 }
    }
}
