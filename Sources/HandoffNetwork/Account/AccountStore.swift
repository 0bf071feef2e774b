import Crypto
import Foundation
import HandoffCore
import X509

/// The accounts of this host, kept as files readable by the user only:
///
/// ```
/// <directory>/<account>/account.json        identifier, createdAt, beacon key, CA key and certificate, revocations
/// <directory>/<account>/devices/<id>.json   one device identity: name, kind, createdAt, key, certificate
/// <directory>/<account>/.lock               flock'ed while an identity is issued or the account file changes
/// ```
///
/// Directories are created 0700 and files 0600; every file is written to a temporary file and
/// renamed into place. Several processes may use one store at once: account creation is a rename
/// of a complete directory, and issuing an identity or changing the account file holds the
/// account's lock. Every read treats the files as hostile and fails with an ``AccountError`` that
/// names the file and field.
package final class AccountStore: Sendable {
    package let directory: URL

    package init(directory: URL) {
        self.directory = directory.standardizedFileURL
    }

    /// `$XDG_CONFIG_HOME/handoff/accounts`, else `~/.config/handoff/accounts` (HOME from the environment).
    package static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        // The XDG base directory specification ignores a relative or empty XDG_CONFIG_HOME.
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config, isDirectory: true)
                .appendingPathComponent("handoff", isDirectory: true)
                .appendingPathComponent("accounts", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".config", isDirectory: true)
            .appendingPathComponent("handoff", isDirectory: true)
            .appendingPathComponent("accounts", isDirectory: true)
    }

    /// The directory of the account `name` (whether or not it exists).
    package func directory(ofAccount name: String) -> URL {
        directory.appendingPathComponent(name, isDirectory: true)
    }

    func accountFile(_ name: String) -> URL {
        directory(ofAccount: name).appendingPathComponent("account.json")
    }

    private func devicesDirectory(_ name: String) -> URL {
        directory(ofAccount: name).appendingPathComponent("devices", isDirectory: true)
    }

    private func lockPath(_ name: String) -> String {
        directory(ofAccount: name).appendingPathComponent(".lock").path
    }

    private func validate(accountName name: String) throws(AccountError) {
        if let problem = AccountFileFormat.problemWithAccountName(name) {
            throw .invalidAccountName(name, reason: problem)
        }
    }

    // MARK: Accounts

    /// Creates an account with a new identifier, beacon key and certificate authority.
    package func createAccount(named name: String) throws(AccountError) -> Account {
        try validate(accountName: name)
        let createdAt = AccountFileFormat.now()
        let identifier = RandomIdentifier.uuid()
        let authority = try CertificateAuthority.makeAuthority(identifier: identifier, createdAt: createdAt)
        let account = Account(
            name: name, identifier: identifier, beaconKey: SymmetricKey(size: .bits256),
            authorityCertificate: authority.certificate, createdAt: createdAt, revokedDevices: [])
        try install(StoredAccount(account: account, authorityKey: authority.key))
        return account
    }

    /// Reads the account from disk (every call: revocations made since apply at once).
    package func account(named name: String) throws(AccountError) -> Account {
        try load(name).account
    }

    /// Creates the account when there is none of this name, without reading one that exists
    /// (``deviceIdentityAndAccount(named:kind:in:)`` reads it, under the account's lock). Safe when
    /// several processes do it at once.
    package func createAccountIfNeeded(named name: String) throws(AccountError) {
        try validate(accountName: name)
        if SecureFile.exists(accountFile(name).path) { return }
        _ = try accountCreatingIfNeeded(named: name)
    }

    /// The account, created first if there is none of this name. Safe when several processes do it at once.
    package func accountCreatingIfNeeded(named name: String) throws(AccountError) -> Account {
        do {
            return try account(named: name)
        } catch .accountNotFound {
            do {
                return try createAccount(named: name)
            } catch .accountExists {
                return try account(named: name)
            }
        }
    }

    /// The names of the accounts in the store, sorted.
    package func accountNames() throws(AccountError) -> [String] {
        guard SecureFile.isDirectory(directory.path) else { return [] }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw .fileSystem(path: directory.path, operation: "list", reason: "\(error)")
        }
        return entries.filter { name in
            AccountFileFormat.problemWithAccountName(name) == nil && SecureFile.exists(accountFile(name).path)
        }.sorted()
    }

    /// Removes the account and every device identity issued in it on this host.
    package func removeAccount(named name: String) throws(AccountError) {
        try validate(accountName: name)
        let accountDirectory = directory(ofAccount: name)
        guard SecureFile.isDirectory(accountDirectory.path) else {
            throw .accountNotFound(name: name, path: accountDirectory.path)
        }
        try SecureFile.removeTree(accountDirectory)
    }

    private func load(_ name: String) throws(AccountError) -> StoredAccount {
        try validate(accountName: name)
        let file = accountFile(name)
        var data = try SecureFile.readFile(file, limit: AccountFileFormat.accountFileLimit)
        if data == nil {
            guard SecureFile.isDirectory(directory(ofAccount: name).path) else {
                throw .accountNotFound(name: name, path: directory.path)
            }
            // An account directory appears whole (``install(_:)`` renames it into place), so one
            // seen now may have appeared since the file was missed: only a second miss means the
            // file is gone.
            data = try SecureFile.readFile(file, limit: AccountFileFormat.accountFileLimit)
        }
        guard let data else {
            throw .corruptFile(path: file.path, field: nil, problem: "is missing (the account directory exists)")
        }
        return try AccountFileFormat.decodeAccount(data, name: name, path: file.path)
    }

    /// Writes a complete account directory under a temporary name, then renames it into place, so
    /// that no process ever sees a half-made account.
    private func install(_ stored: StoredAccount) throws(AccountError) {
        let name = stored.account.name
        let target = directory(ofAccount: name)
        try SecureFile.makeDirectories(directory)
        if SecureFile.exists(target.path) { throw .accountExists(name: name, path: target.path) }
        let staging = directory.appendingPathComponent(".new-" + UUID().uuidString.lowercased(), isDirectory: true)
        try SecureFile.makeDirectory(staging.path)
        do throws(AccountError) {
            try SecureFile.makeDirectory(staging.appendingPathComponent("devices").path)
            try SecureFile.writeAtomically(
                AccountFileFormat.encode(stored),
                to: staging.appendingPathComponent("account.json"))
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        // rename(2) replaces only an empty directory; a concurrent creator's complete one stays.
        if SecureFile.exists(target.path) || rename(staging.path, target.path) != 0 {
            let code = errno
            try? FileManager.default.removeItem(at: staging)
            if SecureFile.exists(target.path) { throw .accountExists(name: name, path: target.path) }
            throw .fileSystem(path: target.path, operation: "create the account", reason: SecureFile.errnoText(code))
        }
    }

    /// Runs `body` on the freshly read account while holding the account's lock.
    private func withLockedAccount<T>(
        _ name: String, _ body: (StoredAccount) throws(AccountError) -> T
    )
        throws(AccountError) -> T
    {
        // A clear "not found" before a lock file is created (the file is read under the lock).
        if !SecureFile.exists(accountFile(name).path) { _ = try load(name) }
        return try FileLock.withLock(at: lockPath(name)) { () throws(AccountError) -> T in
            try body(try load(name))
        }
    }

    // MARK: Export and import

    /// A pasteable single-line code, `handoff-account-v1:<base64url>`, that carries the account
    /// (authority key and certificate, beacon key, revocations, identifier, name) to another host.
    /// Whoever holds it can join the account: treat it as a password.
    package func exportAccount(named name: String) throws(AccountError) -> String {
        try AccountCode.encode(load(name))
    }

    /// Writes the export code (and a newline) to `file`, created with mode 0600.
    package func exportAccount(named name: String, to file: URL) throws(AccountError) {
        let code = try exportAccount(named: name)
        try SecureFile.writeAtomically(Data((code + "\n").utf8), to: file)
    }

    /// Imports an account from an export code, as `newName` or under the name the code carries.
    ///
    /// If an account of that name already exists with the same identifier and authority, the
    /// import updates it instead: the code's revocations are added to the local list (this is
    /// how revocations travel between hosts) and the local device identities are kept. An
    /// existing account with another identifier is an ``AccountError/accountExists(name:path:)``.
    @discardableResult
    package func importAccount(from code: String, as newName: String? = nil) throws(AccountError) -> Account {
        let imported = try AccountCode.decode(code, as: newName)
        do {
            try install(imported)
            return imported.account
        } catch .accountExists(let name, let path) {
            return try merge(imported, into: name, path: path)
        }
    }

    private func merge(_ imported: StoredAccount, into name: String, path: String) throws(AccountError) -> Account {
        try withLockedAccount(name) { (existing) throws(AccountError) -> Account in
            guard existing.account.identifier == imported.account.identifier else {
                throw .accountExists(name: name, path: path)
            }
            guard existing.account.authorityCertificate == imported.account.authorityCertificate,
                existing.authorityKey.rawRepresentation == imported.authorityKey.rawRepresentation,
                existing.account.beaconKey == imported.account.beaconKey
            else {
                throw .accountMismatch(
                    name: name, reason: "the code has this account's identifier but other keys; not imported")
            }
            var updated = existing
            updated.account.revokedDevices.formUnion(imported.account.revokedDevices)
            if updated.account.revokedDevices != existing.account.revokedDevices {
                try SecureFile.writeAtomically(AccountFileFormat.encode(updated), to: accountFile(name))
            }
            return updated.account
        }
    }

    // MARK: Devices

    /// The devices issued in the account on this host, oldest first.
    package func devices(in accountName: String) throws(AccountError) -> [DeviceRecord] {
        let stored = try load(accountName)
        return try loadDevices(of: stored.account).map { $0.record(isRevoked: stored.account.isRevoked($0.id)) }
    }

    /// Adds `id` to the account's revocation list: from the next session on, the other devices of
    /// this host refuse it. Other hosts learn of it only when the account is exported again and
    /// imported there. The ID need not belong to a device issued on this host.
    package func revokeDevice(_ id: DeviceID, in accountName: String) throws(AccountError) {
        guard let canonical = CertificateAuthority.canonicalDeviceID(id.rawValue) else {
            throw .invalidDeviceID(id.rawValue)
        }
        try withLockedAccount(accountName) { (stored) throws(AccountError) in
            guard !stored.account.isRevoked(canonical) else { return }
            var updated = stored
            updated.account.revokedDevices.insert(canonical)
            try SecureFile.writeAtomically(AccountFileFormat.encode(updated), to: accountFile(accountName))
        }
    }

    /// Loads the identity of the device with this name in the account, issuing a new key pair and
    /// certificate on first use. Processes asking at the same time for one name get one identity.
    ///
    /// A revoked device keeps its identity (the other devices refuse it); the `kind` of an existing
    /// identity is the one it was issued with.
    package func deviceIdentity(
        named deviceName: String, kind: PeerInfo.Kind, in accountName: String
    )
        throws(AccountError) -> DeviceIdentity
    {
        try deviceIdentityAndAccount(named: deviceName, kind: kind, in: accountName).identity
    }

    /// ``deviceIdentity(named:kind:in:)`` with the account as read under the lock while the
    /// identity was loaded or issued: a device's start reads the account file once.
    package func deviceIdentityAndAccount(
        named deviceName: String, kind: PeerInfo.Kind, in accountName: String
    ) throws(AccountError) -> (identity: DeviceIdentity, account: Account) {
        let found = try identities([(deviceName, kind)], in: accountName)
        return (found.identities[0], found.account)
    }

    /// The identities of several devices, in the order asked, each loaded or issued as
    /// ``deviceIdentity(named:kind:in:)`` does, under one hold of the account's lock and with one
    /// reading of the account's device files. (Asked one at a time, every call reads and checks
    /// every device file again, keys and certificates included: N new devices cost N² decodings,
    /// which made the bench's 512 devices slow to set up.) A name asked twice gets one identity.
    package func deviceIdentities(
        _ devices: [(name: String, kind: PeerInfo.Kind)], in accountName: String
    )
        throws(AccountError) -> [DeviceIdentity]
    {
        try identities(devices, in: accountName).identities
    }

    /// ``deviceIdentities(_:in:)`` with the account read under the lock. Only the device files of
    /// the names asked are decoded whole (key, certificate, its issuer): of the others, their
    /// names, so that a name is still found once and a clash of names still refused.
    private func identities(
        _ devices: [(name: String, kind: PeerInfo.Kind)], in accountName: String
    ) throws(AccountError) -> (identities: [DeviceIdentity], account: Account) {
        for (name, _) in devices {
            if let problem = AccountFileFormat.problemWithDeviceName(name) {
                throw .invalidDeviceName(name, reason: problem)
            }
        }
        let wanted = Set(devices.map(\.name))
        return try withLockedAccount(accountName) {
            (stored) throws(AccountError) -> (identities: [DeviceIdentity], account: Account) in
            var known: [String: DeviceIdentity] = [:]
            for identity in try loadDevices(of: stored.account, decoding: wanted) { known[identity.name] = identity }
            var result: [DeviceIdentity] = []
            result.reserveCapacity(devices.count)
            for (name, kind) in devices {
                if let existing = known[name] {
                    result.append(existing)
                    continue
                }
                let identity = try issueIdentity(named: name, kind: kind, in: stored)
                known[name] = identity
                result.append(identity)
            }
            return (result, stored.account)
        }
    }

    /// Issues a new key pair and certificate for `deviceName` and writes its device file (call
    /// with the account's lock held, after checking that no device has the name).
    private func issueIdentity(
        named deviceName: String, kind: PeerInfo.Kind, in stored: StoredAccount
    ) throws(AccountError) -> DeviceIdentity {
        let account = stored.account
        let accountName = account.name
        try SecureFile.makeDirectories(devicesDirectory(accountName))
        let id = DeviceID(RandomIdentifier.uuid().uuidString.lowercased())
        let key = P256.Signing.PrivateKey()
        let certificate = try CertificateAuthority.issueDeviceCertificate(
            id: id, publicKey: key.publicKey, authorityKey: stored.authorityKey,
            authority: account.authorityCertificate)
        let identity = DeviceIdentity(
            id: id, name: deviceName, kind: kind, accountName: accountName,
            privateKey: key, certificate: certificate,
            createdAt: AccountFileFormat.now())
        try SecureFile.writeAtomically(
            AccountFileFormat.encode(identity),
            to: devicesDirectory(accountName).appendingPathComponent("\(id).json"))
        return identity
    }

    /// Every device file of the account, checked; oldest first. Temporary and dot files are skipped;
    /// any other file that is not a valid `<id>.json` is an error naming it. With `names`, only
    /// the files of those device names are decoded whole and returned; of every other file only
    /// the name is read (a clash of names is still an error).
    private func loadDevices(
        of account: Account, decoding names: Set<String>? = nil
    ) throws(AccountError)
        -> [DeviceIdentity]
    {
        let folder = devicesDirectory(account.name)
        guard SecureFile.isDirectory(folder.path) else { return [] }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw .fileSystem(path: folder.path, operation: "list", reason: "\(error)")
        }
        var identities: [DeviceIdentity] = []
        var seen: [String: DeviceID] = [:]
        for entry in entries.sorted() where !entry.hasPrefix(".") {
            let file = folder.appendingPathComponent(entry)
            guard entry.hasSuffix(".json"), let id = CertificateAuthority.canonicalDeviceID(String(entry.dropLast(5))),
                id.rawValue == String(entry.dropLast(5))
            else {
                throw .corruptFile(
                    path: file.path, field: nil,
                    problem: "is not a device file (expected <lowercase-uuid>.json)")
            }
            guard let data = try SecureFile.readFile(file, limit: AccountFileFormat.deviceFileLimit) else { continue }
            let name: String
            if let names {
                name = try AccountFileFormat.decodeDeviceName(data, path: file.path)
                if names.contains(name) {
                    identities.append(
                        try AccountFileFormat.decodeDevice(data, id: id, account: account, path: file.path))
                }
            } else {
                let identity = try AccountFileFormat.decodeDevice(data, id: id, account: account, path: file.path)
                name = identity.name
                identities.append(identity)
            }
            if let clash = seen[name] {
                throw .corruptFile(
                    path: file.path, field: "name", problem: "\"\(name)\" is also the name of device \(clash)")
            }
            seen[name] = id
        }
        return identities.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }
}
