// The bottom of the API (web/lib/wasm-module.js): a flavour or module load() cannot take, and a .wasm that cannot
// be fetched or compiled, are each a ResidualLabError with its code; the build's own .wasm compiles whether or not
// the server names its type (streaming compilation needs application/wasm).
//   node --test tests/js/wasm-module.test.mjs     after `node scripts/build.mjs` (uses dist/lib/)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { load, chooseFlavour, ResidualLabError } from '../../dist/lib/residual-lab.js';
import { compileFrom } from '../../web/lib/wasm-module.js';
import { ResidualLabError as SourceError } from '../../web/lib/errors.js'; // the class the source module throws
import { simdModuleFile } from './simd-module.mjs';

const simdWasm = readFileSync(simdModuleFile('wasm'));

let server, base;
before(async () => {
  server = createServer((request, response) => {
    if (request.url === '/typed.wasm') response.writeHead(200, { 'content-type': 'application/wasm' }).end(simdWasm);
    else if (request.url === '/untyped.wasm') response.writeHead(200).end(simdWasm);
    else if (request.url === '/junk.wasm')
      response.writeHead(200, { 'content-type': 'application/wasm' }).end('not wasm');
    else response.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

/** `promise` rejects with a ResidualLabError of `code` whose message matches `pattern`. */
async function refused(promise, code, pattern) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof SourceError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  });
}

test('a flavour or a module load() cannot take is refused with invalid_options', () => {
  assert.throws(() => chooseFlavour('wasm64'), {
    name: 'ResidualLabError',
    code: 'invalid_options',
    message: /unknown flavour "wasm64"/,
  });
  assert.throws(() => load({ flavour: 'fast' }), { code: 'invalid_options', message: /unknown flavour "fast"/ });
  assert.throws(() => load({ flavour: 'simd', module: {} }), {
    code: 'invalid_options',
    message: /module must be a WebAssembly\.Module/,
  });
  const module = new WebAssembly.Module(simdWasm);
  assert.throws(() => load({ module }), { code: 'invalid_options', message: /needs its flavour/ });
  assert.equal(chooseFlavour('scalar'), 'scalar');
});

test("the build's .wasm compiles streamed (application/wasm) and from its bytes (no type)", async () => {
  for (const path of ['/typed.wasm', '/untyped.wasm']) {
    const module = await compileFrom(new URL(path, base));
    assert.ok(module instanceof WebAssembly.Module, path);
    const exports = WebAssembly.Module.exports(module);
    assert.ok(exports.length > 10, path);
    assert.deepEqual(exports, WebAssembly.Module.exports(new WebAssembly.Module(simdWasm)), path);
  }
});

test('a .wasm that cannot be fetched or compiled: http_error, offline, unavailable, each naming the file', async () => {
  await refused(compileFrom(new URL('/missing.wasm', base)), 'http_error', /missing\.wasm \(HTTP 404\)/);
  await refused(compileFrom(new URL('/junk.wasm', base)), 'unavailable', /could not compile .*junk\.wasm/);
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address();
  await new Promise((resolve) => closed.close(resolve));
  await refused(compileFrom(new URL(`http://127.0.0.1:${port}/x.wasm`)), 'offline', /could not fetch/);
  await refused(
    compileFrom(new URL('../../dist/lib/wasm/absent.wasm', import.meta.url)),
    'unavailable',
    /could not read/,
  );
});
