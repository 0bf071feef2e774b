extension String {
    /// The longest run of whole Unicode scalars from the start of this string that fits in
    /// `bytes` UTF-8 bytes: how an error message quotes hostile text. Characters are no bound
    /// (one character can carry any number of combining marks); bytes are.
    public func utf8Prefix(_ bytes: Int) -> String {
        var kept = String.UnicodeScalarView()
        var used = 0
        for scalar in unicodeScalars {
            used += scalar.utf8.count
            guard used <= bytes else { break }
            kept.append(scalar)
        }
        return String(kept)
    }

    /// The longest run of whole Unicode scalars at the end of this string that fits in `bytes`
    /// UTF-8 bytes.
    public func utf8Suffix(_ bytes: Int) -> String {
        var kept: [Unicode.Scalar] = []
        var used = 0
        for scalar in unicodeScalars.reversed() {
            used += scalar.utf8.count
            guard used <= bytes else { break }
            kept.append(scalar)
        }
        return String(String.UnicodeScalarView(kept.reversed()))
    }
}
