import Foundation
import HandoffCore
import HandoffHeadless
import HandoffTestSupport
import Testing

/// iCloud documents on headless devices: `open-document` opens one in the device's own container,
/// a continued document URL arrives in the receiver's container, and a scripted app that forgets
/// security-scoped access (`security-scope`) cannot read it, and says so.
@Suite("Headless iCloud documents and security-scoped access")
struct HeadlessDocumentTests {
    /// A cloud folder and two device containers linking to it, removed afterwards.
    final class Containers {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "HeadlessDocumentTests-\(UUID().uuidString)", isDirectory: true)
        var laptop: URL { root.appendingPathComponent("containers/laptop", isDirectory: true) }
        var phone: URL { root.appendingPathComponent("containers/phone", isDirectory: true) }

        init() throws {
            let files = FileManager.default
            try files.createDirectory(at: root.appendingPathComponent("cloud"), withIntermediateDirectories: true)
            try files.createDirectory(at: root.appendingPathComponent("containers"), withIntermediateDirectories: true)
            for container in [laptop, phone] {
                try files.createSymbolicLink(atPath: container.path, withDestinationPath: "../cloud")
            }
        }

        deinit { try? FileManager.default.removeItem(at: root) }
    }

    @Test func aScriptedAppReadsTheDocumentOnlyWithSecurityScopedAccess() throws {
        let containers = try Containers()
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let phone = world.add("Phone")
        laptop.device.ubiquityContainerURL = containers.laptop
        phone.device.ubiquityContainerURL = containers.phone
        let opened = laptop.ok(["cmd": "open-document", "name": "walden.txt", "text": "Walden\n\nChapter 1\n"])
        #expect(opened["type"] == "com.example.reader.document")
        #expect(opened["current"] == true)
        #expect(opened["file"]?.stringValue == containers.laptop.appendingPathComponent("walden.txt").path)
        world.hood.settle()

        phone.ok(["cmd": "continue"])
        world.hood.settle()
        let read = try #require(phone.events("document-read").last)
        let phonePath = containers.phone.appendingPathComponent("walden.txt").path
        #expect(read["file"]?.stringValue == phonePath, "rewritten to the phone's container: \(read.jsonText)")
        #expect(read["ok"] == true, "\(read.jsonText)")
        #expect(read["bytes"] == 18)
        #expect(read["securityScoped"] == true)

        // The app that forgets startAccessingSecurityScopedResource cannot read it.
        #expect(phone.ok(["cmd": "security-scope", "start": false])["start"] == false)
        phone.ok(["cmd": "continue"])
        world.hood.settle()
        let failed = try #require(phone.events("document-read").last)
        #expect(failed["ok"] == false, "\(failed.jsonText)")
        #expect(failed["securityScoped"] == false)
        let error = failed["error"]?.stringValue ?? ""
        #expect(error.contains("walden.txt") && error.contains("startAccessingSecurityScopedResource()"), "\(error)")
        #expect(phone.events("restored").count == 2, "the state is restored either way: only the file is closed")
    }

    @Test func openDocumentNeedsAContainerAndAFileName() throws {
        let containers = try Containers()
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        #expect(
            laptop.fails(raw: #"{"cmd":"open-document","name":"a.txt"}"#)
                == "open-document: this device has no iCloud container (it runs with --no-cloud)")
        laptop.device.ubiquityContainerURL = containers.laptop
        for name in ["../a.txt", ".hidden", ""] {
            let message = laptop.fails(raw: #"{"cmd":"open-document","name":"\#(name)"}"#)
            #expect(message.hasPrefix("open-document: \"name\" must be a file name"), "\(name): \(message)")
        }
        #expect(laptop.fails(raw: #"{"cmd":"open-document"}"#) == "open-document: \"name\" is required")
        #expect(
            laptop.fails(raw: #"{"cmd":"security-scope","start":"no"}"#)
                .hasPrefix("security-scope: \"start\" must be true or false"))
    }
}
