// The shipped SIMD module really runs its norm kernels on f32x4 instructions and widens quantized weights in lanes,
// and the scalar one has no SIMD at all.
// Reads the disassembly (wasm-objdump, Debian package wabt) of the builds' build/wasm-*/residual_lab.wasm, whose
// function names are kept by --profiling-funcs, and checks that dist/lib/wasm/*.wasm (served under content-hashed
// names: dist/asset-manifest.json) is that module with its name section left out, nothing else changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { wasmSections } from '../../scripts/lib/wasm-sections.mjs';

const manifest = JSON.parse(readFileSync(new URL('../../dist/asset-manifest.json', import.meta.url), 'utf8'));
const shippedPath = (flavour) =>
  fileURLToPath(new URL(`../../dist/${manifest[`lib/wasm/residual_lab_${flavour}.wasm`]}`, import.meta.url));
const wasmPath = (flavour) => fileURLToPath(new URL(`../../build/wasm-${flavour}/residual_lab.wasm`, import.meta.url));

/** Maps each function's (demangled-ish) name to its body's text. */
function functionBodies(path) {
  const text = execFileSync('wasm-objdump', ['-d', path], { encoding: 'utf8', maxBuffer: 256 << 20 });
  const bodies = new Map();
  let current = null;
  for (const line of text.split('\n')) {
    const head = line.match(/^[0-9a-f]+ func\[\d+\] <(.+)>:$/);
    if (head) {
      current = head[1];
      bodies.set(current, '');
    } else if (current) bodies.set(current, bodies.get(current) + line + '\n');
  }
  return bodies;
}

const count = (body, op) => body.split(op).length - 1;

test("the SIMD module's norm kernels hold f32x4 arithmetic", () => {
  const bodies = functionBodies(wasmPath('simd'));
  for (const kernel of ['rmsnorm_forward', 'rmsnorm_backward', 'layernorm_forward', 'layernorm_backward']) {
    const matching = [...bodies.entries()].filter(([name]) => name.includes(kernel) && !name.includes('bf16'));
    assert.ok(matching.length > 0, `no function named like ${kernel} in the module`);
    const adds = matching.reduce((s, [, body]) => s + count(body, 'f32x4.add') + count(body, 'f32x4.mul'), 0);
    assert.ok(adds >= 4, `${kernel}: only ${adds} f32x4.add/mul instructions`);
  }
});

// A 16-lane int8 -> float32 convertvector compiled by clang 14 becomes, per lane, an i8x16.extract_lane_s, a scalar
// convert and a replace (212 extracts in to_f32 when Q8_0 and the K-quants were widened that way); widened by
// extends, every type's blocks leave only the few lanes of the plain per-value fallback, apply(), inlined beside them.
test('the SIMD module widens quantized blocks in lanes, not one value at a time', () => {
  const bodies = functionBodies(wasmPath('simd'));
  const body = [...bodies.entries()].find(([name]) => name.startsWith('rl::checkpoint::to_f32('))?.[1];
  assert.ok(body, 'no rl::checkpoint::to_f32 in the module');
  assert.ok(count(body, 'i32x4.extend_low_i16x8_s') >= 4, 'to_f32 holds no int16 -> int32 lane extends');
  const extracts = count(body, 'i8x16.extract_lane_s');
  assert.ok(extracts < 16, `to_f32 takes ${extracts} int8 lanes out one at a time`);
});

test('the scalar module has no SIMD instructions at all', () => {
  const bodies = functionBodies(wasmPath('scalar'));
  const simdOps = [...bodies.values()].reduce((s, body) => s + count(body, 'f32x4.') + count(body, 'v128.'), 0);
  assert.equal(simdOps, 0);
});

for (const flavour of ['simd', 'scalar']) {
  test(`the shipped ${flavour} module is the build's, without its function names`, () => {
    const built = readFileSync(wasmPath(flavour));
    const shipped = readFileSync(shippedPath(flavour));
    const describe = (bytes) =>
      wasmSections(bytes).map((s) => ({ id: s.id, name: s.name, bytes: bytes.subarray(s.start, s.end) }));
    const builtSections = describe(built);
    assert.ok(
      builtSections.some((s) => s.name === 'name'),
      'the build has lost its name section (--profiling-funcs)',
    );
    assert.deepEqual(
      describe(shipped),
      builtSections.filter((s) => s.name !== 'name'),
    );
    assert.ok(shipped.length < built.length * 0.95, `shipped ${shipped.length} bytes of the build's ${built.length}`);
    assert.ok(WebAssembly.validate(shipped));
  });
}
