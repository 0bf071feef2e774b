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
        // A program re-executed with these settings has them (never loop), and so does a release
        // build, which made them before the runtime started (``prepareLinkedRuntime``).
        if let current, current.hasSuffix(quietSettings) || current.hasSuffix(standardErrorSetting) { return }
        guard let settings = settings(replacing: current) else { return }
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

// MARK: Before the runtime starts (a statically linked runtime)

extension CrashReports {
    /// The arguments a program gets at its start: `argv`, with `argc` entries.
    package typealias ArgumentVector = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?

    /// Makes the crash-report settings before the Swift runtime reads them, in a program whose
    /// runtime is linked into it (`-static-stdlib`): call it from an `.init_array` entry of a
    /// priority below the default, which the loader runs before the runtime's own initialisers
    /// (the program's and the runtime's are in one link). There ``sendToStandardError()`` then
    /// finds the settings made and does not re-execute the program, a whole start of the
    /// program saved. Call it only where the runtime is linked in (a condition of the build):
    /// where it is a shared library (debug builds, the tests), it has started before any
    /// initialiser of the program runs, settings made here come too late, and
    /// ``sendToStandardError()`` re-executes as before.
    ///
    /// - `argc`, `argv`: the arguments the loader passes the initialiser.
    /// - `quiet`: the program wants ``sendToStandardError()``'s settings; they are set when
    ///   `SWIFT_BACKTRACE` is unset (a user's own settings are left to ``sendToStandardError()``).
    /// - A linked-in runtime finds `swift-backtrace` only next to the executable: when it is
    ///   not there and `SWIFT_BACKTRACE` names none, the toolchain's (found through the `swift` on
    ///   `PATH`) is added, so that crash reports still come.
    ///
    /// Nothing here may use the runtime's services that its initialisers set up (hashing seeds
    /// for `Set` and `Dictionary` crash here; so may conversions that allocate): it works on C
    /// strings with the C library only.
    package static func prepareLinkedRuntime(argc: Int32, argv: ArgumentVector, quiet: Bool) {
        let name = cString("SWIFT_BACKTRACE")
        let current = getenv(name)
        let settings: UnsafePointer<CChar>? =
            if let current { UnsafePointer(current) } else if quiet { cString(earlySettings) } else { nil }
        let namesBacktracer = settings.map { strstr($0, cString("swift-backtrace=")) != nil } ?? false
        if !namesBacktracer, let backtracer = toolchainBacktracer() {
            defer { free(backtracer) }
            // `swift-backtrace=PATH` first: the quiet settings stay the value's end, which
            // ``sendToStandardError()`` recognises.
            let prefix = cString("swift-backtrace=")
            let length = strlen(prefix) + strlen(backtracer) + 1 + (settings.map(strlen) ?? 0) + 1
            guard let value = malloc(length)?.assumingMemoryBound(to: CChar.self) else { return }
            defer { free(value) }
            strcpy(value, prefix)
            strcat(value, backtracer)
            if let settings {
                strcat(value, cString(","))
                strcat(value, settings)
            }
            setEnvironment(name, value, argc: argc, argv: argv)
        } else if current == nil, let settings {
            setEnvironment(name, settings, argc: argc, argv: argv)
        }
    }

    /// `setenv` before the runtime starts. A new variable moves `environ` off the stack, where the
    /// runtime's initialiser finds the arguments (it walks back from `environ` to `argv`): it is
    /// handed them (`CommandLine.arguments` would be empty otherwise).
    private static func setEnvironment(
        _ name: UnsafePointer<CChar>, _ value: UnsafePointer<CChar>, argc: Int32, argv: ArgumentVector
    ) {
        guard let argv, setenv(name, value, 1) == 0 else { return }
        overrideArguments(argv, argc)
    }

    /// The runtime's entry point for setting `CommandLine.arguments` (exported for its JIT, which
    /// starts programs without a process of their own); Swift's calling convention.
    @_silgen_name("_swift_stdlib_overrideUnsafeArgvArgc")
    private static func overrideArguments(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ argc: Int32)

    /// ``quietSettings`` and ``standardErrorSetting``, as one C string.
    private static let earlySettings: StaticString = "interactive=no,color=no,output-to=stderr"

    /// The text of a literal as a C string (a `StaticString` is stored with its terminating NUL):
    /// no allocation, so usable before the runtime starts.
    package static func cString(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// The toolchain's `swift-backtrace-static` (`<dir of swift>/../libexec/swift/linux/`), found
    /// through the `swift` on `PATH` with its links resolved, as a string to `free`; nil when
    /// `swift-backtrace` is next to the executable (the runtime finds that one itself), when no
    /// `swift` is on `PATH`, or when the path would not survive `SWIFT_BACKTRACE`'s syntax.
    private static func toolchainBacktracer() -> UnsafeMutablePointer<CChar>? {
        let size = Int(PATH_MAX) + 64
        guard let buffer = malloc(size)?.assumingMemoryBound(to: CChar.self) else { return nil }
        defer { free(buffer) }
        let length = readlink(cString("/proc/self/exe"), buffer, Int(PATH_MAX))
        if length > 0 {
            buffer[length] = 0
            if let slash = strrchr(buffer, 0x2F) {
                strcpy(slash + 1, cString("swift-backtrace"))
                if access(buffer, X_OK) == 0 { return nil }
            }
        }
        guard let path = getenv(cString("PATH")) else { return nil }
        var start = UnsafePointer(path)
        while true {
            let end = strchr(start, 0x3A).map { UnsafePointer($0) } ?? start + strlen(start)  // the next ':' or the end
            let count = end - start
            if count > 0, count < Int(PATH_MAX) {
                memcpy(buffer, start, count)
                buffer[count] = 0
                strcat(buffer, cString("/swift"))
                if let resolved = realpath(buffer, nil) {
                    defer { free(resolved) }
                    if let slash = strrchr(resolved, 0x2F), strlen(resolved) < Int(PATH_MAX) {
                        slash[0] = 0
                        strcpy(buffer, resolved)
                        strcat(buffer, cString("/../libexec/swift/linux/swift-backtrace-static"))
                        if access(buffer, X_OK) == 0, strchr(buffer, 0x2C) == nil, let found = realpath(buffer, nil) {
                            return found
                        }
                    }
                }
            }
            if end.pointee == 0 { return nil }
            start = end + 1
        }
    }
}
