import Foundation

/// Sizes for people, the same everywhere (log, sidebar, apps): "812 bytes", "6.1 kB", "5.0 MB"
/// (decimal units, one decimal place).
public enum ByteCount {
    public static func text(_ count: Int) -> String {
        if count < 1000 { return count == 1 ? "1 byte" : "\(count) bytes" }
        let units = ["kB", "MB", "GB", "TB"]
        var value = Double(count) / 1000
        var unit = 0
        while value >= 999.95, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }

    /// A rate for people: `bytes` moved in `seconds`, e.g. "256.0 kB/s" (nil before any time
    /// has passed).
    public static func rate(_ bytes: Int, in seconds: Double) -> String? {
        guard seconds > 0, seconds.isFinite, bytes >= 0 else { return nil }
        return text(Int((Double(bytes) / seconds).rounded())) + "/s"
    }
}
