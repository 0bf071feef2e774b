import Foundation
import HandoffCore

extension AppleHandoffAdvertisement {
    /// What an Apple device would advertise for the activity `beacon` advertises: the same
    /// activity-type hash (the beacon carries Apple's rule), the webpageURL option, the beacon's
    /// counter cut to Apple's 16 bits, the time byte of the activity's save, and clear flags
    /// `0x00` (the simulator has no Universal Clipboard). Nil for presence, goodbye and leaving.
    package init?(equivalentOf beacon: Beacon) {
        guard case .advertisement(let advertised) = beacon.message else { return nil }
        var options: Options = []
        if advertised.options.contains(.hasWebpageURL) { options.insert(.hasWebpageURL) }
        self.init(
            flags: 0, counter: UInt16(truncatingIfNeeded: beacon.counter),
            activityHash: advertised.activityTypeHash.bytes,
            options: options, timeOffset: Self.timeOffset(savedAt: advertised.savedAt, isCurrent: true))
    }

    /// Apple's advertisement for `beacon`, sealed with `key` and opened again for its fields.
    package static func inspectorBytes(for beacon: Beacon, key: [UInt8] = demoKey) -> AppleAdvertisementBytes? {
        guard let advertisement = Self(equivalentOf: beacon),
            let data = try? advertisement.manufacturerData(key: key),
            let opened = try? open(data, key: key)
        else { return nil }
        return AppleAdvertisementBytes(advertisement: opened.input, plaintext: opened.plaintext, key: key)
    }
}
