import DeviceAppKit
import Foundation
import HandoffCore
import TerminalCells

/// A flight to a searched place: the camera moves there in ``frameCount`` frames, zooming out
/// on the way when the places are far apart (so the user sees where the map goes) and easing in
/// and out.
package struct MapFlight: Hashable, Sendable {
    /// Frames from the start to the landing.
    package static let frameCount = 8
    /// The time between frames.
    package static let frameInterval = Duration.milliseconds(45)

    package let from: MapCamera
    package let to: MapCamera
    /// The frames shown so far (the flight lands at ``frameCount``).
    package internal(set) var frame = 0
    /// Tells this flight's frame ticks from an earlier flight's.
    let number: Int
    /// How far the flight zooms out midway.
    let dip: Double

    init(from: MapCamera, to: MapCamera, viewport: Size, number: Int) {
        self.from = from
        self.to = to
        self.number = number
        // The zoom at which both ends fit in the view, if below both ends' zooms.
        let east = abs(MapCamera.wrap(to.longitude - from.longitude))
        let north = abs(to.latitude - from.latitude)
        let degreesPerColumn = max(
            east / Double(max(viewport.width, 1)), north / Double(2 * max(viewport.height, 1)), 1e-9)
        let both = log2(360 / (128 * degreesPerColumn))
        dip = max(0, min(from.zoom, to.zoom) - both)
    }

    /// The camera at `frame` (0 the start, ``frameCount`` the landing).
    package func camera(atFrame frame: Int) -> MapCamera {
        guard frame < Self.frameCount else { return to }
        let t = Double(max(frame, 0)) / Double(Self.frameCount)
        let s = t * t * (3 - 2 * t)  // ease in and out
        let zoom = from.zoom + (to.zoom - from.zoom) * s - dip * 4 * s * (1 - s)
        return MapCamera(
            latitude: from.latitude + (to.latitude - from.latitude) * s,
            longitude: from.longitude + MapCamera.wrap(to.longitude - from.longitude) * s, zoom: zoom)
    }
}

extension MapApp {
    /// Flies to `city` and highlights it: a few frames, each drawn when the device is woken, the
    /// last one showing the place at ``searchZoom`` or closer (the region changes, and needs
    /// saving, once, on landing). Without a device to draw the frames it is there at once.
    package func fly(to city: City) {
        let target = Self.camera(showing: city, from: camera)
        guard let environment, target != camera else {
            show(city)
            return
        }
        highlighted = city
        flightNumber += 1
        setFlight(MapFlight(from: camera, to: target, viewport: viewport, number: flightNumber))
        scheduleFlightFrame(environment)
    }

    /// Shows the flight's next frame, or lands it.
    package func advanceFlight() {
        guard var flight else { return }
        flight.frame += 1
        if flight.frame >= MapFlight.frameCount {
            show(flight.to)  // ends the flight and asks for a save
        } else {
            setFlight(flight)
            showFrame(flight.camera(atFrame: flight.frame))
            if let environment { scheduleFlightFrame(environment) }
        }
        environment?.setNeedsDisplay()
    }

    /// Lands the flight in progress at once (a key pressed during it acts from the landing).
    package func landFlight() {
        guard let flight else { return }
        show(flight.to)
    }

    private func scheduleFlightFrame(_ environment: AppEnvironment) {
        guard let number = flight?.number else { return }
        let perform = environment.perform
        let reference = Confined(weak: self)
        Task.detached {
            try? await Task.sleep(for: MapFlight.frameInterval)
            perform {
                guard let map = reference.value.object, map.flight?.number == number else { return }
                map.advanceFlight()
            }
        }
    }
}
