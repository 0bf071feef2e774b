import ArgumentParser
import Foundation
import HandoffCore
import HandoffNetwork

/// `handoff account`: the simulated iCloud keychain (accounts, their devices, moving them between hosts).
struct AccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Manage accounts: the simulated iCloud keychain that lets a user's devices trust each other.",
        discussion: """
            An account holds a discovery key and a certificate authority that issues each device its own \
            identity. Accounts live in $XDG_CONFIG_HOME/handoff/accounts (else ~/.config/handoff/accounts), \
            readable by the user only. `handoff device --account NAME` signs a device in; the account "demo" \
            is created on first use. See docs/security.md for the trust model.
            """,
        subcommands: [Create.self, List.self, Show.self, Export.self, Import.self, Remove.self, Devices.self]
    )
}

/// The option every account command accepts.
struct AccountStoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("Where accounts are kept (default: $XDG_CONFIG_HOME/handoff/accounts).", valueName: "dir"))
    var configDir: String?

    var store: AccountStore {
        AccountStore(
            directory: configDir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? AccountStore.defaultDirectory())
    }
}

/// A failure of an account command: printed as "Error: ..." on standard error, exit status 1.
struct AccountCommandFailure: Error, CustomStringConvertible {
    var description: String
}

extension AccountCommand {
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account with a new discovery key and certificate authority.")

        @Argument(
            help: ArgumentHelp("The account's name: letters, digits, '.', '_' and '-', at most 64.", valueName: "name"))
        var name: String

        @OptionGroup var options: AccountStoreOptions

        func run() throws {
            let account = try options.store.createAccount(named: name)
            print("Created account \(account.name) (\(account.identifier.uuidString.lowercased())).")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the accounts of this host, one name per line.")

        @OptionGroup var options: AccountStoreOptions

        func run() throws {
            for name in try options.store.accountNames() { print(name) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an account: identifier, creation date, authority fingerprint, devices and revocations.")

        @Argument(help: ArgumentHelp("The account.", valueName: "name"))
        var name: String

        @OptionGroup var options: AccountStoreOptions

        func run() throws {
            let store = options.store
            let account = try store.account(named: name)
            let devices = try store.devices(in: name)
            let revokedHere = devices.filter(\.isRevoked).count
            print("Account:     \(account.name)")
            print("Identifier:  \(account.identifier.uuidString.lowercased())")
            print("Created:     \(account.createdAt.formatted(Date.ISO8601FormatStyle()))")
            print("CA SHA-256:  \(account.authorityFingerprint)")
            print("Devices:     \(devices.count) issued on this host (\(devices.count - revokedHere) active)")
            print("Revoked:     \(account.revokedDevices.count)")
            print("Directory:   \(store.directory(ofAccount: account.name).path)")
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a code that moves the account to another host (`handoff account import`).",
            discussion: """
                The code carries the account's keys: anyone who has it can join the account. Device \
                identities stay on this host; the other host issues its own.
                """)

        @Argument(help: ArgumentHelp("The account.", valueName: "name"))
        var name: String

        @Option(
            help: ArgumentHelp("Write the code to this file (mode 0600) instead of standard output.", valueName: "file")
        )
        var output: String?

        @OptionGroup var options: AccountStoreOptions

        func run() throws {
            let store = options.store
            if let output {
                try store.exportAccount(named: name, to: URL(fileURLWithPath: output))
                print(
                    "Wrote the code of account \(name) to \(output). Keep it secret: it lets any host join the account."
                )
            } else {
                print(try store.exportAccount(named: name))
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import an account from a code made by `handoff account export`.",
            discussion: """
                If the account already exists here (same identifier), its revocation list is updated \
                from the code and this host's devices are kept: this is how revocations reach other hosts.
                """)

        @Argument(help: ArgumentHelp("The code, or - to read it from standard input.", valueName: "code"))
        var code: String?

        @Option(help: ArgumentHelp("Read the code from this file.", valueName: "file"))
        var file: String?

        @Option(
            name: .customLong("name"), help: ArgumentHelp("Import the account under this name.", valueName: "new-name"))
        var newName: String?

        @OptionGroup var options: AccountStoreOptions

        func run() throws {
            let text: String
            switch (code, file) {
            case (let code?, nil) where code == "-":
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile().prefix(1 << 20), as: UTF8.self)
            case (let code?, nil):
                text = code
            case (nil, let file?):
                text = try Self.read(file)
            case (nil, nil):
                throw AccountCommandFailure(description: "give the code, or --file FILE")
            case (.some, .some):
                throw AccountCommandFailure(description: "give either the code or --file, not both")
            }
            let store = options.store
            let before = Set(try store.accountNames())
            let account = try store.importAccount(from: text, as: newName)
            if before.contains(account.name) {
                print(
                    "Updated account \(account.name): \(account.revokedDevices.count) revoked device(s); this host's devices are kept."
                )
            } else {
                print("Imported account \(account.name) (\(account.identifier.uuidString.lowercased())).")
            }
        }

        private static func read(_ path: String) throws -> String {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw AccountCommandFailure(description: "\(path): cannot be read")
            }
            defer { try? handle.close() }
            let data = handle.readData(ofLength: 1 << 20)
            guard let text = String(data: data, encoding: .utf8) else {
                throw AccountCommandFailure(description: "\(path): is not UTF-8 text")
            }
            return text
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an account and the device identities issued in it on this host.")

        @Argument(help: ArgumentHelp("The account.", valueName: "name"))
        var name: String

        @Flag(help: "Really remove it (there is no undo unless the account was exported).")
        var yes = false

        @OptionGroup var options: AccountStoreOptions

        func run() throws {
            let store = options.store
            let devices = try store.devices(in: name)
            guard yes else {
                throw AccountCommandFailure(
                    description: """
                        not removing account \(name) and its \(devices.count) device identit\(devices.count == 1 ? "y" : "ies") \
                        without --yes (there is no undo; `handoff account export \(name)` first to keep a copy)
                        """)
            }
            try store.removeAccount(named: name)
            print("Removed account \(name).")
        }
    }

    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the devices issued in an account on this host, or revoke one.",
            discussion: """
                A revoked device is refused by this host's devices from their next session. Other hosts \
                learn of it when the account is exported again and imported there.
                """)

        @Argument(help: ArgumentHelp("The account.", valueName: "name"))
        var name: String

        @Option(
            help: ArgumentHelp(
                "Revoke the device with this ID (it may have been issued on another host).",
                valueName: "device-id"))
        var revoke: String?

        @OptionGroup var options: AccountStoreOptions

        func run() throws {
            let store = options.store
            if let revoke {
                let id = DeviceID(revoke.lowercased())
                let known = try store.devices(in: name).first { $0.id == id }
                try store.revokeDevice(id, in: name)
                let label = known.map { "\(id) (\($0.name))" } ?? "\(id) (not issued on this host)"
                print("Revoked device \(label) in account \(name).")
                return
            }
            let account = try store.account(named: name)
            let devices = try store.devices(in: name)
            if devices.isEmpty {
                print("No devices issued in account \(name) on this host.")
            } else {
                print(Self.row("ID", "KIND", "CREATED", "STATUS", "NAME"))
                for device in devices {
                    print(
                        Self.row(
                            device.id.rawValue, device.kind.rawValue,
                            device.createdAt.formatted(Date.ISO8601FormatStyle()),
                            device.isRevoked ? "revoked" : "active", device.name))
                }
            }
            let elsewhere = account.revokedDevices.subtracting(devices.map(\.id)).sorted()
            if !elsewhere.isEmpty {
                print("Also revoked (issued on other hosts):")
                for id in elsewhere { print("  \(id)") }
            }
        }

        private static func row(
            _ id: String, _ kind: String, _ created: String, _ status: String, _ name: String
        ) -> String {
            func pad(_ text: String, _ width: Int) -> String {
                text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
            }
            return pad(id, 38) + pad(kind, 8) + pad(created, 22) + pad(status, 9) + name
        }
    }
}
