import Foundation
import HandoffCore

extension Explanation {
    /// Why a web page went to the Browser rather than an app that names its host: per app and
    /// domain, what the site's association file gave (404, not JSON, redirected, unreachable…).
    init(webPageOnHost host: String, refusals: [WebRoutingRefusal], snapshot: DeviceSnapshot) {
        title = "Opened in the Browser"
        let reasons = refusals.map { refusal in
            let app =
                snapshot.apps.first { $0.bundleIdentifier == refusal.bundleIdentifier }?.name
                ?? refusal.bundleIdentifier
            let outcome = refusal.outcome.map(\.description) ?? "the association file was not fetched yet"
            return "\(app) (\(refusal.domain)): \(outcome)"
        }
        text =
            "No site approves an app here for \(host), so the page opens in the Browser. "
            + reasons.joined(separator: "; ") + ". A site approves an app by listing it in its "
            + "apple-app-site-association file (F2: the log)."
    }
}
