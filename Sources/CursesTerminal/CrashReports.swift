import Glibc

/// Keeps the Swift runtime's crash reports off a full-screen program's screen.
///
/// When a Swift program crashes on Linux, the runtime runs `swift-backtrace`, which by default
/// prints the report to standard output and, when standard input and output are terminals,
/// waits up to 30 s for a key ("Press space to interact, D to debug, or any other key to
/// quit"). Over curses that is a garbled screen and a frozen terminal.
///
/// The runtime reads its settings from `SWIFT_BACKTRACE` once, when it loads, before `main`:
/// setting the variable later (`setenv`) changes nothing (checked with Swift 6.3.1 on Linux).
/// So ``sendToStandardError()`` re-executes the program with `interactive=no,color=no,
/// output-to=stderr` added to `SWIFT_BACKTRACE`, and a program that sends standard error to its
/// log file while curses runs gets its crash reports there. (`output-to=<file>` would work too,
/// but `swift-backtrace` truncates that file, and the runtime still prints a line to standard
/// error.) ``CursesTerminal`` restores the terminal before the runtime's handler runs.
package enum CrashReports {
    /// The settings added to `SWIFT_BACKTRACE`, after the user's own (later keys win).
    static let quietSettings = "interactive=no,color=no"
    static let standardErrorSetting = "output-to=stderr"

    /// The `SWIFT_BACKTRACE` the program should run with, or nil when `current` will do: crash
    /// reports are disabled (`enable=no`), or already non-interactive, plain and written to
    /// standard error or a file of the user's choosing.
    package static func settings(replacing current: String?) -> String? {
        var values: [String: String] = [:]
        for pair in (current ?? "").split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingBlanks().lowercased() }
            values[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        let no: Set<String> = ["no", "n", "false", "f", "off", "0"]
        if let enable = values["enable"], no.contains(enable) { return nil }
        let quiet = values["interactive"].map(no.contains) == true && values["color"].map(no.contains) == true
        // Unset or "auto" is standard error once interaction is off; a path is the user's file.
        let outputTo = values["output-to"] ?? "auto"
        if quiet && outputTo != "stdout" { return nil }
        var settings = [current ?? "", quietSettings]
        if ["", "auto", "stdout"].contains(outputTo) { settings.append(standardErrorSetting) }
        return settings.filter { !$0.isEmpty }.joined(separator: ",")
    }

    /// Makes sure crash reports are not interactive, not coloured and written to standard
    /// error (or where `SWIFT_BACKTRACE` already says), re-executing the program with the same
    /// arguments when the runtime started with other settings. Call first thing, before the
    /// program opens files or starts threads it would miss: on success it does not return.
    /// Returns when nothing needs to change, or when the program cannot be re-executed (then
    /// reports stay as they were).
    package static func sendToStandardError() {
        let current = getenv("SWIFT_BACKTRACE").map { String(cString: $0) }
        guard let settings = settings(replacing: current) else { return }
        // A program re-executed with these settings has them: never loop.
        if let current, current.hasSuffix(quietSettings) || current.hasSuffix(standardErrorSetting) { return }
        guard let executable = currentExecutable() else { return }
        setenv("SWIFT_BACKTRACE", settings, 1)
        let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
        execv(executable, arguments)
        // Still here: exec failed. Leave everything as it was.
        arguments.forEach { free($0) }
        if let current { setenv("SWIFT_BACKTRACE", current, 1) } else { unsetenv("SWIFT_BACKTRACE") }
    }

    /// The path of the running executable (its name stays the process's name after exec, where
    /// `/proc/self/exe` would rename it "exe"), or nil when it is gone (rebuilt meanwhile).
    private static func currentExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard !path.hasSuffix(" (deleted)"), access(path, X_OK) == 0 else { return nil }
        return path
    }
}

extension Substring {
    fileprivate func trimmingBlanks() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
