import CursesTerminal

#if LINKED_SWIFT_RUNTIME
/// Run by the loader before the Swift runtime's initialisers, the runtime being linked into the
/// executable: a terminal device's crash-report settings are made here, so the runtime starts
/// with them and `main` need not re-execute the program for them
/// (``CrashReports/prepareLinkedRuntime(argc:argv:quiet:)``; docs/bench.md, "First frame").
/// Priority 101, the first not reserved, sorts it before the default-priority initialisers.
///
/// Compiled only where Package.swift links the runtime in (`-static-stdlib`) and defines
/// `LINKED_SWIFT_RUNTIME`, under the same condition (Linux, release): where the runtime is a
/// shared library it would start before this entry, so there is none, and `main` re-executes.
/// A condition known when building costs a start nothing; asking the loader whether
/// `libswiftCore.so` is loaded searched the library path at every start (docs/bench.md).
@section(".init_array.00101") @used
private let prepareCrashReports:
    @convention(c) (Int32, CrashReports.ArgumentVector, CrashReports.ArgumentVector) -> Void = { argc, argv, _ in
        CrashReports.prepareLinkedRuntime(
            argc: argc, argv: argv, quiet: Handoff.runsTerminalDevice(argc: argc, argv: argv))
    }
#endif
