import Foundation

extension Device {
    // MARK: The user

    /// The user chose to continue the activity `peer` offers.
    public func chooseOffer(from peer: DeviceID) { post(.offerChosen(peer, continuation: ContinuationID())) }

    /// The user cancelled the continuation in progress.
    public func cancelContinuation() {
        if pausedAt != nil {
            // Paused in step mode: the held steps of the receiving side are dropped (the
            // continuation ends here); anything else held happens now.
            held.removeAll { step in
                switch step {
                case .effect(.launch), .effect(.callWillContinue), .effect(.requestPayload), .effect(.deliver): true
                case .action(.restore?, _): true
                default: false
                }
            }
            let stepping = isStepping
            isStepping = false
            if held.isEmpty { pausedAt = nil; pausedSince = nil } else { stepNext() }
            isStepping = stepping
        }
        post(.continuationCancelled)
    }

    /// Time passed: lets coalesced saves, timeouts and expiries happen.
    public func tick() {
        // Paused in step mode: the timeouts are suspended.
        guard pausedAt == nil else { return }
        post(.tick)
    }
}
