import Testing
import HandoffNetwork
@Test func networkModuleLoads() { #expect(HandoffNetwork.protocolVersion == 2) }
