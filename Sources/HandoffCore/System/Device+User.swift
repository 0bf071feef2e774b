import Foundation

extension Device {
    // MARK: The user

    /// The user chose to continue the activity `peer` offers.
    public func chooseOffer(from peer: DeviceID) { post(.offerChosen(peer, continuation: ContinuationID())) }

    /// The user cancelled the continuation in progress.
    public func cancelContinuation() {
        // Paused in step mode: the gate drops the held steps of the receiving side (the
        // continuation ends here); anything else held happens now.
        if let resumption = gate.cancel(at: clock()) { resume(resumption) }
        post(.continuationCancelled)
    }

    /// Time passed: lets coalesced saves, timeouts and expiries happen.
    public func tick() {
        // Paused in step mode: the timeouts are suspended.
        guard !gate.suspendsTimeouts else { return }
        post(.tick)
    }
}
