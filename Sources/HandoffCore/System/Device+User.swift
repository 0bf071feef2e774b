import Foundation

extension Device {
    // MARK: The user

    /// The user chose to continue the activity `peer` offers.
    public func chooseOffer(from peer: DeviceID) {
        StageMarks.mark(.offerChosen)
        let continuation = ContinuationID()
        if system.pendingContinuation == nil, case .web? = system.offers[peer]?.route,
            strikes(.noSiteAssociation, continuation)
        {
            // The lab's no-site-association fault: the page is routed as if its association
            // files were missing, when the app is chosen (before the fetch).
            system.siteAssociationsWithheld = continuation
        }
        post(.offerChosen(peer, continuation: continuation))
    }

    /// The user cancelled the continuation in progress.
    public func cancelContinuation() {
        // Paused in step mode: the gate drops the held steps of the receiving side (the
        // continuation ends here); anything else held happens now.
        if let resumption = gate.cancel(at: clock()) { resume(resumption) }
        post(.continuationCancelled)
    }

    /// The user locked the device: its current activity is withdrawn a few seconds later
    /// (``DeviceConfiguration/advertisingAfterLock``), as Apple's devices do.
    public func lock() { post(.deviceLocked) }

    /// The user unlocked the device: its current activity is advertised again.
    public func unlock() { post(.deviceUnlocked) }

    /// Whether the device is locked.
    public var isLocked: Bool { system.lock.isLocked }

    /// Time passed: lets coalesced saves, timeouts and expiries happen.
    public func tick() {
        // Paused in step mode: the timeouts are suspended.
        guard !gate.suspendsTimeouts else { return }
        // Nothing due (the state machine's own checks): a tick would change nothing, and posting
        // it cost an event's round through the queue after every piece of work. The checks only
        // ever turn true as time passes, so a tick is never skipped that the clock read in
        // handling it would have found due.
        guard Self.tickIsDue(of: &system, at: clock()) else { return }
        post(.tick)
    }

    /// Read in place (see ``nextDeadline``).
    private static func tickIsDue(of system: inout DeviceSystem, at now: Date) -> Bool { system.tickIsDue(at: now) }
}
