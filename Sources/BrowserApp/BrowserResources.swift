import DeviceAppKit
import Foundation
import HandoffCore
import HandoffManifest

/// The Browser's files: its Info.plist and the sites it serves.
///
/// They are resources of this module (`Sources/BrowserApp/Resources`, copied by SwiftPM into the
/// `Handoff_BrowserApp` resource bundle next to the binary). `demos/apps/Browser/Info.plist` and
/// `demos/sites` are symbolic links to them, so there is one copy of each. The Reader's web site
/// shows the Reader's sample documents, which are the Reader's resources: they are looked up
/// the same way (``locateReaderDocuments()``), and the site says so when they are not there.
package struct BrowserResources: Hashable, Sendable {
    /// The Info.plist, with build-setting references (`$(PRODUCT_BUNDLE_IDENTIFIER)`) unexpanded.
    package var infoPlist: URL
    /// The folder of sites: one folder per host (`sites/HOST/`).
    package var sites: URL
    /// The Reader's sample documents (`SLUG.txt`), shown by `reader.handoffsim.example`; nil when
    /// not found.
    package var readerDocuments: URL?

    package init(infoPlist: URL, sites: URL, readerDocuments: URL?) {
        self.infoPlist = infoPlist
        self.sites = sites
        self.readerDocuments = readerDocuments
    }

    /// The resources in `folder` (`Info.plist` and `sites/`).
    package init(folder: URL, readerDocuments: URL?) {
        self.init(
            infoPlist: folder.appendingPathComponent("Info.plist", isDirectory: false),
            sites: folder.appendingPathComponent("sites", isDirectory: true), readerDocuments: readerDocuments)
    }

    /// Finds the module's resources, and the Reader's documents.
    ///
    /// Looks for the resource bundle SwiftPM builds (`Handoff_BrowserApp.resources`, or
    /// `Handoff_BrowserApp.bundle` on Apple platforms) next to the running binary (as a symbolic
    /// link or not) and in the main bundle, then for the module's source folder (a development
    /// checkout). A missing bundle is an error the caller can report, never a crash.
    ///
    /// - Throws: ``BrowserError/resourcesNotFound(searched:)`` listing the places searched.
    package static func locate() throws(BrowserError) -> BrowserResources {
        switch ResourceFolders.locate("Info.plist", bundleName: "Handoff_BrowserApp", sourceFolder: sourceFolder) {
        case .success(let folder): return BrowserResources(folder: folder, readerDocuments: locateReaderDocuments())
        case .failure(let notFound): throw .resourcesNotFound(searched: notFound.searched)
        }
    }

    /// The Reader's sample documents: `Documents/` in the Reader's resource bundle, else in
    /// its source folder; nil when neither exists.
    package static func locateReaderDocuments() -> URL? {
        let readerSource = sourceFolder.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ReaderApp/Resources", isDirectory: true)
        for folder in ResourceFolders.candidates(bundleName: "Handoff_ReaderApp", sourceFolder: readerSource) {
            let documents = folder.appendingPathComponent("Documents", isDirectory: true)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: documents.path, isDirectory: &isFolder), isFolder.boolValue {
                return documents
            }
        }
        return nil
    }

    /// The resources folder in the source tree this module was built from.
    static var sourceFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Resources", isDirectory: true)
    }
}

/// The Browser could not start.
package enum BrowserError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The module's resources (Info.plist and sites) were not found.
    case resourcesNotFound(searched: [String])
    /// The Info.plist could not be read or has errors (each names the file and the key).
    case manifest(ManifestError)
    /// The Info.plist does not claim the browsing-web activity type.
    case notABrowser(file: String)

    package var description: String {
        switch self {
        case .resourcesNotFound(let searched):
            "the Browser's resources (Info.plist, sites) were not found; searched:\n"
                + searched.map { "  \($0)" }.joined(separator: "\n")
        case .manifest(let error):
            "the Browser's Info.plist is not usable:\n\(error)"
        case .notABrowser(let file):
            "\(file): NSUserActivityTypes does not list \(UserActivity.browsingWebType); the Browser could not continue web pages"
        }
    }
}
