import CNcursesw
import Glibc
import Synchronization
import TerminalCells

/// Why the terminal could not start.
package enum CursesTerminalError: Error, Hashable, CustomStringConvertible {
    /// Standard input or output is not a terminal.
    case notATerminal
    /// curses does not know this terminal type (`TERM`).
    case unknownTerminal(String)
    /// Another `CursesTerminal` is already running in this process.
    case alreadyActive
    /// The terminal has not been started (or has been stopped).
    case notStarted
    /// A system call failed, with its `errno`.
    case systemCallFailed(String, Int32)

    package var description: String {
        switch self {
        case .notATerminal: "standard input and output must be a terminal"
        case .unknownTerminal(let name): "unknown terminal type '\(name)' (set TERM)"
        case .alreadyActive: "the terminal is already in use"
        case .notStarted: "the terminal has not been started"
        case .systemCallFailed(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// Whether some `CursesTerminal` has curses running, for the exit hook and for `start()`.
private let cursesIsActive = Atomic<Bool>(false)

/// Restores the terminal if the process exits (via `exit`) while curses runs.
private let exitHookRegistration: Void = {
    atexit {
        if cursesIsActive.exchange(false, ordering: .sequentiallyConsistent) { endwin() }
    }
}()

/// The real terminal, through ncursesw: draws ``Grid``s and reads keys (with ``TerminalRunLoop``).
///
/// One per process, used from one thread. ``start()`` takes over the terminal, ``stop()`` gives
/// it back exactly as it was; ``withTerminal(environment:_:)`` does both around a body. SIGINT,
/// SIGTERM and SIGHUP are reported by the run loop (``TerminalEvent/signal(_:)``) so the program
/// can return normally and stop the terminal; a second such signal restores the tty settings
/// and exits at once.
///
/// Ctrl-Z (SIGTSTP) is handled by the run loop too, on the thread that owns curses: it gives the
/// terminal back (`endwin`), stops the process, and once continued (`fg`) reports
/// ``TerminalEvent/resumed``; the next ``draw(_:)`` takes the terminal again and repaints every
/// cell. A crash (SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE, SIGTRAP) restores the terminal before
/// the Swift runtime's crash report runs (see ``CrashReports`` for where the report goes).
///
/// Terminals without an alternate screen (`TERM=linux`) are cleared when the program leaves
/// them, so that the shell's prompt is not drawn over the last frame.
package final class CursesTerminal: TerminalBackend {
    /// Whether curses is running (between ``start()`` and ``stop()``).
    package private(set) var isActive = false
    /// Whether the terminal can show colours (known after ``start()``).
    package private(set) var hasColors = false
    /// Whether text is encoded as UTF-8 (after ``start()``). When not, non-ASCII shows as `?`.
    package private(set) var isUTF8 = false
    /// How roles look. ``start()`` sets the standard theme: colour unless `NO_COLOR` is set or
    /// the terminal has none. Setting it repaints everything on the next draw.
    package var theme: Theme {
        didSet { themeChanged() }
    }

    private let environment: [String: String]
    private var trap: SignalTrap?
    private var screen: OpaquePointer?
    private var lastGrid: Grid?
    private var needsRepaint = false
    /// What clears the screen when the terminal is given back: the terminal's `clear` when it
    /// has no alternate screen (`smcup`/`rmcup`), else nothing.
    private var clearOnLeaving: [UInt8] = []
    private var colorsStarted = false
    private var defaultColorsAvailable = false
    private var pairs = ColorPairs(capacity: 0)
    private var renditions: [Style: Rendition] = [:]
    /// The rendition drawn last, and its style.
    private var lastRendition: (style: Style, rendition: Rendition)?

    /// How a style is drawn: curses attributes and a colour pair.
    struct Rendition: Hashable {
        var attributes: attr_t
        var pair: Int16
    }

    /// - Parameter environment: the variables that choose the theme (`NO_COLOR`); nil reads
    ///   the process environment.
    package init(environment: [String: String]? = nil) {
        self.environment = environment ?? Self.processEnvironment(["NO_COLOR"])
        theme = Theme(usesColor: false)
    }

    deinit {
        stop()
    }

    /// Starts a terminal, runs `body` with it, and stops it however `body` ends (return or
    /// throw). The usual way for a program to use the terminal.
    package static func withTerminal<Result>(
        environment: [String: String]? = nil,
        _ body: (CursesTerminal) throws -> Result
    ) throws -> Result {
        let terminal = CursesTerminal(environment: environment)
        try terminal.start()
        defer { terminal.stop() }
        return try body(terminal)
    }

    // MARK: Starting and stopping

    /// Takes over the terminal: signals, locale, curses (cbreak, no echo, keypad, hidden
    /// cursor, short Esc delay) and colours.
    package func start() throws(CursesTerminalError) {
        guard !isActive else { return }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw .notATerminal }
        guard !cursesIsActive.exchange(true, ordering: .sequentiallyConsistent) else { throw .alreadyActive }
        _ = exitHookRegistration

        // Signals first: ncurses installs its own SIGINT/SIGTERM handlers only where none is.
        let trap: SignalTrap
        do {
            trap = try SignalTrap()
        } catch {
            cursesIsActive.store(false, ordering: .sequentiallyConsistent)
            throw error
        }
        isUTF8 = Self.adoptUTF8Locale()

        guard let screen = newterm(nil, shim_stdout(), shim_stdin()) else {
            trap.uninstall()
            cursesIsActive.store(false, ordering: .sequentiallyConsistent)
            throw .unknownTerminal(Self.processEnvironment(["TERM"])["TERM"] ?? "")
        }
        self.screen = screen
        self.trap = trap
        trap.isTerminalTaken = true
        trap.chainResizeHandler()
        clearOnLeaving = Self.clearSequenceWithoutAlternateScreen()
        trap.saveResetSequence(clearScreen: clearOnLeaving)

        let window = shim_stdscr()
        cbreak()  // keys at once, but Ctrl-C still raises SIGINT
        Self.disableFlowControl()  // Ctrl-S and Ctrl-Q reach the program (Ctrl-Q quits)
        noecho()
        keypad(window, true)
        wtimeout(window, 0)  // reads never block: the run loop sleeps in poll instead
        set_escdelay(25)
        curs_set(0)

        hasColors = has_colors()
        isActive = true
        theme = Theme.standard(environment: environment, terminalHasColor: hasColors)
        lastGrid = nil
        Self.leaveInitialState(window)
    }

    /// ncurses (6.4 here) writes its output at every cursor move, one `write` each, for as long
    /// as its screen is in its initial state, which only giving the terminal back ends: a
    /// device's first frame went out in 87 writes, and every later frame in as many pieces as
    /// it had cursor moves (tmux reading and parsing each). Once the terminal has been given
    /// back (`endwin`) and taken again (the next refresh), output goes out when ncurses' buffer
    /// is full (about a screen) and when a refresh ends. So this gives the terminal back and
    /// takes it again once, before anything is drawn (the alternate screen left and entered,
    /// nothing shown in between), and turns keypad mode on again: `endwin` turned it off, and
    /// the next read would turn it on only after the key that found it off.
    private static func leaveInitialState(_ window: UnsafeMutablePointer<WINDOW>?) {
        endwin()
        doupdate()
        keypad(window, true)
    }

    /// Turns off XON/XOFF flow control on the terminal, which would otherwise swallow Ctrl-S
    /// and Ctrl-Q, and makes that curses' "program mode" (`endwin` still restores the shell's).
    private static func disableFlowControl() {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        settings.c_iflag &= ~tcflag_t(IXON)
        guard tcsetattr(STDIN_FILENO, TCSANOW, &settings) == 0 else { return }
        def_prog_mode()
    }

    /// The terminal's `clear` string when it has no alternate screen to leave, else empty.
    private static func clearSequenceWithoutAlternateScreen() -> [UInt8] {
        guard shim_terminfo_string("smcup") == nil || shim_terminfo_string("rmcup") == nil,
            let clear = shim_terminfo_string("clear")
        else { return [] }
        return Array(String(cString: clear).utf8)
    }

    /// `endwin`, then clears a terminal that has no alternate screen. Nothing when the terminal
    /// was already given back (Ctrl-Z).
    private func handBack() {
        guard !isendwin() else { return }
        trap?.isTerminalTaken = false
        endwin()
        if !clearOnLeaving.isEmpty { _ = write(STDOUT_FILENO, clearOnLeaving, clearOnLeaving.count) }
    }

    /// Whether this process is the terminal's foreground process group: false when a shell's
    /// `bg` or `kill %1` continued it in the background, where touching the terminal would stop
    /// it again (SIGTTOU, SIGTTIN). True when that cannot be told.
    private var isInForeground: Bool {
        let group = tcgetpgrp(STDOUT_FILENO)
        return group < 0 || group == getpgrp()
    }

    /// Gives the terminal back as it was (`endwin`, signal dispositions). Idempotent; also
    /// called on deinit.
    package func stop() {
        guard isActive else { return }
        isActive = false
        handBack()
        if let screen { delscreen(screen) }
        screen = nil
        trap?.uninstall()
        trap = nil
        lastGrid = nil
        cursesIsActive.store(false, ordering: .sequentiallyConsistent)
    }

    // MARK: Drawing

    /// The terminal's size in cells (zero when not started).
    package var size: Size {
        guard isActive else { return .zero }
        return Size(width: Int(shim_cols()), height: Int(shim_lines()))
    }

    /// Shows `grid`, drawing only the cells that changed since the last grid (all of them after
    /// a resize, a theme change or ``redrawAll()``), then updates the screen. After Ctrl-Z and
    /// `fg` this takes the terminal again; in the background (`bg`) it draws nothing until `fg`.
    package func draw(_ grid: Grid) {
        guard isActive, let window = shim_stdscr() else { return }
        guard isInForeground else {
            needsRepaint = true
            return
        }
        let screenSize = size
        var previous = lastGrid
        if previous?.size != grid.size || needsRepaint {
            werase(window)
            previous = nil
        }
        if needsRepaint {
            clearok(window, true)
            needsRepaint = false
        }
        for point in GridDiff.cellsToDraw(from: previous, to: grid)
        where point.x < screenSize.width && point.y < screenSize.height {
            put(grid[point.x, point.y], at: point, in: window, screenWidth: screenSize.width)
        }
        lastGrid = grid
        wnoutrefresh(window)
        doupdate()
        trap?.isTerminalTaken = true
    }

    /// Repaints the whole screen on the next draw (for Ctrl-L, or after something else wrote
    /// to the terminal).
    package func redrawAll() {
        needsRepaint = true
    }

    private func put(_ cell: Cell, at point: Point, in window: UnsafeMutablePointer<WINDOW>, screenWidth: Int) {
        let rendition = rendition(for: cell.style)
        wmove(window, Int32(point.y), Int32(point.x))
        // Printable ASCII, most of a screen: the one character itself (what the general path
        // below gives it too), from a pair on the stack rather than its arrays.
        if !cell.isContinuation, cell.width == 1, let ascii = cell.character.asciiValue, ascii >= 0x20, ascii < 0x7F {
            var text: (wchar_t, wchar_t) = (wchar_t(ascii), 0)
            withUnsafeMutableBytes(of: &text) { raw in
                add(raw.baseAddress!.assumingMemoryBound(to: wchar_t.self), rendition, to: window)
            }
            return
        }
        var characters = [wchar_t(32)]
        var blankAfter = false
        if !cell.isContinuation {
            (characters, blankAfter) = Self.characters(for: cell, fitsWide: point.x + 1 < screenWidth, utf8: isUTF8)
        }
        add(characters, rendition, to: window)
        if blankAfter && point.x + 1 < screenWidth { add([32], rendition, to: window) }
    }

    private func add(_ characters: [wchar_t], _ rendition: Rendition, to window: UnsafeMutablePointer<WINDOW>) {
        var text = characters + [0]
        text.withUnsafeMutableBufferPointer { add($0.baseAddress!, rendition, to: window) }
    }

    /// Adds the characters up to `text`'s terminating zero as one cell, or its first alone when
    /// curses refuses them together.
    private func add(
        _ text: UnsafeMutablePointer<wchar_t>, _ rendition: Rendition, to window: UnsafeMutablePointer<WINDOW>
    ) {
        var cell = cchar_t()
        if setcchar(&cell, text, rendition.attributes, rendition.pair, nil) != OK {
            var first = [text[0], 0]
            guard setcchar(&cell, &first, rendition.attributes, rendition.pair, nil) == OK else { return }
        }
        wadd_wch(window, &cell)
    }

    /// The wide characters curses gets for `cell` (a spacing character and up to four
    /// combining ones), and whether to draw a blank after it because the grid gives it two
    /// columns but the C library only one.
    static func characters(for cell: Cell, fitsWide: Bool, utf8: Bool) -> ([wchar_t], blankAfter: Bool) {
        let scalars = Array(cell.character.unicodeScalars)
        guard let first = scalars.first, first.value >= 0x20, !(0x7F..<0xA0).contains(first.value) else {
            return ([32], false)
        }
        if cell.width == 2 && !fitsWide { return ([32], false) }
        if !utf8 && first.value > 0x7E { return ([63], cell.width == 2) }  // "?"
        let spacing = wchar_t(bitPattern: first.value)
        let spacingWidth = wcwidth(spacing)
        if spacingWidth < 1 || (spacingWidth == 2 && cell.width != 2) {
            return ([0xFFFD], cell.width == 2)  // a glyph the C library would misplace
        }
        var characters = [spacing]
        for scalar in scalars.dropFirst() where characters.count < 5 {
            let character = wchar_t(bitPattern: scalar.value)
            if wcwidth(character) == 0 { characters.append(character) }
        }
        return (characters, cell.width == 2 && spacingWidth == 1)
    }

    // MARK: Styles and colours

    private func themeChanged() {
        renditions = [:]
        lastRendition = nil
        needsRepaint = true
        if isActive && theme.usesColor && hasColors && !colorsStarted {
            start_color()
            defaultColorsAvailable = use_default_colors() == OK
            pairs = ColorPairs(capacity: Int(shim_color_pairs()))
            colorsStarted = true
        }
    }

    private func rendition(for style: Style) -> Rendition {
        // Neighbouring cells mostly share a style: the last one is kept at hand.
        if let last = lastRendition, last.style == style { return last.rendition }
        let rendition = makeRendition(for: style)
        lastRendition = (style, rendition)
        return rendition
    }

    private func makeRendition(for style: Style) -> Rendition {
        if let known = renditions[style] { return known }
        let appearance = theme.appearance(of: style)
        var rendition = Rendition(attributes: Self.attributes(for: appearance), pair: 0)
        if theme.usesColor && colorsStarted {
            var colors = ColorPairs.Colors(foreground: appearance.foreground, background: appearance.background)
            if !defaultColorsAvailable {
                if colors.foreground == .default { colors.foreground = .white }
                if colors.background == .default { colors.background = .black }
            }
            if let pair = pairs.pair(for: colors) {
                if pair.isNew {
                    init_pair(pair.number, Int16(colors.foreground.rawValue), Int16(colors.background.rawValue))
                }
                rendition.pair = pair.number
            }
        }
        renditions[style] = rendition
        return rendition
    }

    /// The curses attributes for an appearance's emphasis (colours go in the pair).
    static func attributes(for appearance: Appearance) -> attr_t {
        var attributes = shim_a_normal()
        if appearance.bold { attributes |= shim_a_bold() }
        if appearance.dim { attributes |= shim_a_dim() }
        if appearance.reverse { attributes |= shim_a_reverse() }
        if appearance.underline { attributes |= shim_a_underline() }
        return attributes
    }

    // MARK: Environment

    /// Adopts the environment's locale; when its character set is not UTF-8 (the C locale of
    /// cron, CI and tmux), switches the character type to C.UTF-8. Without it ncurses drops
    /// every non-ASCII character. Returns whether text is now UTF-8.
    static func adoptUTF8Locale() -> Bool {
        setlocale(LC_ALL, "")
        if isUTF8Locale { return true }
        for name in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] where setlocale(LC_CTYPE, name) != nil {
            if isUTF8Locale { return true }
        }
        return false
    }

    private static var isUTF8Locale: Bool {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        let name = String(cString: codeset).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }

    private static func processEnvironment(_ names: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }
}

extension CursesTerminal: TerminalEventSource {
    /// The keyboard, unless the terminal is given back (stopped or in the background): then it
    /// is the shell's, and reading it in the background would stop the process (SIGTTIN).
    var inputDescriptor: Int32? { isActive && !isendwin() ? STDIN_FILENO : nil }
    var signalDescriptor: Int32? { trap?.descriptor }
    var receivedSignal: Int32? { trap?.receivedSignal }

    func drainSignalNotifications() {
        trap?.drain()
    }

    /// Ctrl-Z: gives the terminal back, stops the process and returns once it is continued.
    /// Continued after a stop that was not ours (SIGSTOP, or a second Ctrl-Z while the loop
    /// was busy): the shell may have changed the tty meanwhile, so the terminal is taken
    /// again. Either way the next draw re-enters curses and repaints every cell.
    func handleJobControl() -> Bool {
        guard isActive, let trap else { return false }
        if trap.takeSuspendRequest() {
            handBack()
            trap.stopProcess()
            _ = trap.takeContinued()  // the SIGCONT that woke us, when it already ran
        } else if trap.takeContinued() {
            // So that the next refresh restores program mode; in the foreground only (a
            // process in the background gives the terminal back when it is brought to the front).
            if !isendwin() && isInForeground { handBack() }
        } else {
            return false
        }
        needsRepaint = true
        trap.wakeRunLoop()  // the size may have changed while stopped: see the keys after the next draw
        return true
    }

    func readEvents() -> [TerminalEvent] {
        guard isActive, !isendwin(), let window = shim_stdscr() else { return [] }
        var events: [TerminalEvent] = []
        var code: wint_t = 0
        while events.count < 4096 {
            let status = wget_wch(window, &code)
            if status == ERR { break }
            switch TerminalInput(status: status, code: code) {
            case .key(let key):
                events.append(.key(key))
            case .resize:
                needsRepaint = true
                events.append(.resize(size))
            case nil:
                continue
            }
        }
        return events
    }
}
