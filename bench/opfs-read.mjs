// A model stored in the browser (OPFS, where lab.fetchCheckpoint puts it), read two ways in a worker in Chromium,
// interleaved in one browser: through the File the store hands out, sliced (file.slice(a, b).arrayBuffer(): a fresh
// buffer per read, the read done outside the worker's thread), and through a read-only FileSystemSyncAccessHandle
// into one reused buffer (synchronous: the worker's thread waits for each read). The Qwen-shaped weights file
// (988 MB) whole, in 16 MB and in 1 MB pieces; MB/s. The lab reads stored models through slices: a run overlaps
// them with its compute, which a synchronous read cannot (the runs compared in docs/checkpoints.md, "Models stored
// in the browser"). Not a test: it prints JSON lines and a summary.
//   node bench/opfs-read.mjs [--rounds=3]
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/lib/chromium.mjs';
import { median } from '../scripts/lib/median.mjs';
import { startIsolatedServer } from './lib/isolated-server.mjs';
import { cachedCheckpoint } from './synthetic-checkpoints.mjs';

const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(arg('rounds', '3'));

const files = await cachedCheckpoint('qwen2.5-0.5b');
const server = await startIsolatedServer({
  roots: {},
  files: { 'model.safetensors': files['model.safetensors'] },
});
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
const rows = [];
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  // the file in the store's layout (hub-opfs.js), under a stand-in key
  const stored = await page.evaluate(async () => {
    const key = 'b'.repeat(64);
    const rootDir = await navigator.storage.getDirectory();
    const blobs = await (
      await (
        await rootDir.getDirectoryHandle('residual-lab-models', { create: true })
      ).getDirectoryHandle('models--bench--qwen', { create: true })
    ).getDirectoryHandle('blobs', { create: true });
    const handle = await blobs.getFileHandle(key, { create: true });
    const t0 = performance.now();
    const writable = await handle.createWritable();
    await (await fetch('/files/model.safetensors')).body.pipeTo(writable);
    return { key, bytes: (await handle.getFile()).size, seconds: (performance.now() - t0) / 1000 };
  });
  console.log(JSON.stringify({ stored }));
  for (let round = 0; round < rounds; round++) {
    // the raw reads, in a worker (sync access handles exist only there)
    const reads = await page.evaluate(async (key) => {
      const code = `onmessage = async ({ data: { key, way, piece } }) => {
        const root = await navigator.storage.getDirectory();
        const dir = await (await (await root.getDirectoryHandle('residual-lab-models')).getDirectoryHandle('models--bench--qwen')).getDirectoryHandle('blobs');
        const handle = await dir.getFileHandle(key);
        const t0 = performance.now();
        let size;
        if (way === 'slice') {
          const file = await handle.getFile();
          size = file.size;
          for (let at = 0; at < size; at += piece) await file.slice(at, Math.min(size, at + piece)).arrayBuffer();
        } else {
          const access = await handle.createSyncAccessHandle({ mode: 'read-only' });
          size = access.getSize();
          const buffer = new Uint8Array(piece);
          for (let at = 0; at < size; at += piece) access.read(buffer.subarray(0, Math.min(piece, size - at)), { at });
          access.close();
        }
        postMessage(size / ((performance.now() - t0) / 1000) / 1e6);
      }`;
      const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
      const out = {};
      for (const piece of [16 << 20, 1 << 20])
        for (const way of ['slice', 'sync']) {
          const worker = new Worker(url);
          out[`${way} ${piece >> 20} MB`] = await new Promise((ok) => {
            worker.onmessage = (e) => ok(e.data);
            worker.postMessage({ key, way, piece });
          });
          worker.terminate();
        }
      return out;
    }, stored.key);
    const row = { round, readMBs: reads };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
} finally {
  await browser.close();
  await server.close();
}
const fmt = (values) =>
  `${median(values).toFixed(2)} (${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})`;
for (const what of Object.keys(rows[0].readMBs))
  console.log(`read ${what}: ${fmt(rows.map((r) => r.readMBs[what]))} MB/s`);
