import Foundation
import Testing

@testable import HandoffCore

/// Inputs the fuzzers found (Fuzz/, docs/fuzzing.md), kept as regressions.
@Suite("Fuzzing regressions: payload")
struct PayloadFuzzRegressionTests {
    @Test func anExpirationDateThatIsNotAFiniteTimeIsRefused() throws {
        for seconds in [Double.nan, .infinity, -.infinity] {
            let payload = ActivityPayload(
                activityType: "com.example.a", teamIdentifier: "T", bundleIdentifier: "b",
                expirationDate: Date(timeIntervalSinceReferenceDate: seconds))
            #expect {
                _ = try ActivityPayload(decoding: payload.encoded())
            } throws: { error in
                "\(error)".contains("expiration date must be a finite number of seconds")
            }
        }
        // Found by fuzz-payload: an expiration date of NaN, which never equals itself.
        let found: [UInt8] = [
            0x48, 0x4F, 0x50, 0x4C, 0x01, 0x0C, 0x0C, 0x0C, 0x0C, 0x0C, 0x0C, 0x0C, 0x00, 0x00, 0x7F, 0x00,
            0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0xFF, 0xF9, 0x00, 0x00, 0x00,
        ]
        #expect(throws: PayloadDecodingError.self) { _ = try ActivityPayload(decoding: Data(found)) }
    }
}
