// The shipped SIMD module really runs its norm kernels on f32x4 instructions, and the scalar one has none.
// Reads the disassembly (wasm-objdump, Debian package wabt) of dist/lib/wasm/*.wasm (served under content-hashed
// names: dist/asset-manifest.json), whose function names are kept by --profiling-funcs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const manifest = JSON.parse(readFileSync(new URL('../../dist/asset-manifest.json', import.meta.url), 'utf8'));
const wasmPath = (flavour) => fileURLToPath(new URL(`../../dist/${manifest[`lib/wasm/residual_lab_${flavour}.wasm`]}`, import.meta.url));

/** Maps each function's (demangled-ish) name to its body's text. */
function functionBodies(path) {
  const text = execFileSync('wasm-objdump', ['-d', path], { encoding: 'utf8', maxBuffer: 256 << 20 });
  const bodies = new Map();
  let current = null;
  for (const line of text.split('\n')) {
    const head = line.match(/^[0-9a-f]+ func\[\d+\] <(.+)>:$/);
    if (head) { current = head[1]; bodies.set(current, ''); } else if (current) bodies.set(current, bodies.get(current) + line + '\n');
  }
  return bodies;
}

const count = (body, op) => body.split(op).length - 1;

test('the SIMD module\'s norm kernels hold f32x4 arithmetic', () => {
  const bodies = functionBodies(wasmPath('simd'));
  for (const kernel of ['rmsnorm_forward', 'rmsnorm_backward', 'layernorm_forward', 'layernorm_backward']) {
    const matching = [...bodies.entries()].filter(([name]) => name.includes(kernel) && !name.includes('bf16'));
    assert.ok(matching.length > 0, `no function named like ${kernel} in the module`);
    const adds = matching.reduce((s, [, body]) => s + count(body, 'f32x4.add') + count(body, 'f32x4.mul'), 0);
    assert.ok(adds >= 4, `${kernel}: only ${adds} f32x4.add/mul instructions`);
  }
});

test('the scalar module has no SIMD instructions at all', () => {
  const bodies = functionBodies(wasmPath('scalar'));
  const simdOps = [...bodies.values()].reduce((s, body) => s + count(body, 'f32x4.') + count(body, 'v128.'), 0);
  assert.equal(simdOps, 0);
});
