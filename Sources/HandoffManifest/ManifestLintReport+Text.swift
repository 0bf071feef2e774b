extension ManifestLintReport {
    /// The report as readable text for a terminal: a header naming the files, the bundle and the
    /// team; sections for activity types, document types, associated domains and problems (each
    /// problem as `error: <file>: <key>: <message>` or `warning: …`); and a final count such as
    /// `2 errors, 1 warning`.
    ///
    /// Control and other invisible characters taken from the files are escaped.
    ///
    /// - Parameters:
    ///   - infoPlist: How to name the Info.plist in the header (usually its path).
    ///   - entitlements: How to name the entitlements file, if one was read.
    ///   - buildSettings: How to name the build-settings file, if one was read.
    public func formattedText(infoPlist: String, entitlements: String? = nil, buildSettings: String? = nil) -> String {
        var lines: [String] = []
        lines.append("Info.plist:        \(infoPlist.escapingInvisibleCharacters)")
        if let entitlements {
            lines.append("Entitlements:      \(entitlements.escapingInvisibleCharacters)")
        }
        if let buildSettings {
            lines.append("Build settings:    \(buildSettings.escapingInvisibleCharacters)")
        }
        lines.append("Bundle identifier: \(bundleIdentifier?.escapingInvisibleCharacters ?? "(unknown)")")
        lines.append("Team identifier:   \(teamIdentifier?.escapingInvisibleCharacters ?? "(unknown)")")

        lines.append("")
        lines.append(Self.heading("Activity types", count: activityTypes.count))
        lines += activityTypes.map { "  " + $0.escapingInvisibleCharacters }

        lines.append(Self.heading("Document types", count: documentTypes.count))
        for documentType in documentTypes {
            lines.append(
                "  " + (documentType.name.isEmpty ? "(unnamed)" : documentType.name.escapingInvisibleCharacters))
            let contentTypes = documentType.contentTypes.map(\.escapingInvisibleCharacters).joined(separator: ", ")
            lines.append("    content types: " + (contentTypes.isEmpty ? "none" : contentTypes))
            lines.append(
                "    ubiquitous activity type: "
                    + (documentType.ubiquitousActivityType?.escapingInvisibleCharacters ?? "none"))
        }

        lines.append(Self.heading("Associated domains", count: associatedDomains.count))
        lines += associatedDomains.map { "  " + $0.escapingInvisibleCharacters }

        if let sceneManifest {
            lines.append("Scenes (\(sceneManifest.supportsMultipleScenes ? "multiple" : "one at a time")):")
            if sceneManifest.configurations.isEmpty {
                lines.append(
                    "  no configurations: the system's default scene (as a SwiftUI app's), no delegate class named")
            }
            lines += sceneManifest.configurations.map { configuration in
                "  \(configuration.role.escapingInvisibleCharacters): \(configuration.name?.escapingInvisibleCharacters ?? "(unnamed)")"
                    + " → \(configuration.delegateClass?.escapingInvisibleCharacters ?? "no delegate class")"
            }
        } else {
            lines.append("Scenes: none (the app delegate continues activities)")
        }

        lines.append(Self.heading("Problems", count: problems.count))
        lines += problems.map { "  \($0.severity): " + $0.description.escapingInvisibleCharacters }
        if !notes.isEmpty {
            lines.append("Notes (\(notes.count)):")
            lines += notes.map { "  note: " + $0.description.escapingInvisibleCharacters }
        }

        lines.append("")
        lines.append(
            Self.count(errors.count, "error") + ", " + Self.count(warnings.count, "warning")
                + (notes.isEmpty ? "" : ", " + Self.count(notes.count, "note")))
        return lines.joined(separator: "\n")
    }

    private static func heading(_ title: String, count: Int) -> String {
        count == 0 ? "\(title): none" : "\(title) (\(count)):"
    }

    private static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
