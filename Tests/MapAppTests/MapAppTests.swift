import Testing
@testable import MapApp

@Suite struct MapAppPlaceholderTests {
    @Test func moduleBuilds() { #expect(Bool(true)) }
}
