// HandoffWeb: the local web of the simulator.
//
// - `WebFolder`: where the local web keeps its files (the certificate authority, the hosts map).
// - `LocalCertificateAuthority`: the authority the simulated devices trust, and the server
//   certificate it issues for the demo hosts (swift-certificates, swift-crypto).
// - `HostsMap`: the devices' own map from the demo hosts to the server on loopback.
// - `SiteServer`: the demo sites over HTTPS (and HTTP) on loopback, with Hummingbird; its
//   `Rehearsal`s serve association files wrong on purpose.
// - `WebClient`: one HTTP(S) request through the hosts map, trusting only the local authority,
//   with a deadline and a size cap, never following redirects (SwiftNIO, NIOSSL).
// - `SiteAssociationVerifier`: a device's association-file fetch, its outcome and its cache time.
