import HandoffCore
import HandoffHeadless
import Testing

/// The headless commands are one table (`HeadlessController.commands`): `help` lists it, and a
/// line is dispatched through it, so every command `help` lists runs and every command that runs
/// is listed, with the fields it lists.
@Suite("Headless command table")
struct HeadlessCommandTableTests {
    @Test func everyCommandInHelpIsDispatchedAndNoOtherIs() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let help = try #require(laptop.ok(["cmd": "help"])["commands"]?.arrayValue)
        let listed = help.compactMap { $0["cmd"]?.stringValue }
        #expect(listed == HeadlessController.commands.map(\.name))
        #expect(Set(listed).count == listed.count, "each command once")
        // Every listed command reaches its handler: its result names it, and whatever it says
        // (a missing activity, nothing to continue) is not that the command is unknown.
        for name in listed where name != "quit" {
            let result = laptop.send(["cmd": .string(name)])
            #expect(result["result"] == .string(name), "\(name)")
            #expect(result["error"]?.stringValue?.contains("unknown command") != true, "\(name): \(result.jsonText)")
        }
        // Nothing else is dispatched: any other name is unknown, and the message lists help's commands.
        for name in ["fly", "Help", "stream", "quit-apps", ""] {
            let message = laptop.fails(raw: #"{"cmd":"\#(name)"}"#)
            #expect(message == "unknown command \"\(name)\" (commands: \(listed.joined(separator: ", ")))")
        }
        let quit = laptop.send(raw: #"{"cmd":"quit"}"#)
        #expect(quit.result["ok"] == true && !quit.goOn)
    }

    /// The fields `help` lists for a command are the ones it accepts.
    @Test func eachCommandAcceptsTheFieldsHelpLists() throws {
        let world = HeadlessWorld()
        let laptop = world.add("Laptop", kind: .laptop)
        let help = try #require(laptop.ok(["cmd": "help"])["commands"]?.arrayValue)
        for entry in help {
            let name = try #require(entry["cmd"]?.stringValue)
            let fields = (entry["fields"]?.arrayValue ?? []).compactMap(\.stringValue).map {
                $0.hasSuffix("?") ? String($0.dropLast()) : $0
            }
            let message = laptop.fails(raw: #"{"cmd":"\#(name)","unlisted":1}"#)
            let accepted = fields.isEmpty ? "it takes no fields" : "fields: " + fields.joined(separator: ", ")
            #expect(message == "\(name): unknown field \"unlisted\" (\(accepted))")
        }
    }
}
