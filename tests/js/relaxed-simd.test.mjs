// The relaxed-SIMD build: its fused multiply-adds get the standard opcode (scripts/relaxed-simd.mjs), only where
// they are instructions; the shipped binary decodes whole; an engine with relaxed SIMD loads it by default, and its
// numbers are the SIMD build's (held to float64 by the other suites) to float32 rounding, on every family; an
// engine without it loads the SIMD build and refuses the relaxed one by name.
//   node --test tests/js/relaxed-simd.test.mjs     after `node scripts/build.mjs`
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDisassembly, rewriteEarlyMadd } from '../../scripts/relaxed-simd.mjs';
import { chooseFlavour, load, relaxedSimdSupported } from '../../dist/lib/residual-lab.js';

const WASM_DIR = fileURLToPath(new URL('../../dist/lib/wasm/', import.meta.url));
const shipped = join(
  WASM_DIR,
  readdirSync(WASM_DIR).find((f) => /^residual_lab_relaxed-\w+\.wasm$/.test(f)),
);

// A module of one function, `body` (its locals' count first), and a data segment holding `data`.
function moduleWith(body, data) {
  const code = [1, body.length, ...body];
  const segment = [1, 0, 0x41, 0, 0x0b, data.length, ...data]; // active, memory 0, offset i32.const 0
  return new Uint8Array([
    ...[0, 97, 115, 109, 1, 0, 0, 0],
    ...[1, 4, 1, 0x60, 0, 0], // type: () -> ()
    ...[3, 2, 1, 0], // function 0 of type 0
    ...[5, 3, 1, 0, 1], // memory: min 1 page
    ...[10, code.length, ...code],
    ...[11, segment.length, ...segment],
  ]);
}

const EARLY = [0xfd, 0xaf, 0x01];
const STANDARD = [0xfd, 0x85, 0x02];
const indexOf = (bytes, pattern, from = 0) =>
  bytes.findIndex((_, i) => i >= from && pattern.every((b, j) => bytes[i + j] === b));

test('the early opcode is rewritten in the code section only, and checked as an instruction', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rl-relaxed-'));
  try {
    // v128.const 0 three times, the early madd, drop; the same three bytes in the data segment stay as they are
    const zero = [0xfd, 0x0c, ...new Array(16).fill(0)];
    const bytes = moduleWith([0, ...zero, ...zero, ...zero, ...EARLY, 0x1a, 0x0b], EARLY);
    const at = indexOf(bytes, EARLY);
    const inData = indexOf(bytes, EARLY, at + 3);
    assert.deepEqual(rewriteEarlyMadd(bytes), [at]);
    assert.deepEqual([...bytes.subarray(at, at + 3)], STANDARD);
    assert.deepEqual([...bytes.subarray(inData, inData + 3)], EARLY, 'data is not code');
    writeFileSync(join(dir, 'madd.wasm'), bytes);
    assert.equal(checkDisassembly(join(dir, 'madd.wasm'), [at]), null);

    // the same bytes inside an immediate (i32.const's LEB128) are rewritten, then caught by the disassembly
    const constant = moduleWith([0, 0x41, ...EARLY, 0x1a, 0x0b], []);
    const offsets = rewriteEarlyMadd(constant);
    assert.equal(offsets.length, 1);
    writeFileSync(join(dir, 'constant.wasm'), constant);
    assert.match(checkDisassembly(join(dir, 'constant.wasm'), offsets), /were not an instruction/);

    // an opcode the disassembler cannot decode fails the check
    writeFileSync(join(dir, 'early.wasm'), moduleWith([0, ...zero, ...zero, ...zero, ...EARLY, 0x1a, 0x0b], []));
    assert.match(checkDisassembly(join(dir, 'early.wasm'), []), /could not decode/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the shipped relaxed build decodes whole, its matmul kernels fused', () => {
  assert.equal(checkDisassembly(shipped, []), null);
  const listing = execFileSync('wasm-objdump', ['-d', shipped], { encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.ok((listing.match(/f32x4\.relaxed_madd/g) ?? []).length >= 8, 'the tiles of both matmul forms');
});

test('without relaxed SIMD the SIMD build runs, and the relaxed one is refused by name', async (t) => {
  if (relaxedSimdSupported()) return t.skip('this engine has relaxed SIMD (the child process below covers it)');
  assert.equal(chooseFlavour(), 'simd');
  await assert.rejects(load({ flavour: 'relaxed' }), {
    code: 'unavailable',
    message: /could not compile .*residual_lab_relaxed.*\.wasm/,
  });
});

// Run in a node with relaxed SIMD switched on: every family's forward and gradients in both builds.
const CHILD = `
import { load } from './dist/lib/residual-lab.js';
import { FAMILIES, makeCheckpoint } from './tests/fixtures/checkpoints/make-checkpoints.mjs';
const relaxed = await load();
const simd = await load({ flavour: 'simd' });
const ids = [3, 1, 4, 1, 5, 9, 2, 6];
const deviation = (a, b) => {
  let scale = 0, worst = 0;
  for (let i = 0; i < a.length; i++) {
    scale = Math.max(scale, Math.abs(b[i]));
    worst = Math.max(worst, Math.abs(a[i] - b[i]));
  }
  return worst / scale;
};
const families = {};
for (const family of FAMILIES)
  for (const dtype of ['F32', 'BF16']) {
    const out = {};
    for (const [name, lab] of [['relaxed', relaxed], ['simd', simd]]) {
      const ckpt = await lab.openCheckpoint(makeCheckpoint({ family, dtype, seed: 11 }).files, { workers: 1 });
      const run = await ckpt.run(ids, { logits: 'all' });
      const g = await ckpt.gradients(ids);
      out[name] = { logits: run.logits, grads: g.streamGrads.flatMap((row) => [...row]), loss: g.loss };
      ckpt.dispose();
    }
    families[family + ' ' + dtype] = {
      logits: deviation(out.relaxed.logits, out.simd.logits),
      grads: deviation(out.relaxed.grads, out.simd.grads),
      loss: Math.abs(out.relaxed.loss - out.simd.loss),
    };
  }
console.log(JSON.stringify({ flavour: relaxed.flavour, families }));
`;

test('with relaxed SIMD it is the default, and its numbers are the SIMD build’s to float32 rounding', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const out = JSON.parse(
    execFileSync(
      process.execPath,
      ['--experimental-wasm-relaxed-simd', '--no-experimental-fetch', '--input-type=module', '-e', CHILD],
      { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 },
    ),
  );
  assert.equal(out.flavour, 'relaxed');
  assert.equal(Object.keys(out.families).length, 16);
  for (const [model, d] of Object.entries(out.families)) {
    assert.ok(d.logits < 1e-5, `${model} logits: ${d.logits}`);
    assert.ok(d.grads < 1e-4, `${model} stream gradients: ${d.grads}`);
    assert.ok(d.loss < 1e-5, `${model} loss: ${d.loss}`);
  }
});
