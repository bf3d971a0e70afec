// The raw exports keep one error record (wasm/bindings/common.hpp): a refusal by a checkpoint export is read
// through the same rl_error_message / rl_error_code as a kernel's, and each failure replaces the one before.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { instantiateSimdModule } from './simd-module.mjs';

let Module;
before(async () => {
  Module = await instantiateSimdModule();
});

const lastError = () => ({
  message: Module.UTF8ToString(Module._rl_error_message()),
  code: Module.UTF8ToString(Module._rl_error_code()),
  position: Module._rl_error_position(),
});

function cString(text) {
  const bytes = Module.lengthBytesUTF8(text) + 1;
  const p = Module._malloc(bytes);
  Module.stringToUTF8(text, p, bytes);
  return p;
}

test('a kernel, then a checkpoint export, then a kernel: each failure is the one rl_error_* report', () => {
  const y = Module._malloc(16);
  const x = Module._malloc(16);
  const out = Module._malloc(16);
  const what = cString('the probe block');
  try {
    // softcap with cap 0 is refused by the kernels' checks
    assert.equal(Module._rl_softcap(y, x, 4, 0), 1);
    const kernel = lastError();
    assert.equal(kernel.code, 'invalid_input');
    assert.match(kernel.message, /cap/);

    // 8 GiB is past the 4 GiB a WASM32 heap can address: refused before anything is reserved
    assert.equal(Module._rl_ckpt_alloc(2 ** 33, what), 0);
    const refused = lastError();
    assert.equal(refused.code, 'out_of_memory');
    assert.equal(refused.message, 'out of memory: the probe block is larger than the WASM heap can hold');
    assert.equal(refused.position, -1);

    assert.equal(Module._rl_ckpt_to_f32(out, x, 1, 9999), 1);
    assert.deepEqual(lastError(), { message: 'unknown dtype code', code: 'invalid_input', position: -1 });

    // parse_vector's error carries the character it stopped at
    const text = cString('1, x');
    try {
      assert.equal(Module._rl_parse_vector(out, 4, text, 4), -1);
    } finally {
      Module._free(text);
    }
    const parsed = lastError();
    assert.equal(parsed.position, 3);
    assert.notEqual(parsed.message, 'unknown dtype code');
  } finally {
    for (const p of [y, x, out, what]) Module._free(p);
  }
});
