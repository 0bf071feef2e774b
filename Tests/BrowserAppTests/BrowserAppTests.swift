import Testing
@testable import BrowserApp

@Suite struct BrowserAppPlaceholderTests {
    @Test func moduleBuilds() { #expect(Bool(true)) }
}
