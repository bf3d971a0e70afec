// What reading a checkpoint's weights costs by itself, beside a run: every tensor a run of 16 tokens reads, read
// from the files (in the OS cache after a first pass) into one reused buffer, as the one-worker run reads them,
// then copied into a WASM-sized buffer as the run copies them into its heap. Wall and CPU seconds of each pass,
// so a reader sees how much of a run is the reading and how much of a second core it takes.
//   node bench/read-cost.mjs [--shapes=llama-3.1-8b]
import { open } from 'node:fs/promises';
import { SHAPES, cachedCheckpoint } from './synthetic-checkpoints.mjs';

const argShapes = process.argv.find((a) => a.startsWith('--shapes='))?.slice('--shapes='.length);
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
for (const key of argShapes ? argShapes.split(',') : Object.keys(SHAPES)) {
  const files = await cachedCheckpoint(key);
  // [path, begin, end] of every tensor a run reads whole: all but the embedding, whose 16 rows a run gathers, unless
  // the head is tied to it (no lm_head.weight): then the head reads the whole embedding
  const ranges = [];
  const embeddings = [];
  let untied = false;
  for (const [name, path] of Object.entries(files)) {
    if (!name.endsWith('.safetensors')) continue;
    const handle = await open(path);
    const head = Buffer.alloc(8);
    await handle.read(head, 0, 8, 0);
    const n = Number(head.readBigUInt64LE(0));
    const json = Buffer.alloc(n);
    await handle.read(json, 0, n, 8);
    await handle.close();
    for (const [tensor, entry] of Object.entries(JSON.parse(json))) {
      if (tensor === '__metadata__') continue;
      const range = [path, 8 + n + entry.data_offsets[0], 8 + n + entry.data_offsets[1]];
      if (tensor.includes('embed_tokens')) embeddings.push(range);
      else ranges.push(range);
      if (tensor.endsWith('lm_head.weight')) untied = true;
    }
  }
  if (!untied) ranges.push(...embeddings);
  const largest = Math.max(...ranges.map(([, b, e]) => e - b));
  const buffer = new Uint8Array(largest);
  const heap = new Uint8Array(largest);
  const handles = new Map();
  for (const pass of ['first', 'second']) {
    let t0 = performance.now(),
      c0 = cpu(),
      bytes = 0;
    for (const [path, begin, end] of ranges) {
      if (!handles.has(path)) handles.set(path, await open(path));
      const view = buffer.subarray(0, end - begin);
      for (let done = 0; done < view.length;) {
        const { bytesRead } = await handles.get(path).read(view, done, view.length - done, begin + done);
        done += bytesRead;
      }
      bytes += end - begin;
    }
    const read = { wall: (performance.now() - t0) / 1000, cpu: cpu() - c0 };
    t0 = performance.now();
    c0 = cpu();
    for (const [, begin, end] of ranges) heap.set(buffer.subarray(0, end - begin));
    const copy = { wall: (performance.now() - t0) / 1000, cpu: cpu() - c0 };
    console.log(
      JSON.stringify({
        shape: key,
        pass,
        tiedHead: !untied,
        gigabytes: bytes / 1e9,
        readSeconds: read,
        copySeconds: copy,
      }),
    );
  }
  for (const handle of handles.values()) await handle.close();
}
