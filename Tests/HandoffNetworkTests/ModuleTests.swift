import HandoffNetwork
import Testing

@Test func networkModuleLoads() { #expect(HandoffNetwork.protocolVersion == 2) }
