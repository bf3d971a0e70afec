// Rewrites the fused multiply-add of a relaxed-SIMD build to the opcode engines accept, in place:
//   node scripts/relaxed-simd.mjs FILE.wasm
// clang 14 (Debian's Emscripten 3.1.6) emits f32x4.relaxed_madd with the relaxed-SIMD proposal's early opcode,
// 0xfd 0xaf 0x01 (0xaf, a gap in the final SIMD opcodes), which V8 and wabt refuse; the standard gives it 0x105,
// 0xfd 0x85 0x02, the same length, so the rewrite moves no byte. A byte pattern is not an instruction, so the
// result is checked by disassembly (wabt's wasm-objdump, which knows the standard opcodes): it must decode every
// function and find a relaxed_madd at each rewritten offset, and no other relaxed instruction. Else the script
// exits 1 and the build fails; an already rewritten file passes unchanged. CMakeLists.txt runs it after each link
// of a relaxed build (RL_RELAXED_SIMD).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { wasmSections } from './lib/wasm-sections.mjs';

const EARLY_MADD = [0xfd, 0xaf, 0x01];
const STANDARD_MADD = [0xfd, 0x85, 0x02];
const CODE_SECTION = 10;

/** The offsets in `bytes` (a .wasm) where the code section holds the early opcode, rewritten in place. */
export function rewriteEarlyMadd(bytes) {
  const code = wasmSections(bytes).find((section) => section.id === CODE_SECTION);
  const offsets = [];
  if (!code) return offsets;
  for (let at = code.start; at + 3 <= code.end; ++at) {
    if (bytes[at] === EARLY_MADD[0] && bytes[at + 1] === EARLY_MADD[1] && bytes[at + 2] === EARLY_MADD[2]) {
      bytes.set(STANDARD_MADD, at);
      offsets.push(at);
      at += 2;
    }
  }
  return offsets;
}

/** A message naming what the disassembly of `file` contradicts, or null when every rewritten offset is a madd. */
export function checkDisassembly(file, offsets) {
  const run = spawnSync('wasm-objdump', ['-d', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (run.error) return `wasm-objdump could not run (${run.error.message}); it comes with wabt`;
  if (run.status !== 0 || /unknown|error/i.test(run.stderr))
    return `wasm-objdump could not decode ${file}: ${run.stderr.trim().split('\n')[0]}`;
  const madds = new Set();
  for (const line of run.stdout.split('\n')) {
    const match = /^ ([0-9a-f]+):[^|]*\|\s*(\S+)/.exec(line);
    if (!match || !match[2].includes('relaxed')) continue;
    if (match[2] !== 'f32x4.relaxed_madd') return `${file} holds ${match[2]} at 0x${match[1]}, not only madd`;
    madds.add(parseInt(match[1], 16));
  }
  const stray = offsets.find((at) => !madds.has(at));
  return stray === undefined ? null : `the bytes rewritten at 0x${stray.toString(16)} were not an instruction`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node scripts/relaxed-simd.mjs FILE.wasm');
    process.exit(2);
  }
  const bytes = new Uint8Array(readFileSync(file));
  const offsets = rewriteEarlyMadd(bytes);
  writeFileSync(file, bytes);
  const problem = checkDisassembly(file, offsets);
  if (problem) {
    console.error(`relaxed-simd: ${problem}`);
    process.exit(1);
  }
  console.log(`relaxed-simd: ${file}: ${offsets.length} fused multiply-adds given the standard opcode`);
}
