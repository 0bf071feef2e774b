import Foundation

extension ReaderApp {
    /// The web site that shows the Reader's documents, for devices without the Reader.
    public static let webHost = "reader.handoffsim.example"

    /// The page a device without the Reader opens in its Browser for `state`:
    /// `https://reader.handoffsim.example/SLUG?page=N`, where the slug is the file name without
    /// its extension, percent-encoded (e.g. `night markets.txt` → `night%20markets`).
    public static func webpageURL(for state: ReadingState) -> URL {
        let stem = (state.documentName as NSString).deletingPathExtension
        let slug = stem.isEmpty ? state.documentName : stem
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        allowed.remove(charactersIn: "/")
        let encoded = slug.addingPercentEncoding(withAllowedCharacters: allowed) ?? "document"
        // Every part is ASCII and percent-encoded: the URL always parses.
        return URL(string: "https://\(webHost)/\(encoded)?page=\(state.position.page)")!
    }
}
