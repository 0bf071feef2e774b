import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic timestamps taken at named points of an offer's and a continuation's path, for
/// `handoff bench --stages`: where the time between the app's call and the peer's outcome goes.
///
/// Off unless a bench turns it on; then each point costs one relaxed atomic load. On, a point
/// takes the monotonic clock and appends it under a lock.
package enum StageMarks {
    /// A point on the path, in the order the path passes it.
    package enum Point: Int, Sendable, CaseIterable, Comparable {
        // The offer: the origin's app makes an activity current; the peer records the offer.
        case madeCurrent
        case beaconFlushed
        case beaconMade
        case beaconLaidOut
        case beaconSealed
        case beaconSent
        case beaconRead
        case beaconOpened
        case beaconOnQueue
        case offerRecorded
        // The continuation: the user chooses the offer; the continuing app restores it.
        case offerChosen
        case requestSent
        case requestRead
        case requestOnQueue
        case payloadEncoded
        case answerSent
        case answerRead
        case payloadDecoded
        case restored

        package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

        /// What happened between the point before this one and this one.
        package var step: String {
            switch self {
            case .madeCurrent: "origin app: the activity made current (becomeCurrent returned)"
            case .beaconFlushed: "origin: the rest of the queue's turn, until the beacon flush"
            case .beaconMade: "origin: the beacon made (announcer and schedule)"
            case .beaconLaidOut: "origin: the beacon's plaintext laid out"
            case .beaconSealed: "origin: the beacon sealed (random nonce, AES-GCM)"
            case .beaconSent: "origin: sendto (the kernel queues the datagram for the peer)"
            case .beaconRead: "peer: woken, the datagram read by its event loop"
            case .beaconOpened: "peer: the beacon opened (AES-GCM), decoded and replay-checked"
            case .beaconOnQueue: "peer: onto the device's queue"
            case .offerRecorded: "peer: the offer evaluated and recorded"
            case .offerChosen: "continuing device: the choice posted"
            case .requestSent: "continuing device: the state machine, until the request is written"
            case .requestRead: "origin: woken, the request read, deciphered and decoded"
            case .requestOnQueue: "origin: onto the device's queue"
            case .payloadEncoded: "origin: the app saves, the payload encoded"
            case .answerSent: "origin: the answer handed to the channel, written and enciphered"
            case .answerRead: "continuing device: woken, the answer read, deciphered and decoded"
            case .payloadDecoded: "continuing device: the payload checked and decoded"
            case .restored: "continuing device: the app continues and restores"
            }
        }
    }

    private static let isOn = Atomic<Bool>(false)
    private static let marks = Mutex<[(Point, UInt64)]>([])

    /// Records `point` now, if marks are being taken.
    @inline(__always)
    package static func mark(_ point: Point) {
        guard isOn.load(ordering: .relaxed) else { return }
        let now = nanoseconds()
        marks.withLock { $0.append((point, now)) }
    }

    /// Forgets earlier marks and starts taking them.
    package static func begin() {
        marks.withLock { $0.removeAll(keepingCapacity: true) }
        isOn.store(true, ordering: .releasing)
    }

    /// Stops taking marks and returns the ones taken since ``begin()``, in the order taken.
    package static func end() -> [(Point, UInt64)] {
        isOn.store(false, ordering: .releasing)
        return marks.withLock { $0 }
    }

    /// The monotonic clock, in nanoseconds (the clock the bench's own timestamps use).
    package static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
