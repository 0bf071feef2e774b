import CNcursesw
import TerminalCells

/// One thing read from the keyboard: a key, or the news that the terminal changed size.
enum TerminalInput: Hashable, Sendable {
    case key(Key)
    case resize

    /// Decodes one `get_wch` result, or nil for anything the device has no use for.
    ///
    /// - Parameters:
    ///   - status: what `get_wch` returned: `OK` for a character, `KEY_CODE_YES` for a function
    ///     key (arrows, `KEY_RESIZE`, ...), `ERR` for nothing.
    ///   - code: the character or key code it stored.
    init?(status: Int32, code: UInt32) {
        switch status {
        case OK:
            guard let key = Self.key(forCharacter: code) else { return nil }
            self = .key(key)
        case KEY_CODE_YES:
            guard let code = Int32(exactly: code) else { return nil }
            if code == KEY_RESIZE {
                self = .resize
            } else if let key = Self.key(forKeyCode: code) {
                self = .key(key)
            } else {
                return nil
            }
        default:
            return nil
        }
    }

    /// A character as typed: control characters become their keys, the rest is printable text.
    static func key(forCharacter code: UInt32) -> Key? {
        switch code {
        case 10, 13: return .enter  // "\n" in nl() mode, "\r" otherwise
        case 9: return .tab
        case 27: return .escape
        case 8, 127: return .backspace  // ^H and DEL, whichever the terminal sends
        case 1...26:  // Ctrl-A ... Ctrl-Z, less the ones above
            return .control(Character(Unicode.Scalar(UInt8(code) + 0x60)))
        case 0..<32, 0x80..<0xA0:  // other C0 and C1 controls
            return nil
        default:
            guard let scalar = Unicode.Scalar(code) else { return nil }
            return .character(Character(scalar))
        }
    }

    /// A curses function key (`KEY_UP`, `KEY_F0 + n`, ...).
    static func key(forKeyCode code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_BTAB: return .backTab
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END, KEY_LL: return .end
        case (KEY_F0 + 1)...(KEY_F0 + 63): return .function(Int(code - KEY_F0))
        default: return nil
        }
    }
}
