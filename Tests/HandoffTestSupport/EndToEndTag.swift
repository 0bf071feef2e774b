import Testing

extension Tag {
    /// A test that spawns a process or a tmux server: the `handoff` executable, the terminal
    /// probe, a shell. Every such suite lives in the HandoffEndToEndTests target and carries
    /// this tag. `swift test` (6.3) selects tests by name only, not by tag, so the tier is
    /// chosen by its target's name: `swift test --filter HandoffEndToEndTests` runs it,
    /// `--skip HandoffEndToEndTests` runs everything else (README, "Test").
    @Tag public static var endToEnd: Self
}
