import DeviceAppKit
import Foundation
import HandoffCore
import HandoffManifest

/// The Reader's files: its Info.plists (one per app model), its entitlements and its sample
/// documents.
///
/// They are resources of this module (`Sources/ReaderApp/Resources`, copied by SwiftPM into
/// the `Handoff_ReaderApp` resource bundle next to the binary). `demos/apps/Reader/Info.plist`,
/// `Info-Scenes.plist`, `Reader.entitlements` and `demos/documents` are symbolic links to them,
/// so there is one copy of each.
package struct ReaderResources: Hashable, Sendable {
    /// The Info.plist of the app-delegate model, with build-setting references
    /// (`$(PRODUCT_BUNDLE_IDENTIFIER)`) unexpanded.
    package var infoPlist: URL
    /// The Info.plist of the scenes model: the same keys and a `UIApplicationSceneManifest`
    /// naming ``ReaderSceneDelegate``.
    package var sceneInfoPlist: URL
    /// The entitlements (`activitycontinuation:reader.handoffsim.example`), read when present.
    package var entitlements: URL
    /// The folder of sample documents.
    package var sampleDocuments: URL

    package init(infoPlist: URL, sceneInfoPlist: URL? = nil, entitlements: URL? = nil, sampleDocuments: URL) {
        let folder = infoPlist.deletingLastPathComponent()
        self.infoPlist = infoPlist
        self.sceneInfoPlist = sceneInfoPlist ?? folder.appendingPathComponent("Info-Scenes.plist", isDirectory: false)
        self.entitlements = entitlements ?? folder.appendingPathComponent("Reader.entitlements", isDirectory: false)
        self.sampleDocuments = sampleDocuments
    }

    /// The resources in `folder` (`Info.plist`, `Info-Scenes.plist`, `Reader.entitlements` and
    /// `Documents/`).
    package init(folder: URL) {
        self.init(
            infoPlist: folder.appendingPathComponent("Info.plist", isDirectory: false),
            sampleDocuments: folder.appendingPathComponent("Documents", isDirectory: true))
    }

    /// The Info.plist the Reader of `model` uses.
    package func infoPlist(for model: AppModel) -> URL {
        model == .scenes ? sceneInfoPlist : infoPlist
    }

    /// Finds the module's resources.
    ///
    /// Looks for the resource bundle SwiftPM builds (`Handoff_ReaderApp.resources`, or
    /// `Handoff_ReaderApp.bundle` on Apple platforms) next to the running binary (as a symbolic
    /// link or not) and in the main bundle, then for the module's source folder (a development
    /// checkout). Unlike SwiftPM's generated `Bundle.module`, a missing bundle is an error the
    /// caller can report, not a crash.
    ///
    /// - Throws: ``ReaderError/resourcesNotFound(searched:)`` listing the places searched.
    package static func locate() throws(ReaderError) -> ReaderResources {
        switch ResourceFolders.locate("Info.plist", bundleName: bundleName, sourceFolder: sourceFolder) {
        case .success(let folder): return ReaderResources(folder: folder)
        case .failure(let notFound): throw .resourcesNotFound(searched: notFound.searched)
        }
    }

    /// The name SwiftPM gives this module's resource bundle (package name, target name).
    static let bundleName = "Handoff_ReaderApp"

    /// The resources folder in the source tree this module was built from.
    static var sourceFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Resources", isDirectory: true)
    }
}

/// The Reader could not start.
package enum ReaderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The module's resources (Info.plist and sample documents) were not found.
    case resourcesNotFound(searched: [String])
    /// The Info.plist could not be read or has errors (each names the file and the key).
    case manifest(ManifestError)
    /// The Info.plist declares no document type for plain text with a ubiquitous activity type.
    case noDocumentActivity(file: String)
    /// The Reader was asked to write a handoff version it does not know.
    case unsupportedVersion(Int)

    package var description: String {
        switch self {
        case .resourcesNotFound(let searched):
            "the Reader's resources (Info.plist, Documents) were not found; searched:\n"
                + searched.map { "  \($0)" }.joined(separator: "\n")
        case .manifest(let error):
            "the Reader's Info.plist is not usable:\n\(error)"
        case .noDocumentActivity(let file):
            "\(file): CFBundleDocumentTypes: no document type for \(ReaderApp.contentType) declares "
                + "NSUbiquitousDocumentUserActivityType; the Reader's documents could not hand off"
        case .unsupportedVersion(let version):
            "the Reader cannot write handoff version \(version); it writes versions "
                + "\(ReadingState.writableVersions.lowerBound) to \(ReadingState.writableVersions.upperBound) "
                + "(\(ReadingState.currentVersion) is the current one, \(ReadingState.rehearsalVersion) stands in for a newer Reader)"
        }
    }
}
