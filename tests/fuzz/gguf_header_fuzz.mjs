#!/usr/bin/env node
// The GGUF header target (the parser is JS, so this is a JS loop, not libFuzzer): seeded mutations of GGUF files
// that write-gguf.mjs writes (llama, qwen2 with its tokenizer, gemma2 with a SentencePiece one; F32, F16, Q8_0,
// Q4_K), each opened by lab.openCheckpoint and, when it opens, tokenized and run on two tokens. Every input must
// end in a value or a ResidualLabError with a code; any other throw is a failure, and an input that stops the loop
// for TIMEOUT_S is a hang (the loop runs in a worker that the main thread ends).
//   node tests/fuzz/gguf_header_fuzz.mjs --seconds 5 [--seed N] [--artifacts DIR]   fuzz (scripts/fuzz.mjs runs it)
//   node tests/fuzz/gguf_header_fuzz.mjs FILE...                                     replay saved inputs
// Prints libFuzzer's closing lines (stat::number_of_executed_units, "Done N runs in S second(s)"), and on a
// failure "Test unit written to PATH".
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { makeCheckpoint, makeConfig } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { ggufFromCheckpoint } from '../fixtures/checkpoints/write-gguf.mjs';
import { parseGgufHeader } from '../../web/lib/checkpoint/gguf.js';

const TIMEOUT_S = 30; // as the C++ targets' -timeout
const MAX_INPUT = 1 << 20;

/** The seed files: { name, bytes, headerEnd } (headerEnd: where the data section starts). */
export function ggufSeeds() {
  const small = (family, extra = {}) => ({ ...makeConfig(family), ...extra });
  const blocks = (family) => ({ ...small(family), hidden_size: 256, intermediate_size: 256, head_dim: 64 });
  const spm = JSON.parse(readFileSync(new URL('../fixtures/checkpoints/spm-tokenizer.json', import.meta.url), 'utf8'));
  const spmKv = [
    ['tokenizer.ggml.model', 'string', 'llama'],
    ['tokenizer.ggml.tokens', ['array', 'string'], spm.gguf['tokenizer.ggml.tokens'].slice(0, 300)],
    ['tokenizer.ggml.scores', ['array', 'f32'], spm.gguf['tokenizer.ggml.scores'].slice(0, 300)],
    ['tokenizer.ggml.token_type', ['array', 'i32'], spm.gguf['tokenizer.ggml.token_type'].slice(0, 300)],
    ['tokenizer.ggml.bos_token_id', 'u32', 2],
    ['tokenizer.ggml.add_space_prefix', 'bool', false],
  ];
  const bpeKv = [
    ['tokenizer.ggml.model', 'string', 'gpt2'],
    ['tokenizer.ggml.pre', 'string', 'qwen2'],
    ['tokenizer.ggml.tokens', ['array', 'string'], ['a', 'b', 'ab', 'Ġ', 'Ġab', '<|im_end|>']],
    ['tokenizer.ggml.token_type', ['array', 'i32'], [1, 1, 1, 1, 1, 3]],
    ['tokenizer.ggml.merges', ['array', 'string'], ['a b', 'Ġ ab']],
  ];
  const cases = [
    ['llama-f32', 'llama', small('llama'), 'F32', []],
    ['qwen2-f16-bpe', 'qwen2', small('qwen2'), 'F16', bpeKv],
    ['gemma2-q8_0-spm', 'gemma2', blocks('gemma2'), 'Q8_0', spmKv],
    ['llama-q4_k', 'llama', blocks('llama'), 'Q4_K', []],
  ];
  return cases.map(([name, family, config, dtype, kv]) => {
    const bytes = ggufFromCheckpoint(family, makeCheckpoint({ family, config, seed: 5 }), dtype, kv).bytes;
    return { name, bytes, headerEnd: parseGgufHeader(bytes, bytes.length, name).dataOffset };
  });
}

// Values that sit on the parser's edges: counts, lengths, types and offsets.
const EDGES = [0, 1, 2, 3, 4, 7, 8, 9, 12, 13, 31, 32, 33, 255, 256, 0x7fff, 0xffff, 0x7fffffff, 0xffffffff];

/** One mutation of `seed` drawn with `rand` (() -> [0, 1)): 1-4 edits in the header, sometimes a cut file. */
export function mutate({ bytes, headerEnd }, rand) {
  let out = bytes.slice();
  const at = () => Math.floor(rand() * headerEnd);
  for (let k = 1 + Math.floor(rand() * 4); k > 0; k--) {
    const kind = Math.floor(rand() * 5);
    if (kind === 0) out[at()] = Math.floor(rand() * 256);
    else if (kind === 1) out[at()] ^= 1 << Math.floor(rand() * 8);
    else if (kind === 2 || kind === 3) {
      // a u32 or u64 field (little-endian) set to an edge value, the high word sometimes all ones
      const p = at() & ~3,
        v = EDGES[Math.floor(rand() * EDGES.length)];
      const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
      if (p + 8 <= out.length) {
        view.setUint32(p, v >>> 0, true);
        if (kind === 3) view.setUint32(p + 4, rand() < 0.2 ? 0xffffffff : 0, true);
      }
    } else {
      // a slice of the header removed or repeated
      const from = at(),
        len = 1 + Math.floor(rand() * 24);
      const cut = rand() < 0.5;
      const merged = new Uint8Array(out.length + (cut ? -Math.min(len, out.length - from) : len));
      merged.set(out.subarray(0, from));
      if (cut) merged.set(out.subarray(from + len), from);
      else (merged.set(out.subarray(from, from + len), from), merged.set(out.subarray(from), from + len));
      out = merged;
    }
  }
  return rand() < 0.15 ? out.subarray(0, Math.floor(rand() * out.length)) : out;
}

/**
 * Opens `bytes` as a GGUF and, when it opens, tokenizes a text and runs two tokens. Resolves to 'opened' or the
 * refusal's code; throws when anything other than a ResidualLabError with a code is thrown.
 */
export async function tryGguf(lab, bytes) {
  const named = (error) => {
    if (error?.name === 'ResidualLabError' && typeof error.code === 'string' && error.code) return error.code;
    throw new Error(`not a named error: ${error?.stack ?? error}`);
  };
  let ckpt;
  try {
    ckpt = await lab.openCheckpoint({ 'model.gguf': bytes });
  } catch (error) {
    return named(error);
  }
  try {
    try {
      ckpt.tokenize('年假怎么申请？ ab');
    } catch (error) {
      named(error);
    }
    await ckpt.run([0, 1]);
    return 'opened';
  } catch (error) {
    return named(error);
  } finally {
    ckpt.dispose();
  }
}

/** A seeded generator in [0, 1) (a linear congruential one: reproducible, enough for picking mutations). */
export function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

const loadLab = async () => (await import('../../dist/lib/residual-lab.js')).load();

// The worker: mutates and tries inputs until the time is up, the current input copied into shared memory first so
// the main thread can save it if the worker hangs.
async function fuzzLoop({ seconds, seed, shared }) {
  const lab = await loadLab();
  const seeds = ggufSeeds();
  const rand = lcg(seed);
  const runs = new Int32Array(shared, 0, 2); // [runs, input length]
  const input = new Uint8Array(shared, 8);
  const codes = new Map();
  const start = Date.now(),
    end = start + seconds * 1000;
  while (Date.now() < end) {
    const bytes = mutate(seeds[Math.floor(rand() * seeds.length)], rand);
    input.set(bytes.subarray(0, MAX_INPUT));
    Atomics.store(runs, 1, Math.min(bytes.length, MAX_INPUT));
    let code;
    try {
      code = await tryGguf(lab, bytes);
    } catch (error) {
      parentPort.postMessage({ failed: error.message });
      return;
    }
    codes.set(code, (codes.get(code) ?? 0) + 1);
    Atomics.add(runs, 0, 1);
  }
  parentPort.postMessage({ done: Object.fromEntries(codes), ms: Date.now() - start });
}

async function main(argv) {
  const opt = { seconds: 60, seed: Date.now() % 2 ** 31, artifacts: 'build/fuzz-artifacts', files: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--seconds') opt.seconds = Number(argv[++i]);
    else if (argv[i] === '--seed') opt.seed = Number(argv[++i]);
    else if (argv[i] === '--artifacts') opt.artifacts = argv[++i];
    else if (argv[i].startsWith('--')) throw new Error(`unknown argument ${argv[i]}`);
    else opt.files.push(argv[i]);
  }
  if (opt.files.length) {
    const lab = await loadLab();
    for (const file of opt.files) console.log(`${file}: ${await tryGguf(lab, new Uint8Array(readFileSync(file)))}`);
    return 0;
  }
  console.log(`gguf_header: seed ${opt.seed}, ${opt.seconds} s`);
  const shared = new SharedArrayBuffer(8 + MAX_INPUT);
  const runs = new Int32Array(shared, 0, 2);
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { ...opt, shared } });
  const outcome = await new Promise((resolve) => {
    let last = -1,
      lastChange = Date.now();
    const watch = setInterval(() => {
      const now = Atomics.load(runs, 0);
      if (now !== last) ((last = now), (lastChange = Date.now()));
      else if (Date.now() - lastChange > TIMEOUT_S * 1000) {
        clearInterval(watch);
        worker.terminate();
        resolve({ failed: `an input ran for more than ${TIMEOUT_S} s (a hang)` });
      }
    }, 250);
    worker.on('message', (m) => (clearInterval(watch), resolve(m)));
    worker.on('error', (e) => (clearInterval(watch), resolve({ failed: `the worker threw: ${e.stack}` })));
  });
  await worker.terminate();
  const count = Atomics.load(runs, 0);
  console.log(`stat::number_of_executed_units: ${count}`);
  if (outcome.failed) {
    const bytes = new Uint8Array(shared, 8, Atomics.load(runs, 1)).slice();
    mkdirSync(opt.artifacts, { recursive: true });
    const path = join(opt.artifacts, `gguf_header-crash-${createHash('sha1').update(bytes).digest('hex')}`);
    writeFileSync(path, bytes);
    console.log(`FUZZ_CHECK failed: ${outcome.failed}`);
    console.log(`Test unit written to ${path}`);
    return 1;
  }
  console.log(`outcomes: ${JSON.stringify(outcome.done)}`);
  console.log(`Done ${count} runs in ${Math.max(1, Math.round(outcome.ms / 1000))} second(s)`);
  return 0;
}

if (!isMainThread && workerData?.shared) fuzzLoop(workerData);
else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => (console.error(`gguf_header: ${error.message}`), process.exit(2)),
  );
}
