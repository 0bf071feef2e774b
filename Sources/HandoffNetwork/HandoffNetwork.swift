/// HandoffNetwork: accounts and device identities, encrypted discovery beacons over UDP, mutually
/// authenticated TLS sessions for payloads and continuation streams. The only module that imports
/// SwiftNIO and the TLS stack.
package enum HandoffNetwork {
    /// The wire protocol version spoken in beacons and session frames.
    package static let protocolVersion: UInt8 = 2
}
