import Crypto
import Dispatch
import Foundation
import HandoffCore
import HandoffNetwork
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Testing
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Accounts")
struct AccountTests {
    // MARK: Accounts

    @Test func createListShowAndRemove() throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        #expect(try store.accountNames() == [])

        let beta = try store.createAccount(named: "beta")
        let alpha = try store.createAccount(named: "alpha")
        #expect(try store.accountNames() == ["alpha", "beta"])
        #expect(alpha.name == "alpha")
        #expect(alpha.identifier != beta.identifier)
        #expect(alpha.revokedDevices.isEmpty)
        #expect(alpha.beaconKey.bitCount == 256)
        #expect(abs(alpha.createdAt.timeIntervalSinceNow) < 60)

        let reread = try AccountStore(directory: directory.url).account(named: "alpha")
        #expect(reread.identifier == alpha.identifier)
        #expect(reread.createdAt == alpha.createdAt)
        #expect(reread.authorityCertificate == alpha.authorityCertificate)
        #expect(reread.beaconKey == alpha.beaconKey)
        #expect(reread.authorityFingerprint == alpha.authorityFingerprint)
        #expect(alpha.authorityFingerprint.split(separator: ":").count == 32)

        // The authority is a P-256 CA with keyCertSign.
        #expect(P256.Signing.PublicKey(alpha.authorityCertificate.publicKey) != nil)
        #expect(try alpha.authorityCertificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try alpha.authorityCertificate.extensions.keyUsage?.keyCertSign == true)

        #expect(throws: AccountError.accountExists(name: "alpha", path: store.directory(ofAccount: "alpha").path)) {
            try store.createAccount(named: "alpha")
        }
        try store.removeAccount(named: "alpha")
        #expect(try store.accountNames() == ["beta"])
        #expect(throws: AccountError.self) { try store.account(named: "alpha") }
        do {
            try store.removeAccount(named: "alpha")
            Issue.record("removing a missing account succeeded")
        } catch {
            guard case .accountNotFound(let name, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(name == "alpha")
        }
    }

    @Test(arguments: ["", ".hidden", "..", "a/b", "spaced name", "é", String(repeating: "x", count: 65)])
    func invalidAccountNamesAreRefused(name: String) {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        do {
            _ = try store.createAccount(named: name)
            Issue.record("created an account named \(name)")
        } catch {
            guard case .invalidAccountName = error else {
                Issue.record("\(error)")
                return
            }
            #expect(error.description.hasPrefix("invalid account name"))
        }
    }

    @Test func validAccountNames() throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        for name in ["a", "A-b_c.d", "0", String(repeating: "z", count: 64)] {
            _ = try store.createAccount(named: name)
        }
        #expect(try store.accountNames().count == 4)
    }

    @Test func demoIsCreatedOnFirstUseOnly() throws {
        let directory = AccountsScratch()
        let first = try AccountStore(directory: directory.url).accountCreatingIfNeeded(named: "demo")
        let second = try AccountStore(directory: directory.url).accountCreatingIfNeeded(named: "demo")
        #expect(first.identifier == second.identifier)
        #expect(try AccountStore(directory: directory.url).accountNames() == ["demo"])
    }

    @Test func concurrentFirstUseCreatesOneAccount() throws {
        let directory = AccountsScratch()
        let identifiers = Collector<UUID>()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let store = AccountStore(directory: directory.url)
            if let account = try? store.accountCreatingIfNeeded(named: "demo") {
                identifiers.append(account.identifier)
            }
        }
        #expect(identifiers.values.count == 8)
        #expect(Set(identifiers.values).count == 1)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(leftovers == ["demo"])
    }

    /// An account appears whole: a process reading it while another creates it finds all of it or
    /// none of it, never a directory without its file. The demo's two devices, started at once in a
    /// new account, once raced so: the reader missed the file, then saw the directory renamed in.
    @Test func anAccountBeingCreatedIsFoundWholeOrNotAtAll() throws {
        let directory = AccountsScratch()
        let problems = Collector<String>()
        let names = (0..<100).map { "race-\($0)" }
        DispatchQueue.concurrentPerform(iterations: 2) { role in
            let store = AccountStore(directory: directory.url)
            for name in names {
                if role == 0 {
                    do { _ = try store.createAccount(named: name) } catch {
                        problems.append("creating \(name): \(error)")
                    }
                    continue
                }
                let deadline = ContinuousClock.now + .seconds(30)
                while ContinuousClock.now < deadline {
                    do throws(AccountError) {
                        _ = try store.account(named: name)
                        break
                    } catch .accountNotFound {
                        continue
                    } catch {
                        problems.append("reading \(name): \(error)")
                        break
                    }
                }
            }
        }
        #expect(problems.values.isEmpty, "\(problems.values.count) of \(names.count): \(problems.values.prefix(3))")
    }

    @Test func defaultDirectoryFollowsXDG() {
        #expect(
            AccountStore.defaultDirectory(environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/home/u"]).path
                == "/x/config/handoff/accounts")
        #expect(
            AccountStore.defaultDirectory(environment: ["HOME": "/home/u"]).path == "/home/u/.config/handoff/accounts")
        // A relative XDG_CONFIG_HOME is ignored, as the XDG specification says.
        #expect(
            AccountStore.defaultDirectory(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/home/u"]).path
                == "/home/u/.config/handoff/accounts")
    }

    @Test func filesAreReadableByTheUserOnly() throws {
        let directory = AccountsScratch()
        let root = directory.url.appendingPathComponent("config/handoff/accounts")
        let store = AccountStore(directory: root)
        _ = try store.createAccount(named: "demo")
        let identity = try store.deviceIdentity(named: "Phone 1", kind: .phone, in: "demo")
        try store.revokeDevice("0e6e2ed4-8f33-4bb4-8e1c-3c8a4a0c2c11", in: "demo")  // rewrites account.json
        let exported = directory.url.appendingPathComponent("demo.code")
        try store.exportAccount(named: "demo", to: exported)

        for path in [
            "config", "config/handoff", "config/handoff/accounts", "config/handoff/accounts/demo",
            "config/handoff/accounts/demo/devices",
        ] {
            #expect(mode(of: directory.url.appendingPathComponent(path)) == 0o700, "\(path)")
        }
        let account = store.directory(ofAccount: "demo")
        #expect(mode(of: account.appendingPathComponent("account.json")) == 0o600)
        #expect(mode(of: account.appendingPathComponent("devices/\(identity.id).json")) == 0o600)
        #expect(mode(of: exported) == 0o600)
        // No temporary files are left behind.
        let files = try FileManager.default.contentsOfDirectory(atPath: account.path).filter { $0.hasSuffix(".tmp") }
        #expect(files.isEmpty)
    }

    // MARK: Device identities

    @Test func sameDeviceNameGivesTheSameIdentity() throws {
        let directory = AccountsScratch()
        _ = try AccountStore(directory: directory.url).createAccount(named: "demo")
        let first = try AccountStore(directory: directory.url).deviceIdentity(
            named: "Phone 1", kind: .phone, in: "demo")
        let again = try AccountStore(directory: directory.url).deviceIdentity(
            named: "Phone 1", kind: .phone, in: "demo")
        let other = try AccountStore(directory: directory.url).deviceIdentity(
            named: "Laptop 1", kind: .laptop, in: "demo")

        #expect(first.id == again.id)
        #expect(first.certificate == again.certificate)
        #expect(first.privateKey.rawRepresentation == again.privateKey.rawRepresentation)
        #expect(first.id != other.id)
        #expect(first.id.rawValue == first.id.rawValue.lowercased())
        #expect(UUID(uuidString: first.id.rawValue) != nil)
        #expect(first.peerInfo == PeerInfo(id: first.id, name: "Phone 1", kind: .phone))
        #expect(other.kind == .laptop)
        #expect(first.accountName == "demo")

        let records = try AccountStore(directory: directory.url).devices(in: "demo")
        #expect(Set(records.map(\.id)) == [first.id, other.id])
        #expect(records.allSatisfy { !$0.isRevoked })
        #expect(records.first { $0.id == other.id }?.name == "Laptop 1")
    }

    @Test func deviceCertificateNamesTheDeviceAndVerifiesAgainstTheAuthority() async throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        let account = try store.createAccount(named: "demo")
        let identity = try store.deviceIdentity(named: "Tablet", kind: .tablet, in: "demo")
        let certificate = identity.certificate

        #expect(certificate.subject == (try DistinguishedName { CommonName(identity.id.rawValue) }))
        #expect(certificate.issuer == account.authorityCertificate.subject)
        #expect(
            try certificate.extensions.subjectAlternativeNames
                == SubjectAlternativeNames([.dnsName(identity.id.rawValue)]))
        #expect(try certificate.extensions.extendedKeyUsage == ExtendedKeyUsage([.serverAuth, .clientAuth]))
        #expect(try certificate.extensions.basicConstraints == .notCertificateAuthority)
        #expect(
            P256.Signing.PublicKey(certificate.publicKey)?.rawRepresentation
                == identity.privateKey.publicKey.rawRepresentation)

        var verifier = Verifier(rootCertificates: CertificateStore([account.authorityCertificate])) {
            RFC5280Policy()
        }
        let result = await verifier.validate(leaf: certificate, intermediates: CertificateStore())
        guard case .validCertificate(let chain) = result else {
            Issue.record("the device certificate does not verify: \(result)")
            return
        }
        #expect(Array(chain) == [certificate, account.authorityCertificate])

        // The certificate of another account's device does not verify against this authority.
        _ = try store.createAccount(named: "other")
        let stranger = try store.deviceIdentity(named: "Tablet", kind: .tablet, in: "other")
        let refused = await verifier.validate(leaf: stranger.certificate, intermediates: CertificateStore())
        guard case .couldNotValidate = refused else {
            Issue.record("another account's device verified")
            return
        }

        #expect(account.verifiedDeviceID(of: try nioCertificate(identity.certificate)) == .success(identity.id))
        #expect(
            account.verifiedDeviceID(of: try nioCertificate(stranger.certificate))
                == .failure(.notIssuedByAccount(account: "demo")))
        #expect(
            account.verifiedDeviceID(of: try nioCertificate(account.authorityCertificate))
                == .failure(
                    .invalidCertificate(
                        "the common name \"Handoff account \(account.identifier.uuidString.lowercased())\" is not a lowercase UUID"
                    )))
    }

    @Test func invalidDeviceNamesAreRefused() throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        _ = try store.createAccount(named: "demo")
        for name in ["", "   ", "tab\tname", String(repeating: "n", count: 65)] {
            #expect(throws: AccountError.self) { try store.deviceIdentity(named: name, kind: .phone, in: "demo") }
        }
        #expect(throws: AccountError.self) { try store.deviceIdentity(named: "Phone", kind: .phone, in: "missing") }
    }

    @Test func concurrentRequestsForOneNameGetOneIdentity() throws {
        let directory = AccountsScratch()
        _ = try AccountStore(directory: directory.url).createAccount(named: "demo")
        let ids = Collector<DeviceID>()
        let failures = Collector<String>()
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            // Separate store instances, as separate processes would have; half ask for each name.
            let store = AccountStore(directory: directory.url)
            do {
                let identity = try store.deviceIdentity(named: "Phone \(index % 2)", kind: .phone, in: "demo")
                ids.append(identity.id)
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.values == [])
        #expect(Set(ids.values).count == 2)
        let files = try FileManager.default.contentsOfDirectory(
            atPath: AccountStore(directory: directory.url).directory(ofAccount: "demo").appendingPathComponent(
                "devices"
            ).path)
        #expect(files.count == 2)
    }

    @Test func severalIdentitiesAtOnceMatchOneAtATime() throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        _ = try store.createAccount(named: "demo")
        let existing = try store.deviceIdentity(named: "Phone 1", kind: .phone, in: "demo")

        let batch = try store.deviceIdentities(
            [("Laptop 1", .laptop), ("Phone 1", .tablet), ("Tablet 1", .tablet), ("Laptop 1", .laptop)], in: "demo")
        #expect(batch.map(\.name) == ["Laptop 1", "Phone 1", "Tablet 1", "Laptop 1"])
        // An existing identity is returned as issued (its kind too); a name asked twice is issued once.
        #expect(batch[1].id == existing.id)
        #expect(batch[1].kind == .phone)
        #expect(batch[0].id == batch[3].id)
        #expect(batch[2].kind == .tablet)
        #expect(Set(batch.map(\.id)).count == 3)
        // What one-at-a-time reads back is what the batch issued.
        for identity in batch {
            let again = try store.deviceIdentity(named: identity.name, kind: .laptop, in: "demo")
            #expect(again.id == identity.id)
            #expect(again.certificate == identity.certificate)
        }
        #expect(try store.devices(in: "demo").count == 3)

        #expect(throws: AccountError.self) { try store.deviceIdentities([("Good", .phone), ("", .phone)], in: "demo") }
        #expect(try store.devices(in: "demo").count == 3)
    }

    // MARK: Export, import, revocation

    @Test func exportedAccountJoinsAnotherHost() throws {
        let here = AccountsScratch()
        let there = AccountsScratch()
        let local = AccountStore(directory: here.url)
        let remote = AccountStore(directory: there.url)
        let account = try local.createAccount(named: "family")
        let phone = try local.deviceIdentity(named: "Phone", kind: .phone, in: "family")

        let code = try local.exportAccount(named: "family")
        #expect(code.hasPrefix("handoff-account-v1:"))
        #expect(!code.contains("\n") && !code.contains(" ") && !code.contains("="))

        let imported = try remote.importAccount(from: code)
        #expect(imported.name == "family")
        #expect(imported.identifier == account.identifier)
        #expect(imported.beaconKey == account.beaconKey)
        #expect(imported.authorityCertificate == account.authorityCertificate)
        #expect(imported.createdAt == account.createdAt)
        #expect(try remote.devices(in: "family") == [])  // device identities do not travel

        let laptop = try remote.deviceIdentity(named: "Laptop", kind: .laptop, in: "family")
        #expect(laptop.id != phone.id)
        #expect(
            try local.account(named: "family").verifiedDeviceID(of: nioCertificate(laptop.certificate))
                == .success(laptop.id))
        #expect(
            try remote.account(named: "family").verifiedDeviceID(of: nioCertificate(phone.certificate))
                == .success(phone.id))

        // A device of another account is refused.
        _ = try remote.createAccount(named: "strangers")
        let stranger = try remote.deviceIdentity(named: "Laptop", kind: .laptop, in: "strangers")
        #expect(
            account.verifiedDeviceID(of: try nioCertificate(stranger.certificate))
                == .failure(.notIssuedByAccount(account: "family")))

        // Importing under another name, and refusing to overwrite a different account.
        let renamed = try remote.importAccount(from: code, as: "family2")
        #expect(renamed.name == "family2" && renamed.identifier == account.identifier)
        let other = try local.exportAccount(named: "family")
        _ = try local.createAccount(named: "clash")
        do {
            _ = try local.importAccount(from: other, as: "clash")
            Issue.record("imported over a different account")
        } catch {
            guard case .accountExists(let name, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(name == "clash")
        }
    }

    @Test func revokedDeviceIsRefusedAfterReReadingTheAccount() throws {
        let here = AccountsScratch()
        let there = AccountsScratch()
        let local = AccountStore(directory: here.url)
        let remote = AccountStore(directory: there.url)
        let before = try local.createAccount(named: "demo")
        let phone = try local.deviceIdentity(named: "Phone", kind: .phone, in: "demo")
        let tablet = try local.deviceIdentity(named: "Tablet", kind: .tablet, in: "demo")
        _ = try remote.importAccount(from: local.exportAccount(named: "demo"))

        try local.revokeDevice(phone.id, in: "demo")
        try local.revokeDevice(phone.id, in: "demo")  // idempotent
        // An account value read before the revocation does not know of it; a fresh read does.
        #expect(before.verifiedDeviceID(of: try nioCertificate(phone.certificate)) == .success(phone.id))
        let after = try local.account(named: "demo")
        #expect(after.revokedDevices == [phone.id])
        #expect(
            after.verifiedDeviceID(of: try nioCertificate(phone.certificate))
                == .failure(.deviceRevoked(phone.id, account: "demo")))
        #expect(after.verifiedDeviceID(of: try nioCertificate(tablet.certificate)) == .success(tablet.id))
        #expect(try local.devices(in: "demo").first { $0.id == phone.id }?.isRevoked == true)
        #expect(try local.devices(in: "demo").first { $0.id == tablet.id }?.isRevoked == false)

        // The revoked device keeps its identity (the others refuse it).
        #expect(try local.deviceIdentity(named: "Phone", kind: .phone, in: "demo").id == phone.id)

        // The other host learns of it only by a new import, which merges revocations and keeps its devices.
        let laptop = try remote.deviceIdentity(named: "Laptop", kind: .laptop, in: "demo")
        #expect(
            try remote.account(named: "demo").verifiedDeviceID(of: nioCertificate(phone.certificate))
                == .success(phone.id))
        let merged = try remote.importAccount(from: local.exportAccount(named: "demo"))
        #expect(merged.revokedDevices == [phone.id])
        #expect(
            try remote.account(named: "demo").verifiedDeviceID(of: nioCertificate(phone.certificate))
                == .failure(.deviceRevoked(phone.id, account: "demo")))
        #expect(try remote.devices(in: "demo").map(\.id) == [laptop.id])

        // A device ID of another host can be revoked; uppercase input is normalised; garbage is refused.
        try local.revokeDevice(DeviceID(laptop.id.rawValue.uppercased()), in: "demo")
        #expect(try local.account(named: "demo").revokedDevices == [phone.id, laptop.id])
        #expect(throws: AccountError.invalidDeviceID("not-a-uuid")) { try local.revokeDevice("not-a-uuid", in: "demo") }
    }

    // MARK: Hostile files and codes

    @Test(arguments: [
        ("", nil as String?, "is not valid JSON"),
        ("garbage \u{0}\u{1}", nil, "is not valid JSON"),
        ("[1, 2]", nil, "is not a JSON object"),
        ("{\"format\": \"handoff-account\"", nil, "is not valid JSON"),
        ("{}", "format", "is missing"),
    ])
    func corruptAccountFilesGiveClearErrors(content: String, field: String?, problem: String) throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        _ = try store.createAccount(named: "demo")
        let file = store.directory(ofAccount: "demo").appendingPathComponent("account.json")
        try Data(content.utf8).write(to: file)
        expectCorrupt(file: file.path, field: field, problem: problem) { try store.account(named: "demo") }
        expectCorrupt(file: file.path, field: field, problem: problem) {
            try store.deviceIdentity(named: "Phone", kind: .phone, in: "demo")
        }
        expectCorrupt(file: file.path, field: field, problem: problem) {
            try store.accountCreatingIfNeeded(named: "demo")
        }
    }

    /// A FIFO where account.json should be is refused at once (reading it used to hang until a
    /// writer came), and so is a file others may read, with the permissions it needs.
    @Test(.timeLimit(.minutes(1)))
    func aFIFOOrAFileOthersMayReadIsRefusedAndSaysWhy() throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        _ = try store.createAccount(named: "demo")
        let file = store.directory(ofAccount: "demo").appendingPathComponent("account.json")
        let original = try Data(contentsOf: file)
        try FileManager.default.removeItem(at: file)
        try #require(mkfifo(file.path, 0o600) == 0)
        expectCorrupt(file: file.path, field: nil, problem: "is not a regular file") {
            try store.account(named: "demo")
        }
        try FileManager.default.removeItem(at: file)
        try original.write(to: file)
        try #require(chmod(file.path, 0o644) == 0)
        expectCorrupt(file: file.path, field: nil, problem: "has permissions 0644, but it holds the account's keys") {
            try store.account(named: "demo")
        }
        try #require(chmod(file.path, 0o600) == 0)
        #expect(try store.account(named: "demo").name == "demo")
    }

    @Test func damagedAccountFieldsAreNamed() throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        _ = try store.createAccount(named: "demo")
        _ = try store.createAccount(named: "other")
        let file = store.directory(ofAccount: "demo").appendingPathComponent("account.json")
        let original = try Data(contentsOf: file)
        let otherFile =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: store.directory(ofAccount: "other").appendingPathComponent("account.json")))
            as! [String: Any]

        // Truncated anywhere: a clear error, never a crash.
        for length in stride(from: 0, to: original.count, by: 7) {
            try original.prefix(length).write(to: file)
            #expect(throws: AccountError.self) { try store.account(named: "demo") }
        }

        let cases: [(String, Any, String)] = [
            ("version", 2, "is 2; only 1 is supported"),
            ("identifier", "nope", "is not a UUID"),
            ("createdAt", "yesterday", "is not an ISO 8601 date"),
            ("createdAt", 12, "is not of type String"),
            ("beaconKey", "AAAA", "is not 32 bytes of base64"),
            (
                "authorityKey", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
                "is not a PEM-encoded P-256 private key"
            ),
            ("authorityCertificate", "not a certificate", "is not a PEM-encoded certificate"),
            ("authorityCertificate", otherFile["authorityCertificate"]!, "does not match the authority's private key"),
            ("revokedDevices", ["x"], "is not a device ID (a UUID)"),
        ]
        for (field, value, problem) in cases {
            var object = try JSONSerialization.jsonObject(with: original) as! [String: Any]
            object[field] = value
            try JSONSerialization.data(withJSONObject: object).write(to: file)
            let expectedField = field == "revokedDevices" ? "revokedDevices[0]" : field
            expectCorrupt(file: file.path, field: expectedField, problem: problem) { try store.account(named: "demo") }
        }
    }

    @Test func damagedDeviceFilesGiveClearErrors() throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        _ = try store.createAccount(named: "demo")
        _ = try store.createAccount(named: "other")
        let phone = try store.deviceIdentity(named: "Phone", kind: .phone, in: "demo")
        let stranger = try store.deviceIdentity(named: "Stranger", kind: .phone, in: "other")
        let devices = store.directory(ofAccount: "demo").appendingPathComponent("devices")
        let file = devices.appendingPathComponent("\(phone.id).json")
        let original = try Data(contentsOf: file)

        try Data("{\"name\": ".utf8).write(to: file)
        expectCorrupt(file: file.path, field: nil, problem: "is not valid JSON") { try store.devices(in: "demo") }
        expectCorrupt(file: file.path, field: nil, problem: "is not valid JSON") {
            try store.deviceIdentity(named: "Phone", kind: .phone, in: "demo")
        }
        for length in stride(from: 0, to: original.count, by: 11) {
            try original.prefix(length).write(to: file)
            #expect(throws: AccountError.self) { try store.devices(in: "demo") }
        }

        let strangerFile =
            try JSONSerialization.jsonObject(
                with: Data(
                    contentsOf: store.directory(ofAccount: "other")
                        .appendingPathComponent("devices/\(stranger.id).json"))) as! [String: Any]
        let cases: [(String, Any, String)] = [
            ("kind", "watch", "is not one of phone, tablet, laptop"),
            ("name", "", "is empty"),
            ("privateKey", "junk", "is not a PEM-encoded P-256 private key"),
            ("privateKey", P256.Signing.PrivateKey().pemRepresentation, "does not match the private key"),
            ("certificate", "junk", "is not a PEM-encoded certificate"),
        ]
        for (field, value, problem) in cases {
            var object = try JSONSerialization.jsonObject(with: original) as! [String: Any]
            object[field] = value
            try JSONSerialization.data(withJSONObject: object).write(to: file)
            let reportedField = field == "privateKey" && problem.hasPrefix("does not") ? "certificate" : field
            expectCorrupt(file: file.path, field: reportedField, problem: problem) { try store.devices(in: "demo") }
        }

        // Another account's device file planted in this account is refused.
        var planted = strangerFile
        planted["name"] = "Planted"
        let plantedFile = devices.appendingPathComponent("\(stranger.id).json")
        try original.write(to: file)
        // New files get the store's own permissions, so only their content is wrong.
        try writePrivately(JSONSerialization.data(withJSONObject: planted), to: plantedFile)
        expectCorrupt(
            file: plantedFile.path, field: "certificate", problem: "was not issued by account demo's authority"
        ) {
            try store.devices(in: "demo")
        }
        // A device file renamed to another ID is refused.
        try FileManager.default.removeItem(at: plantedFile)
        let renamed = devices.appendingPathComponent("\(UUID().uuidString.lowercased()).json")
        try writePrivately(original, to: renamed)
        expectCorrupt(file: renamed.path, field: "certificate", problem: "names device \(phone.id)") {
            try store.devices(in: "demo")
        }
        try FileManager.default.removeItem(at: renamed)
        // A stray file is named.
        let stray = devices.appendingPathComponent("notes.txt")
        try Data().write(to: stray)
        expectCorrupt(file: stray.path, field: nil, problem: "is not a device file") { try store.devices(in: "demo") }
        try FileManager.default.removeItem(at: stray)
        #expect(try store.devices(in: "demo").map(\.id) == [phone.id])
    }

    @Test func garbageCodesAreRefused() throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        _ = try store.createAccount(named: "demo")
        let code = try store.exportAccount(named: "demo")
        let body = code.dropFirst("handoff-account-v1:".count)
        var flipped = Array(body)
        flipped[flipped.count / 2] = flipped[flipped.count / 2] == "A" ? "B" : "A"
        let garbage: [String] = [
            "", "hello", "handoff-account-v1:", "handoff-account-v1:!!!!", "handoff-account-v2:" + body,
            "handoff-account-v1:" + body.prefix(body.count / 2), "handoff-account-v1:" + String(flipped),
            "handoff-account-v1:" + String(repeating: "A", count: 300_000),
            "handoff-account-v1:"
                + base64URL(
                    Data("{\"format\":1}".utf8) + Data(SHA256.hash(data: Data("{\"format\":1}".utf8)).prefix(8))),
        ]
        let other = AccountStore(directory: AccountsScratch().url)
        for text in garbage {
            do {
                _ = try other.importAccount(from: text)
                Issue.record("imported \(text.prefix(40))")
            } catch {
                guard case .invalidCode(let problem) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(!problem.isEmpty)
            }
        }
        #expect(try other.accountNames() == [])
        // A code wrapped over several lines, as pasted from a terminal, is accepted.
        let wrapped = stride(from: 0, to: code.count, by: 60).map {
            String(code.dropFirst($0).prefix(60))
        }.joined(separator: "\n  ")
        #expect(try other.importAccount(from: wrapped + "\n").identifier == store.account(named: "demo").identifier)
        #expect(throws: AccountError.self) { try other.importAccount(from: code, as: "bad/name") }
    }

    // MARK: Mutual TLS

    @Test func mutualTLSBetweenDevicesOfOneAccount() async throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        let account = try store.createAccount(named: "demo")
        _ = try store.createAccount(named: "other")
        let phone = try store.deviceIdentity(named: "Phone", kind: .phone, in: "demo")
        let laptop = try store.deviceIdentity(named: "Laptop", kind: .laptop, in: "demo")
        let stranger = try store.deviceIdentity(named: "Laptop", kind: .laptop, in: "other")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await handshakes(
                group: group, store: store, account: account, phone: phone, laptop: laptop,
                stranger: stranger)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    private func handshakes(
        group: MultiThreadedEventLoopGroup, store: AccountStore, account: Account,
        phone: DeviceIdentity, laptop: DeviceIdentity, stranger: DeviceIdentity
    ) async throws {
        // Same account: both sides complete, and each proves its device ID.
        let good = try await handshake(group: group, server: phone, client: laptop, account: account)
        let serverSawClient = try good.server.get()
        let clientSawServer = try good.client.get()
        #expect(good.version == .tlsv13)
        #expect(account.verifiedDeviceID(of: serverSawClient) == .success(laptop.id))
        #expect(account.verifiedDeviceID(of: clientSawServer) == .success(phone.id))

        // A client of another account is refused by the server.
        let outsider = try await handshake(
            group: group, server: phone, client: stranger, account: account,
            clientAccount: try store.account(named: "other"))
        #expect(throws: (any Error).self) { try outsider.server.get() }
        #expect(throws: (any Error).self) { try outsider.client.get() }

        // A client that trusts this account but presents another account's certificate is refused
        // by the server. (In TLS 1.3 the client may finish its side of the handshake before the
        // server has checked the client certificate; the refusal then arrives as an alert.)
        var forged = try stranger.makeClientTLSConfiguration(trusting: store.account(named: "other"))
        forged.trustRoots = .certificates([try nioCertificate(account.authorityCertificate)])
        let intruder = try await handshake(
            group: group, server: phone, client: stranger, account: account,
            clientConfiguration: forged)
        #expect(throws: (any Error).self) { try intruder.server.get() }

        // A server of another account is refused by the client.
        let fake = try await handshake(
            group: group, server: stranger, client: laptop, account: account,
            serverAccount: try store.account(named: "other"))
        #expect(throws: (any Error).self) { try fake.client.get() }

        // A revoked device's chain is still valid for TLS, but the session's check refuses it.
        try store.revokeDevice(laptop.id, in: "demo")
        let revoked = try await handshake(group: group, server: phone, client: laptop, account: account)
        let revokedCertificate = try revoked.server.get()
        #expect(
            try store.account(named: "demo").verifiedDeviceID(of: revokedCertificate)
                == .failure(.deviceRevoked(laptop.id, account: "demo")))
    }

    @Test func tlsConfigurationsAreTLS13MutualAndPinnedToTheAccount() throws {
        let directory = AccountsScratch()
        let store = AccountStore(directory: directory.url)
        let account = try store.createAccount(named: "demo")
        let other = try store.createAccount(named: "other")
        let phone = try store.deviceIdentity(named: "Phone", kind: .phone, in: "demo")
        for configuration in [
            try phone.makeServerTLSConfiguration(trusting: account),
            try phone.makeClientTLSConfiguration(trusting: account),
        ] {
            #expect(configuration.minimumTLSVersion == .tlsv13)
            #expect(configuration.maximumTLSVersion == .tlsv13)
            #expect(configuration.certificateVerification == .noHostnameVerification)
            #expect(configuration.trustRoots == .certificates([try nioCertificate(account.authorityCertificate)]))
        }
        #expect(throws: AccountError.self) { try phone.makeServerTLSConfiguration(trusting: other) }
    }
}

// MARK: - Helpers

/// A temporary directory, removed when the value goes away.
private final class AccountsScratch: Sendable {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("handoff-accounts-tests-" + UUID().uuidString, isDirectory: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

private func mode(of url: URL) -> Int {
    var info = stat()
    guard stat(url.path, &info) == 0 else { return -1 }
    return Int(info.st_mode) & 0o777
}

private func nioCertificate(_ certificate: Certificate) throws -> NIOSSLCertificate {
    try NIOSSLCertificate(bytes: Array(certificate.serializeAsPEM().pemString.utf8), format: .pem)
}

private func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// Writes `data` to a new file readable by this user only, as the store writes its files.
private func writePrivately(_ data: Data, to url: URL) throws {
    try data.write(to: url)
    try #require(chmod(url.path, 0o600) == 0)
}

private func expectCorrupt<T>(
    file: String, field: String?, problem: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) {
    do {
        _ = try body()
        Issue.record("no error for \(file)", sourceLocation: sourceLocation)
    } catch let error as AccountError {
        guard case .corruptFile(let path, let reportedField, let reported) = error else {
            Issue.record("unexpected error: \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(path == file, sourceLocation: sourceLocation)
        #expect(reportedField == field, sourceLocation: sourceLocation)
        #expect(reported.hasPrefix(problem), "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.hasPrefix(file), sourceLocation: sourceLocation)
    } catch {
        Issue.record("not an AccountError: \(error)", sourceLocation: sourceLocation)
    }
}

private struct HandshakeOutcome {
    /// The client certificate the server saw, or why the server's handshake failed.
    var server: Result<NIOSSLCertificate, any Error>
    /// The server certificate the client saw, or why the client's handshake failed.
    var client: Result<NIOSSLCertificate, any Error>
    var version: TLSVersion?
}

private struct HandshakeFailed: Error, CustomStringConvertible {
    var description: String
}

/// Records the end of the TLS handshake: the peer's certificate, or the error that ended it.
private final class HandshakeRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<(NIOSSLCertificate, TLSVersion?)>

    init(promise: EventLoopPromise<(NIOSSLCertificate, TLSVersion?)>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            let handler = try? context.pipeline.syncOperations.handler(type: NIOSSLHandler.self)
            if let certificate = handler?.peerCertificate {
                promise.succeed((certificate, handler?.tlsVersion))
            } else {
                promise.fail(HandshakeFailed(description: "no peer certificate"))
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(HandshakeFailed(description: "closed before the handshake completed"))
        context.fireChannelInactive()
    }
}

/// One TLS connection on loopback between `server` and `client`, each trusting its account.
private func handshake(
    group: MultiThreadedEventLoopGroup, server: DeviceIdentity, client: DeviceIdentity,
    account: Account, serverAccount: Account? = nil, clientAccount: Account? = nil,
    clientConfiguration: TLSConfiguration? = nil
)
    async throws -> HandshakeOutcome
{
    let serverContext = try NIOSSLContext(
        configuration: server.makeServerTLSConfiguration(trusting: serverAccount ?? account))
    let clientContext = try NIOSSLContext(
        configuration: clientConfiguration ?? client.makeClientTLSConfiguration(trusting: clientAccount ?? account))
    let loop = group.next()
    let serverDone = loop.makePromise(of: (NIOSSLCertificate, TLSVersion?).self)
    let clientDone = loop.makePromise(of: (NIOSSLCertificate, TLSVersion?).self)
    let listener = try await ServerBootstrap(group: group)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: serverContext))
                try channel.pipeline.syncOperations.addHandler(HandshakeRecorder(promise: serverDone))
            }
        }
        .bind(host: "127.0.0.1", port: 0).get()
    let port = listener.localAddress?.port ?? 0
    let connection = try await ClientBootstrap(group: group)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    NIOSSLClientHandler(context: clientContext, serverHostname: nil))
                try channel.pipeline.syncOperations.addHandler(HandshakeRecorder(promise: clientDone))
            }
        }
        .connect(host: "127.0.0.1", port: port).get()
    // From the connection on, the handshake runs on the event loop alone: the awaits before it
    // (binding, connecting), which on a loaded 2-core machine can wait behind tests that block
    // the shared thread pool, do not count. A real failure ends the handshake much sooner.
    let timeout = loop.scheduleTask(in: .seconds(60)) {
        serverDone.fail(HandshakeFailed(description: "timed out"))
        clientDone.fail(HandshakeFailed(description: "timed out"))
    }
    defer { timeout.cancel() }

    func outcome(
        _ future: EventLoopFuture<(NIOSSLCertificate, TLSVersion?)>
    ) async -> Result<(NIOSSLCertificate, TLSVersion?), any Error> {
        do { return .success(try await future.get()) } catch { return .failure(error) }
    }
    let serverResult = await outcome(serverDone.futureResult)
    let clientResult = await outcome(clientDone.futureResult)
    try? await connection.close()
    try? await listener.close()
    return HandshakeOutcome(
        server: serverResult.map(\.0), client: clientResult.map(\.0),
        version: (try? serverResult.get())?.1)
}
