import TerminalCells

/// Curses colour pairs, allocated on first use: pair 0 is the terminal's default colours, each
/// other foreground and background combination gets the next free number.
struct ColorPairs {
    /// A foreground and background combination.
    struct Colors: Hashable {
        var foreground: TerminalColor
        var background: TerminalColor
    }

    /// How many pairs the terminal has (`COLOR_PAIRS`), pair 0 included.
    let capacity: Int
    private var numbers: [Colors: Int16] = [:]

    init(capacity: Int) {
        self.capacity = min(max(0, capacity), Int(Int16.max))
    }

    /// How many pairs have been allocated (pair 0 excluded).
    var count: Int { numbers.count }

    /// The pair for `colors`, and whether it was just allocated (and so needs `init_pair`).
    /// Nil when the terminal has no pair left: the caller then uses pair 0.
    mutating func pair(for colors: Colors) -> (number: Int16, isNew: Bool)? {
        if colors.foreground == .default && colors.background == .default { return (0, false) }
        if let number = numbers[colors] { return (number, false) }
        let next = numbers.count + 1
        guard next < capacity else { return nil }
        let number = Int16(next)
        numbers[colors] = number
        return (number, true)
    }

    /// Forgets every allocation (after the palette changes).
    mutating func removeAll() {
        numbers.removeAll()
    }
}
