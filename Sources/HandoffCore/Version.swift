/// The version of the Handoff simulator, as `handoff --version` prints it.
public enum HandoffVersion {
    /// The current release, in semantic-versioning form.
    public static let current = "0.1.0"
}
