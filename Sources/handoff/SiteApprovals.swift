import BrowserApp
import Foundation
import HandoffCore

/// The demo web sites' `apple-app-site-association` files (in the Browser's resources, linked
/// from demos/sites): which apps each host approves for web-to-native continuation. Every device
/// knows them, as every Apple device can fetch them, whether or not it has the Browser.
struct SiteApprovals: Sendable {
    var associations: [SiteAssociation] = []

    /// Reads the files; problems (a missing folder, a bad file) are logged, never fatal.
    static func load(log: (String) -> Void) -> SiteApprovals {
        let sites: URL
        do {
            sites = try BrowserResources.locate().sites
        } catch {
            log("site associations unavailable: \(error)")
            return SiteApprovals()
        }
        let (associations, problems) = SiteAssociation.load(sites: sites)
        for problem in problems { log("site association: \(problem)") }
        return SiteApprovals(associations: associations)
    }

    /// Tells `device` (on its run loop) which apps each host approves.
    func apply(to device: Device) {
        for association in associations {
            device.setSiteApproval(host: association.host, applicationIdentifiers: association.approvedApplicationIdentifiers)
        }
    }
}
