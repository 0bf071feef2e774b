import CursesTerminal

/// Run by the loader before the Swift runtime's initialisers when the runtime is linked into the
/// executable (release builds: `-static-stdlib`, Package.swift): a terminal device's crash-report
/// settings are made here, so the runtime starts with them and `main` need not re-execute the
/// program for them (``CrashReports/prepareLinkedRuntime(argc:argv:quiet:)``; docs/bench.md, "First
/// frame"). Priority 101, the first not reserved, sorts it before the default-priority
/// initialisers. With the runtime as a shared library it runs after the runtime's and does
/// nothing.
@section(".init_array.00101") @used
private let prepareCrashReports:
    @convention(c) (Int32, CrashReports.ArgumentVector, CrashReports.ArgumentVector) -> Void = { argc, argv, _ in
        CrashReports.prepareLinkedRuntime(
            argc: argc, argv: argv, quiet: Handoff.runsTerminalDevice(argc: argc, argv: argv))
    }
