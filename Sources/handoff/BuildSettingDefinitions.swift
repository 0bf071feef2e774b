import ArgumentParser

/// `--define KEY=VALUE` options as a map, the last value of a name winning; what `handoff
/// manifest lint` and `handoff device --app` both take.
enum BuildSettingDefinitions {
    static func parse(_ definitions: [String]) throws(ValidationError) -> [String: String] {
        var settings: [String: String] = [:]
        for definition in definitions {
            guard let equals = definition.firstIndex(of: "="), equals != definition.startIndex else {
                throw ValidationError("--define expects KEY=VALUE, got \"\(definition)\".")
            }
            let name = String(definition[..<equals])
            guard !name.contains(where: { $0.isWhitespace || "$(){}:".contains($0) }) else {
                throw ValidationError("--define: \"\(name)\" is not a build-setting name.")
            }
            settings[name] = String(definition[definition.index(after: equals)...])
        }
        return settings
    }
}
