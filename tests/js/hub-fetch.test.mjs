// lab.fetchCheckpoint in node against a local fake Hub (tests/fixtures/fake-hub.mjs): the Hub's cache layout in a
// temporary HF_HOME, the endpoint from HF_ENDPOINT, a dropped connection resumed with Range, a cancel resumed, a
// corrupted file refused and deleted, each error's code (X-Error-Code read before the status; a refused download
// leaves nothing behind); a second fetch, and a cache written the way huggingface_hub writes it, open with every
// request refused; an access token (HF_TOKEN, the token file) sent to the Hub and not to its download host; a 429
// retried after Retry-After or a backoff, bounded.
//   node --test tests/js/hub-fetch.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from '../../dist/lib/residual-lab.js';
import { hubCacheDir, hubToken } from '../../web/lib/hub/fetch.js';
import { makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { startFakeHub } from '../fixtures/fake-hub.mjs';

const IDS = [3, 17, 5, 40, 11];
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const tokenizer = JSON.stringify({ model: { type: 'WordLevel', vocab: { a: 0 }, unk_token: 'a' } });
const single = makeCheckpoint({ family: 'qwen2', dtype: 'BF16', seed: 3 });
const sharded = makeCheckpoint({ family: 'llama', dtype: 'F32', sharded: true, seed: 4 });
const weights = single.files['model.safetensors'];
const CUT = 1000; // bytes served before the dropped connection
const TOKEN = 'hf_stand1nT0kenForTheFakeHubOnly0000';

let lab, hub, home;
const savedEnv = { ...process.env };
const refused = async (url) => {
  throw new Error(`no request may be made, and ${url} was`);
};
before(async () => {
  lab = await load();
  home = mkdtempSync(join(tmpdir(), 'rl-hub-'));
  hub = await startFakeHub({
    'toy/qwen2-tiny': { files: { ...single.files, 'tokenizer.json': tokenizer } },
    'toy/llama-sharded': { files: sharded.files },
    'toy/dropped': { files: single.files, cut: { 'model.safetensors': CUT }, cutByCall: true },
    'toy/corrupt': { files: single.files, corrupt: 'model.safetensors' },
    'toy/gated': { files: single.files, gated: true },
    'toy/cancel': { files: single.files, hold: { 'model.safetensors': CUT } },
    'toy/gated-token': { files: single.files, gated: true, token: TOKEN },
    'toy/throttled': { files: single.files, throttle: { times: 2, retryAfter: 1 } },
    'toy/throttled-plain': { files: single.files, throttle: { times: 1 } },
    'toy/throttled-long': { files: single.files, throttle: { times: 1, retryAfter: 3600 } },
    'toy/throttled-always': { files: single.files, throttle: { times: 99, retryAfter: 0 } },
  });
  process.env.HF_HOME = home;
  delete process.env.HF_HUB_CACHE;
  process.env.HF_ENDPOINT = hub.endpoint;
});
after(async () => {
  process.env = savedEnv;
  await hub?.close();
  rmSync(home, { recursive: true, force: true });
});

const modelDir = (repo) => join(home, 'hub', `models--${repo.replace('/', '--')}`);
/** The fetched files run as the fixture's bytes do (tokenizer.json, a stub, is checked byte for byte instead). */
async function sameNumbers(fetched, expected) {
  const { 'tokenizer.json': stub, ...files } = fetched;
  if (stub) assert.equal(await stub.text(), tokenizer);
  const a = await lab.openCheckpoint(files);
  const b = await lab.openCheckpoint(expected);
  try {
    assert.deepEqual((await a.run(IDS)).finalNorms, (await b.run(IDS)).finalNorms);
  } finally {
    a.dispose();
    b.dispose();
  }
}

test('the cache folder follows HF_HUB_CACHE, then HF_HOME/hub, then ~/.cache/huggingface/hub', async () => {
  assert.equal(await hubCacheDir({ HF_HUB_CACHE: '/c', HF_HOME: '/h' }), '/c');
  assert.equal(await hubCacheDir({ HF_HOME: '/h' }), join('/h', 'hub'));
  assert.match(await hubCacheDir({}), /\.cache[/\\]huggingface[/\\]hub$/);
});

test('a model fetched from HF_ENDPOINT lands in the Hub cache layout, verified, and runs', async () => {
  const repo = 'toy/qwen2-tiny';
  const seen = [];
  const got = await lab.fetchCheckpoint(repo, { onProgress: (p) => seen.push(p) });
  const commit = hub.commitOf(repo);
  assert.equal(got.commit, commit);
  assert.equal(got.fetched, true);
  assert.equal(got.endpoint, hub.endpoint);
  const total = weights.length + Buffer.byteLength(single.files['config.json']) + tokenizer.length;
  assert.equal(got.bytes, total);
  assert.deepEqual(seen.at(-1), { file: 'model.safetensors', loaded: total, total });
  // blobs named by their ETag, snapshots as relative symlinks, refs/main the commit
  const dir = modelDir(repo);
  assert.equal(readFileSync(join(dir, 'refs', 'main'), 'utf8'), commit);
  assert.equal(
    readlinkSync(join(dir, 'snapshots', commit, 'model.safetensors')),
    join('..', '..', 'blobs', sha256(weights)),
  );
  const configOid = hub.siblingsOf(repo).find((s) => s.rfilename === 'config.json').blobId;
  assert.equal(readlinkSync(join(dir, 'snapshots', commit, 'config.json')), join('..', '..', 'blobs', configOid));
  assert.deepEqual(readFileSync(join(dir, 'blobs', sha256(weights))), Buffer.from(weights));
  assert.equal(got.files['model.safetensors'], join(dir, 'snapshots', commit, 'model.safetensors'));
  // the weights came through the 302 to the second origin
  assert.ok(hub.requests.some((r) => r.host === 'cdn' && r.path === `/${encodeURIComponent(repo)}/${sha256(weights)}`));
  await sameNumbers(got.files, single.files);

  // fetched again: from the cache, not a single request
  const again = await lab.fetchCheckpoint(repo, { fetch: refused });
  assert.equal(again.fetched, false);
  assert.equal(again.commit, commit);
  assert.equal(again.bytes, total);
  await sameNumbers(again.files, single.files);
});

test('a sharded model: the index, then every shard it names', async () => {
  const got = await lab.fetchCheckpoint('toy/llama-sharded');
  assert.deepEqual(Object.keys(got.files), [
    'config.json',
    'model.safetensors.index.json',
    ...Object.keys(sharded.files)
      .filter((n) => n.endsWith('.safetensors'))
      .sort(),
  ]);
  await sameNumbers(got.files, sharded.files);
});

test('a model huggingface_hub cached opens with the network refused', async () => {
  const cache = mkdtempSync(join(tmpdir(), 'rl-hfcache-'));
  try {
    const commit = 'c0ffee'.padEnd(40, '0');
    const dir = join(cache, 'models--Qwen--Tiny');
    mkdirSync(join(dir, 'blobs'), { recursive: true });
    mkdirSync(join(dir, 'snapshots', commit), { recursive: true });
    mkdirSync(join(dir, 'refs'));
    writeFileSync(join(dir, 'refs', 'main'), commit);
    for (const [name, content] of Object.entries(single.files)) {
      const key = sha256(Buffer.from(content));
      writeFileSync(join(dir, 'blobs', key), content);
      symlinkSync(join('..', '..', 'blobs', key), join(dir, 'snapshots', commit, name));
    }
    const got = await lab.fetchCheckpoint('Qwen/Tiny', { cacheDir: cache, fetch: refused });
    assert.equal(got.commit, commit);
    assert.equal(got.fetched, false);
    await sameNumbers(got.files, single.files);
    // a revision named by its commit reads the snapshot directly
    assert.equal(
      (await lab.fetchCheckpoint('Qwen/Tiny', { cacheDir: cache, revision: commit, fetch: refused })).commit,
      commit,
    );
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

test('a connection dropped mid-file resumes with a Range request and the hash matches', async () => {
  const repo = 'toy/dropped';
  const before = Buffer.byteLength(single.files['config.json']);
  // the connection drops once the client has stored every byte sent before the cut
  const dropAtCut = (p) => p.loaded === before + CUT && hub.dropCut(repo);
  const got = await lab.fetchCheckpoint(repo, { onProgress: dropAtCut });
  const ranges = hub.requests.filter(
    (r) => r.host === 'cdn' && r.path === `/${encodeURIComponent(repo)}/${sha256(weights)}`,
  );
  assert.deepEqual(
    ranges.map((r) => r.range),
    [undefined, `bytes=${CUT}-`],
  );
  assert.deepEqual(readFileSync(got.files['model.safetensors']), Buffer.from(weights));
  assert.ok(!existsSync(join(modelDir(repo), 'blobs', `${sha256(weights)}.incomplete`)));
});

test('a cancel keeps the partial file; the next fetch resumes it', async () => {
  const repo = 'toy/cancel';
  const controller = new AbortController();
  const before = Buffer.byteLength(single.files['config.json']);
  const stop = (p) => p.loaded > before && controller.abort(); // once weights bytes arrived; the server holds the rest
  await assert.rejects(lab.fetchCheckpoint(repo, { signal: controller.signal, onProgress: stop }), {
    code: 'cancelled',
  });
  const partial = join(modelDir(repo), 'blobs', `${sha256(weights)}.incomplete`);
  const kept = readFileSync(partial).length;
  assert.equal(kept, CUT);
  const seen = hub.requests.length;
  const got = await lab.fetchCheckpoint(repo);
  assert.deepEqual(readFileSync(got.files['model.safetensors']), Buffer.from(weights));
  assert.deepEqual(
    hub.requests
      .slice(seen)
      .filter((r) => r.host === 'cdn')
      .map((r) => r.range),
    [`bytes=${CUT}-`],
  );
});

test('bytes that do not match the listed SHA-256 are refused and deleted', async () => {
  const repo = 'toy/corrupt';
  await assert.rejects(lab.fetchCheckpoint(repo), (error) => {
    assert.equal(error.code, 'hash_mismatch');
    assert.match(error.message, new RegExp(`model\\.safetensors arrived with SHA-256 ${sha256(weights)}`));
    assert.match(error.message, /deleted/);
    return true;
  });
  const blobs = readdirSync(join(modelDir(repo), 'blobs'));
  assert.ok(!blobs.some((name) => name.startsWith(sha256(weights)) || name.endsWith('.incomplete')), blobs.join());
  assert.ok(!existsSync(join(modelDir(repo), 'refs', 'main')));
});

test('each failure has its own code and a message naming what to do', async () => {
  // the Hub answers an anonymous request for a missing repo 401 RepoNotFound: X-Error-Code is read before the status
  await assert.rejects(lab.fetchCheckpoint('toy/nothing-here'), {
    code: 'not_found',
    message: /has no model toy\/nothing-here, or it is private and needs an access token \(401 RepoNotFound\)/,
  });
  await assert.rejects(lab.fetchCheckpoint('toy/nothing-here', { token: TOKEN }), {
    code: 'not_found',
    message: /has no model toy\/nothing-here \(404 RepoNotFound\)/,
  });
  await assert.rejects(lab.fetchCheckpoint('toy/qwen2-tiny', { revision: 'v9', cacheDir: join(home, 'other') }), {
    code: 'not_found',
  });
  await assert.rejects(lab.fetchCheckpoint('toy/gated'), {
    code: 'gated',
    tokenSent: false,
    message: /toy\/gated needs a Hugging Face access token .*401.*give a token \(HF_TOKEN.*download its files yourself/,
  });
  // the listing answered, every file refused: nothing is left in the cache, not even an empty partial file
  assert.ok(!existsSync(modelDir('toy/gated')), 'a refused download leaves no folder');
  const closed = await startFakeHub({});
  const endpoint = closed.endpoint;
  await closed.close();
  await assert.rejects(lab.fetchCheckpoint('toy/x', { endpoint, cacheDir: join(home, 'other') }), {
    code: 'offline',
    message: new RegExp(`127\\.0\\.0\\.1:${new URL(endpoint).port} could not be reached \\(ECONNREFUSED\\)`),
  });
  for (const bad of ['Qwen', 'Qwen/Qwen2.5/extra', '../etc', 'a--b/c', '', 'Qwen/ name'])
    await assert.rejects(lab.fetchCheckpoint(bad === 'Qwen' ? 'Qwen/' : bad), {
      code: 'invalid_input',
      message: /is not a Hugging Face model id; it reads like "Qwen\/Qwen2\.5-0\.5B-Instruct"/,
    });
  await assert.rejects(lab.fetchCheckpoint('a/b', { endpoint: 'ftp://mirror' }), {
    code: 'invalid_input',
    message: /not a host address/,
  });
  await assert.rejects(lab.fetchCheckpoint('a/b', { endpoint: 'hf-mirror.com' }), { code: 'invalid_input' });
});

test('the access token: HF_TOKEN, else the token file huggingface_hub reads; the explicit option first', async () => {
  assert.equal(await hubToken({ HF_TOKEN: ' hf_env ', HF_TOKEN_PATH: '/nowhere' }), 'hf_env');
  const dir = mkdtempSync(join(tmpdir(), 'rl-token-'));
  try {
    writeFileSync(join(dir, 'token'), 'hf_home\n');
    assert.equal(await hubToken({ HF_HOME: dir }), 'hf_home');
    mkdirSync(join(dir, 'huggingface'));
    writeFileSync(join(dir, 'huggingface', 'token'), 'hf_xdg');
    assert.equal(await hubToken({ XDG_CACHE_HOME: dir }), 'hf_xdg');
    writeFileSync(join(dir, 'elsewhere'), 'hf_path');
    assert.equal(await hubToken({ HF_HOME: dir, HF_TOKEN_PATH: join(dir, 'elsewhere') }), 'hf_path');
    assert.equal(await hubToken({ HF_HOME: join(dir, 'none') }), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a gated model with a token: sent to the endpoint, never to the download host it redirects to', async () => {
  const repo = 'toy/gated-token';
  const path = `/${encodeURIComponent(repo)}/${sha256(weights)}`;
  const seen = hub.requests.length;
  process.env.HF_TOKEN = TOKEN;
  let got;
  try {
    got = await lab.fetchCheckpoint(repo);
  } finally {
    delete process.env.HF_TOKEN;
  }
  assert.deepEqual(readFileSync(got.files['model.safetensors']), Buffer.from(weights));
  const mine = hub.requests.slice(seen);
  const toHub = mine.filter((r) => r.host === 'hub');
  const toCdn = mine.filter((r) => r.host === 'cdn' && r.path === path);
  assert.equal(toHub.length, 1 + Object.keys(single.files).length); // the listing, then each file
  for (const r of toHub) assert.equal(r.authorization, `Bearer ${TOKEN}`, r.path);
  assert.equal(toCdn.length, 1);
  assert.equal(toCdn[0].authorization, undefined);

  // the token file as `hf auth login` writes it (HF_HOME/token), into another cache
  const other = join(home, 'token-file');
  writeFileSync(join(home, 'token'), `${TOKEN}\n`);
  try {
    assert.equal((await lab.fetchCheckpoint(repo, { cacheDir: other })).fetched, true);
    // token: false sends none, whatever the environment holds
    await assert.rejects(lab.fetchCheckpoint(repo, { cacheDir: join(home, 'no-token'), token: false }), {
      code: 'gated',
      tokenSent: false,
    });
  } finally {
    rmSync(join(home, 'token'));
  }
  await assert.rejects(lab.fetchCheckpoint(repo, { cacheDir: join(home, 'wrong'), token: 'hf_not_the_right_one' }), {
    code: 'gated',
    tokenSent: true,
    message: /toy\/gated-token refused the access token given \(403 GatedRepo\)/,
  });
  assert.ok(!existsSync(join(home, 'wrong')));
  await assert.rejects(lab.fetchCheckpoint(repo, { token: 'has a space' }), { code: 'invalid_input' });
  // no message carries the token
  await assert.rejects(lab.fetchCheckpoint('toy/gated', { token: TOKEN, cacheDir: join(home, 'g') }), (error) => {
    assert.equal(error.code, 'gated');
    assert.ok(!error.message.includes(TOKEN));
    return true;
  });
});

test('429 Too Many Requests: retried after Retry-After (or 1 s, 2 s, ... without it), bounded', async () => {
  for (const repo of ['toy/throttled', 'toy/throttled-plain']) {
    const seen = hub.requests.length;
    const got = await lab.fetchCheckpoint(repo);
    assert.deepEqual(readFileSync(got.files['model.safetensors']), Buffer.from(weights));
    const configs = hub.requests.slice(seen).filter((r) => r.path.endsWith('/config.json'));
    assert.equal(configs.length, repo === 'toy/throttled' ? 3 : 2, repo); // the 429s, then the answer
  }
  // a wait longer than a reader should sit through is reported at once, and nothing is left behind
  await assert.rejects(lab.fetchCheckpoint('toy/throttled-long'), {
    code: 'rate_limited',
    message: /answered 429 \(too many requests\) for config\.json, asking to wait 3600 s; fetch again later/,
  });
  assert.ok(!existsSync(modelDir('toy/throttled-long')));
  // a host that keeps refusing: five retries, then the error
  const seen = hub.requests.length;
  await assert.rejects(lab.fetchCheckpoint('toy/throttled-always'), {
    code: 'rate_limited',
    message: /answered 429 \(too many requests\) for config\.json 6 times in a row/,
  });
  assert.equal(hub.requests.slice(seen).filter((r) => r.path.endsWith('/config.json')).length, 6);
  assert.ok(!existsSync(modelDir('toy/throttled-always')));
});
