import Testing

@testable import HandoffProcesses

/// Private runs pick their discovery port where no socket bound to port 0 can already hold it.
@Suite struct DiscoveryPortTests {
    @Test func randomPortsStayOutOfTheEphemeralRange() {
        let ephemeral = DiscoveryPort.ephemeralRange()
        let ports = (0..<2_000).map { _ in DiscoveryPort.random() }
        #expect(ports.allSatisfy { !ephemeral.contains($0) && (1_024...65_535).contains($0) }, "\(ephemeral)")
        #expect(Set(ports).count > 100, "runs side by side get different ports")
    }
}
