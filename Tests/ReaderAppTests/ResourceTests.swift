import DeviceAppKit
import Foundation
import HandoffCore
import HandoffManifest
import HandoffTestSupport
import TerminalCells
import Testing

@testable import ReaderApp

@Suite("Manifest, resources and sample documents")
struct ResourceTests {
    @Test func theManifestIsLoadedFromTheReadersInfoPlist() throws {
        let reader = try ReaderApp()
        #expect(reader.manifest.bundleIdentifier == "com.handoffsim.reader")
        #expect(reader.manifest.teamIdentifier == "SIMTEAM001")
        #expect(reader.manifest.displayName == "Reader")
        let type = try #require(reader.manifest.documentTypes.first)
        #expect(type.contentTypes == ["public.plain-text"])
        #expect(type.ubiquitousActivityType == "com.handoffsim.reader.document")
        #expect(reader.manifest.continuableActivityTypes.contains("com.handoffsim.reader.document"))
    }

    @Test func theDemoFoldersAreLinksToTheModulesResources() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let source = root.appendingPathComponent("Sources/ReaderApp/Resources")
        let plist = root.appendingPathComponent("demos/apps/Reader/Info.plist")
        let scenePlist = root.appendingPathComponent("demos/apps/Reader/Info-Scenes.plist")
        let entitlements = root.appendingPathComponent("demos/apps/Reader/Reader.entitlements")
        let documents = root.appendingPathComponent("demos/documents")
        for (link, name) in [
            (plist, "Info.plist"), (scenePlist, "Info-Scenes.plist"), (entitlements, "Reader.entitlements"),
            (documents, "Documents"),
        ] {
            #expect(
                link.resolvingSymlinksInPath().path
                    == source.appendingPathComponent(name).resolvingSymlinksInPath().path, "\(name)")
        }
        // The lint command reads the same files with the same settings: those of the
        // BuildSettings.xcconfig next to them, and the entitlements beside them.
        let settings = try BuildSettingsFile(
            contentsOf: root.appendingPathComponent("demos/apps/Reader/BuildSettings.xcconfig")
        ).settings
        #expect(settings == ReaderApp.buildSettings)
        #expect(try AppFiles.beside(plist).entitlements?.lastPathComponent == "Reader.entitlements")
        #expect(try AppManifest(appAt: plist) == ReaderApp().manifest)
        #expect(try AppManifest(appAt: scenePlist) == ReaderApp(model: .scenes).manifest)
    }

    @Test func bothModelsDeclareTheSameAppAndOnlyScenesHaveASceneManifest() throws {
        let delegate = try ReaderApp(model: .delegate).manifest
        let scenes = try ReaderApp(model: .scenes).manifest
        #expect(delegate.sceneManifest == nil)
        var withoutScenes = scenes
        withoutScenes.sceneManifest = nil
        #expect(withoutScenes == delegate, "Info-Scenes.plist is Info.plist with a scene manifest")
        let configuration = try #require(scenes.sceneManifest?.configurations.first)
        #expect(configuration.delegateClass == String(reflecting: ReaderSceneDelegate.self))
        #expect(scenes.sceneManifest?.supportsMultipleScenes == true)
        #expect(
            delegate.activityContinuationDomains == ["reader.handoffsim.example"],
            "the entitlements are loaded")
    }

    @Test func aBrokenManifestIsAnErrorNamingTheFileAndTheKey() throws {
        let folder = TemporaryFolder()
        let resources = ReaderResources(folder: folder.url)
        let original = try String(contentsOf: readerResources().infoPlist, encoding: .utf8)

        // No bundle identifier.
        let withoutIdentifier = original.replacingOccurrences(
            of: "<key>CFBundleIdentifier</key>", with: "<key>CFBundleIdentifierX</key>")
        try withoutIdentifier.write(to: resources.infoPlist, atomically: true, encoding: .utf8)
        let missing = try #require(throws: ReaderError.self) { try ReaderApp(resources: resources) }
        #expect(missing.description.contains(resources.infoPlist.path))
        #expect(missing.description.contains("CFBundleIdentifier"))

        // A build setting not given.
        try original.write(to: resources.infoPlist, atomically: true, encoding: .utf8)
        let undefined = try #require(throws: ReaderError.self) {
            try ReaderApp(resources: resources, buildSettings: ["PRODUCT_BUNDLE_IDENTIFIER": "com.handoffsim.reader"])
        }
        #expect(undefined.description.contains("DEVELOPMENT_TEAM"))

        // No document activity.
        let withoutDocuments = original.replacingOccurrences(
            of: "NSUbiquitousDocumentUserActivityType", with: "NSSomethingElse")
        try withoutDocuments.write(to: resources.infoPlist, atomically: true, encoding: .utf8)
        let noActivity = try #require(throws: ReaderError.self) { try ReaderApp(resources: resources) }
        #expect(noActivity == .noDocumentActivity(file: resources.infoPlist.path))
        #expect(noActivity.description.hasPrefix("\(resources.infoPlist.path): CFBundleDocumentTypes: "))

        // No file at all.
        try FileManager.default.removeItem(at: resources.infoPlist)
        let unreadable = try #require(throws: ReaderError.self) { try ReaderApp(resources: resources) }
        #expect(unreadable.description.contains(resources.infoPlist.path))
    }

    @Test func sampleDocumentsAreCopiedOnceAndNeverOverwritten() throws {
        let folder = TemporaryFolder()
        let cloud = folder.folder("cloud")
        let samples = try readerResources().sampleDocuments
        let copied = try SampleDocuments.install(from: samples, into: cloud)
        #expect(copied.map(\.lastPathComponent) == ["handoff-guide.txt", "harrow-point.txt", "night-markets.txt"])
        for url in copied {
            #expect(
                try Data(contentsOf: url) == Data(contentsOf: samples.appendingPathComponent(url.lastPathComponent)))
        }
        // The user edits one and deletes another: the edit stays, the deleted one comes back.
        let edited = cloud.appendingPathComponent("harrow-point.txt")
        try "My own version".write(to: edited, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: cloud.appendingPathComponent("night-markets.txt"))
        let again = try SampleDocuments.install(from: samples, into: cloud)
        #expect(again.map(\.lastPathComponent) == ["night-markets.txt"])
        #expect(try String(contentsOf: edited, encoding: .utf8) == "My own version")
        #expect(try SampleDocuments.install(from: samples, into: cloud).isEmpty)
    }

    @Test func launchingCopiesTheSamplesIntoTheCloudFolderOnly() throws {
        let folder = TemporaryFolder()
        let hood = Neighbourhood()
        let withCloud = try ReaderDevice(
            "Laptop", kind: .laptop, in: hood, cloudFolder: folder.folder("cloud"),
            localFolder: folder.folder("laptop"))
        #expect(withCloud.reader.documents.map(\.location) == [.cloud, .cloud, .cloud])
        #expect(withCloud.logLines == ["Reader: copied 3 sample document(s) into \(folder.folder("cloud").path)"])
        #expect(!FileManager.default.fileExists(atPath: folder.folder("laptop").path))

        // Without a cloud folder (`--no-cloud`) the device truly lacks the samples.
        let withoutCloud = try ReaderDevice(
            "Phone", kind: .phone, in: hood, cloudFolder: nil, localFolder: folder.folder("phone"))
        #expect(withoutCloud.reader.documents.isEmpty)
        #expect(withoutCloud.logLines.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.folder("phone").path))
    }

    @Test func everySampleIsPlainTextWithATitleAndFivePagesOrMore() throws {
        let samples = try readerResources().sampleDocuments
        let names = try FileManager.default.contentsOfDirectory(atPath: samples.path).sorted()
        #expect(names.count >= 3)
        for name in names {
            let data = try Data(contentsOf: samples.appendingPathComponent(name))
            let text = try #require(String(data: data, encoding: .utf8), "\(name) is UTF-8")
            let paged = PagedText(text)
            #expect(paged.pageCount >= 5, "\(name)")
            #expect(paged.title?.isEmpty == false, "\(name)")
        }
    }
}
