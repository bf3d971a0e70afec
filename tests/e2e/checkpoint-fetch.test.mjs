// The probe's "fetch a model" panel in Chromium against the mock Hub (tests/fixtures/fake-hub.mjs: the Hub on one
// loopback origin, its download "CDN" on a second, which the Hub 302-redirects weight files to; CORS, ETag,
// X-Repo-Commit, 206 ranges). The page is served with the lab's policy plus those two origins (serve.mjs's
// connectSrc), nothing else, so a third origin stands for a download host the page's policy does not allow.
//   - a custom host and a toy repo: progress, a cancel, the resume by Range from where it stopped, a connection
//     cut mid-file resumed again, the SHA-256 checked; the probe draws the toy's numbers (lab.openCheckpoint in node
//     on the same files); persist() asked; the stored list; a reload opens the model from the Origin Private File
//     System with no request to the Hub; delete empties the list and removes its folder
//   - a reload in the middle of a download: the next fetch resumes from the bytes written before it
//   - refusals, each with its message: a hash mismatch (the file deleted), a redirect to a host the page's policy
//     refuses (named), 404, 401, and a model larger than what navigator.storage.estimate() leaves (no download)
//   - a sharded model (an index and two shards, no tokenizer.json): every file stored, the probe's numbers
//   - a gated model with the access token field: the token to the Hub's origin only, in no address or storage; a
//     429 with Retry-After retried
//   node --test --test-reporter=spec tests/e2e/checkpoint-fetch.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { load } from '../../dist/lib/residual-lab.js';
import { toyWindow } from '../../web/components/shared/toys.js';
import { CHAPTER_MODEL } from '../../web/lib/hub/hub-hosts.js';
import { stringsOf } from '../../web/languages.js';
import { startFakeHub } from '../fixtures/fake-hub.mjs';
import { makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { models, record, toyFiles } from '../fixtures/toys.mjs';
import { startLab } from './harness.mjs';
import {
  drawnReadouts,
  expectedReadouts,
  openFetchPanel,
  probeDone,
  probeSettled,
  vocabNames,
} from './probe-helpers.mjs';
import { EN, eventually, openReady, textOf } from './widget-helpers.mjs';

const s = stringsOf('en', 'rl-checkpoint-probe');
const [llama, olmo] = record.toys;
// byte offsets inside the toys' weights files (about 416 kB each), the reload's past the 256 kB the store commits
// before it closes a partial file
const HOLD = 100000; // lab/toy-llama's weights: the first response stops here (then the reader cancels)
const CUT = 200000; // and the resumed one drops the connection here
const RELOAD_HOLD = 350000; // lab/toy-olmo2's weights: the first response stops here, then the page reloads
const mb = (bytes) => (bytes / 1e6).toFixed(1).replace('.', '\\.'); // as the panel writes it, for a RegExp
// a sharded checkpoint without tokenizer.json: an index and two shards
const sharded = makeCheckpoint({ family: 'llama', dtype: 'F32', sharded: true, seed: 4 }).files;
const TOKEN = 'hf_stand1nT0kenForTheFakeHubOnly0000';
const sizeOf = (files) => Object.values(files).reduce((sum, bytes) => sum + bytes.length, 0);

let lab, api, hub, elsewhere;
const elsewhereRequests = [];
before(async () => {
  // a download host the page's policy does not allow: the Hub redirects lab/elsewhere's weights here
  elsewhere = createServer((req, res) => {
    elsewhereRequests.push(req.url);
    res.writeHead(200, { 'access-control-allow-origin': '*' });
    res.end();
  });
  await new Promise((ok) => elsewhere.listen(0, '127.0.0.1', ok));
  hub = await startFakeHub({
    'lab/toy-llama': {
      files: toyFiles(llama),
      hold: { 'model.safetensors': HOLD },
      cut: { 'model.safetensors': CUT },
      cutByCall: true,
    },
    'lab/toy-olmo2': { files: toyFiles(olmo), hold: { 'model.safetensors': RELOAD_HOLD } },
    'lab/corrupt': { files: toyFiles(llama), corrupt: 'model.safetensors' },
    'lab/gated': { files: toyFiles(llama), gated: true },
    'lab/elsewhere': { files: toyFiles(llama), redirectTo: `http://127.0.0.1:${elsewhere.address().port}` },
    'lab/roomy': { files: toyFiles(olmo) },
    'lab/sharded': { files: sharded },
    'lab/gated-token': { files: toyFiles(llama), gated: true, token: TOKEN },
    'lab/throttled': { files: toyFiles(llama), throttle: { times: 1, retryAfter: 1 } },
  });
  [lab, api] = await Promise.all([startLab({ connectSrc: [hub.endpoint, hub.cdnOrigin] }), load()]);
});
after(async () => {
  await lab?.close();
  await hub?.close();
  elsewhere?.closeAllConnections();
  await new Promise((ok) => (elsewhere ? elsewhere.close(ok) : ok()));
});

const toyNames = (toy) => vocabNames(readFileSync(`${models}${toy.name}/tokenizer.json`, 'utf8'));

const panel = (widget) => widget.locator('.fetch-panel');
const panelStatus = (widget) => textOf(widget.locator('[data-fetch-status]'));
const panelError = (widget) => textOf(widget.locator('[data-fetch-error]'));

/** The chapter page with the probe's toy run and its fetch panel open, the mock Hub chosen as the host. */
async function openProbe(query = '', options = {}) {
  const view = await openReady(lab, `${EN}${query}`, options);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  await openFetchPanel(widget, hub.endpoint);
  return { view, widget };
}

/** Clicks fetch for `repo` (from the repo field, or the stored list's Open button) and waits for its outcome. */
async function fetchModel(widget, repo, { from = 'field' } = {}) {
  if (from === 'field') {
    await widget.locator('#field-repo').fill(repo);
    await widget.locator('[data-fetch-repo]').click();
  } else {
    await widget.locator(`li[data-repo="${repo}"] button`).first().click();
  }
  return outcome(widget, repo);
}
const outcome = async (widget, repo) => {
  await eventually(
    async () => [await panelStatus(widget), await panelError(widget)],
    ([status, error]) => error !== '' || status.startsWith(`${repo} (commit `),
    `the fetch of ${repo} ends`,
    30000,
  );
  return { status: await panelStatus(widget), error: await panelError(widget) };
};

/** The names in an OPFS folder (path: folder names from the root), or null when it is not there. */
const opfs = (page, path) =>
  page.evaluate(async (path) => {
    let dir = await navigator.storage.getDirectory();
    try {
      for (const name of path) dir = await dir.getDirectoryHandle(name);
    } catch {
      return null;
    }
    const names = [];
    for await (const name of dir.keys()) names.push(name);
    return names.sort();
  }, path);

/** The weights' GET requests to the download origin for `repo`, as their Range headers. */
const weightRanges = (repo) => {
  const sha = hub.siblingsOf(repo).find((f) => f.rfilename === 'model.safetensors').lfs.sha256;
  return hub.requests.filter((r) => r.host === 'cdn' && r.method === 'GET' && r.path.endsWith(sha)).map((r) => r.range);
};

/**
 * Fails on the page's problems other than those the mock Hub's answers cause on purpose: its 404 and 401, the
 * cancelled, cut and refused requests to its origins, the console's lines about them.
 */
function assertOnlyHubProblems(view) {
  const hubUrl = new RegExp(`^(HTTP 40[134]|HTTP 429|request failed): (${hub.endpoint}|${hub.cdnOrigin})/`);
  const refused = `127.0.0.1:${elsewhere.address().port}/`; // a URL there, not the policy's text, which lacks it
  const others = view.problems.filter(
    (p) =>
      !hubUrl.test(p) &&
      !p.includes(refused) &&
      !/^console error: Failed to load resource: (the server responded with a status of (40[134]|429)|net::ERR_)/.test(
        p,
      ),
  );
  assert.deepEqual(others, [], 'no other problem');
}

// An init script: counts navigator.storage.persist() calls in window.persistAsked.
function countPersist() {
  const persist = StorageManager.prototype.persist;
  window.persistAsked = 0;
  StorageManager.prototype.persist = function countedPersist() {
    window.persistAsked += 1;
    return persist.call(this);
  };
}

test('a toy fetched from a custom host: progress, cancel and resume, a cut connection, its numbers, stored, reopened with no request, deleted', async () => {
  const repo = 'lab/toy-llama';
  const { view, widget } = await openProbe(`?model=${repo}`, { initScript: countPersist });
  const { page } = view;
  // ?model= fills the field and opens the panel; nothing is fetched before a click
  assert.equal(await widget.locator('#field-repo').inputValue(), repo);
  assert.equal(hub.requests.length, 0, 'no request before the click');
  // the chapter's model, its size shown before anything starts: 988,097,824 + 7,031,645 + 659 bytes
  assert.equal(CHAPTER_MODEL.bytes, 995130128);
  assert.equal(await textOf(widget.locator('[data-fetch-chapter]')), s.fetchChapter(CHAPTER_MODEL.repo, '1.00'));
  await eventually(
    () => textOf(widget.locator('[data-stored]')),
    (text) => text === s.storedNone,
    'no model stored yet',
  );

  const files = toyFiles(llama);
  const small = files['config.json'].length + files['tokenizer.json'].length;
  const total = sizeOf(files);
  await widget.locator('[data-fetch-repo]').click();
  // the first response of the weights stops at HOLD bytes: the progress bar and line say how far it got
  const progress = panel(widget).locator('progress');
  await eventually(
    () => progress.evaluate((bar) => [bar.hidden, bar.value, bar.max]),
    ([hidden, value, max]) => !hidden && value === small + HOLD && max === total,
    'the progress stops where the Hub holds the weights',
    30000,
  );
  assert.match(await panelStatus(widget), new RegExp(`^${mb(small + HOLD)} of ${mb(total)} MB`));
  // one fetch at a time: the buttons that start one wait for it
  assert.equal(await widget.locator('[data-fetch-repo]').isDisabled(), true);
  assert.equal(await widget.locator('[data-fetch-chapter]').isDisabled(), true);
  await panel(widget).getByRole('button', { name: s.cancel }).click();
  await eventually(
    () => panelError(widget),
    (text) => text === s.fetchErrors.cancelled(),
    'the cancel is said',
  );
  assert.equal(await progress.isHidden(), true);
  assert.equal(await widget.locator('[data-fetch-repo]').isDisabled(), false);
  // fetch again: it resumes from HOLD; once the page has stored the bytes up to CUT the connection drops, it resumes
  // from CUT, and the hash matches
  await widget.locator('[data-fetch-repo]').click();
  await eventually(
    () => progress.evaluate((bar) => bar.value),
    (value) => value === small + CUT,
    'the resumed response arrives up to where the connection will drop',
    30000,
  );
  assert.equal(hub.dropCut(repo), 1, 'one connection dropped');
  const { status, error } = await outcome(widget, repo);
  assert.equal(error, '');
  const commit = hub.commitOf(repo).slice(0, 10);
  assert.match(
    status,
    new RegExp(`^lab/toy-llama \\(commit ${commit}, ${mb(total)} MB\\) fetched and checked in \\d+\\.\\d s\\.$`),
  );
  const ranges = weightRanges(repo);
  assert.equal(ranges.length, 3, `three requests of the weights: ${ranges}`);
  assert.equal(ranges[0], undefined, 'the first from the start');
  assert.equal(ranges[1], `bytes=${HOLD}-`, 'the second from where the cancel left it');
  assert.equal(ranges[2], `bytes=${CUT}-`, 'the third from where the connection dropped');
  assert.ok((await page.evaluate(() => window.persistAsked)) >= 1, 'persistent storage asked for');

  // the fetched files open in the probe on a prompt their character vocabulary reads (not the chapter's): the toys'
  // window, drawn with the numbers lab.openCheckpoint gives in node for the same files
  await eventually(
    () => textOf(widget.locator('[data-source]')),
    (text) => text.includes('model.safetensors'),
    'the fetched files are the source',
  );
  await probeDone(widget, 'the fetched model is run on a prompt it reads');
  assert.equal(await widget.getByLabel('Prompt').inputValue(), toyWindow(llama));
  assert.equal(await textOf(widget.locator('[data-prompt-note]')), s.vocabularyPromptNote(s.chapterPrompt, 38, true));
  const want = await expectedReadouts(api, toyFiles(llama), toyWindow(llama), toyNames(llama));
  assert.deepEqual(await drawnReadouts(widget), want, 'the fetched toy draws its numbers');
  const listed = widget.locator(`li[data-repo="${repo}"]`);
  assert.match(
    await textOf(listed),
    new RegExp(`^lab/toy-llama \\(main, commit ${commit}\\), ${mb(total)} MB, \\d{4}-\\d\\d-\\d\\d Open Delete$`),
  );

  // a reload: the stored model opens from the browser's storage, with no request to the Hub
  const requests = hub.requests.length;
  await page.reload();
  await page.waitForFunction(() => document.querySelector('rl-checkpoint-probe')?.hasAttribute('data-ready'));
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run after the reload');
  await eventually(
    () => widget.locator(`li[data-repo="${repo}"]`).count(),
    (n) => n === 1,
    'the stored model is listed after the reload',
  );
  const reopened = await fetchModel(widget, repo, { from: 'list' });
  assert.equal(reopened.error, '');
  assert.equal(reopened.status, s.fetchStored(repo, commit));
  await eventually(
    () => textOf(widget.locator('[data-source]')),
    (text) => text.includes('model.safetensors'),
    'the stored files are the source',
  );
  await probeDone(widget, 'the stored model is run on its default prompt again');
  assert.deepEqual(await drawnReadouts(widget), want, 'the stored toy draws the same numbers');
  assert.equal(hub.requests.length, requests, 'no request to the Hub after the reload');

  // delete: the list empties, the model's folder is gone and the storage it took is free again
  const usage = () => page.evaluate(async () => (await navigator.storage.estimate()).usage);
  const before = await usage();
  assert.ok((await opfs(page, ['residual-lab-models'])).includes('models--lab--toy-llama'));
  await widget.locator(`button[data-delete="${repo}"]`).click();
  await eventually(
    () => textOf(widget.locator('[data-stored]')),
    (text) => text === s.storedNone,
    'the list empties',
  );
  assert.deepEqual(await opfs(page, ['residual-lab-models']), [], 'the folder is gone');
  assert.ok((await usage()) < before, 'the storage estimate goes down');
  assertOnlyHubProblems(view);
  await view.close();
});

test('a reload in the middle of a download: the next fetch resumes from the bytes written before it', async () => {
  const repo = 'lab/toy-olmo2';
  const { view, widget } = await openProbe();
  const { page } = view;
  const files = toyFiles(olmo);
  const small = files['config.json'].length + files['tokenizer.json'].length;
  await widget.locator('#field-repo').fill(repo);
  await widget.locator('[data-fetch-repo]').click();
  await eventually(
    () =>
      panel(widget)
        .locator('progress')
        .evaluate((bar) => bar.value),
    (value) => value === small + RELOAD_HOLD,
    'the download stops where the Hub holds the weights',
    30000,
  );
  await page.reload();
  await page.waitForFunction(() => document.querySelector('rl-checkpoint-probe')?.hasAttribute('data-ready'));
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run after the reload');
  await panel(widget).locator('summary').click(); // closed after the reload (the address offers no model)
  await eventually(
    () => textOf(widget.locator('[data-stored]')),
    (text) => text === s.storedNone,
    'a partial model is not listed',
  );
  await widget.locator('#field-host').selectOption('custom');
  await widget.locator('#field-endpoint').fill(hub.endpoint);
  const { status, error } = await fetchModel(widget, repo);
  assert.equal(error, '');
  assert.match(status, /fetched and checked/);
  const ranges = weightRanges(repo);
  assert.equal(ranges.length, 2, `two requests of the weights: ${ranges}`);
  const resumedAt = Number(/^bytes=(\d+)-$/.exec(ranges[1])?.[1]);
  assert.ok(resumedAt > 0 && resumedAt <= RELOAD_HOLD, `resumed from the bytes kept over the reload: ${ranges[1]}`);
  // it opens on a prompt its vocabulary, read from the fetched tokenizer.json, reads: the toys' window
  await eventually(
    () => textOf(widget.locator('[data-source]')),
    (text) => text.includes('model.safetensors'),
    'the fetched files are the source',
  );
  assert.equal(await probeSettled(widget, 'the fetched model is run'), 'done');
  assert.equal(await widget.getByLabel('Prompt').inputValue(), toyWindow(olmo));
  assert.equal(await textOf(widget.locator('#field-prompt-error')), '');
  assertOnlyHubProblems(view);
  await view.close();
});

test("refusals in the probe: a hash mismatch (deleted), a redirect the page's policy refuses (named), 404, 401", async () => {
  const { view, widget } = await openProbe();
  const { page } = view;

  const corrupt = await fetchModel(widget, 'lab/corrupt');
  assert.equal(corrupt.error, s.fetchErrors.hash_mismatch());
  assert.equal(corrupt.status, '');
  const sha = hub.siblingsOf('lab/corrupt').find((f) => f.rfilename === 'model.safetensors').lfs.sha256;
  const blobs = await opfs(page, ['residual-lab-models', 'models--lab--corrupt', 'blobs']);
  assert.equal(blobs.length, 2, `config.json and tokenizer.json stay: ${blobs}`);
  assert.ok(!blobs.some((name) => name.startsWith(sha)), 'the weights that did not match are deleted');
  assert.equal(await textOf(widget.locator('[data-stored]')), s.storedNone, 'and the model is not listed');

  const blocked = await fetchModel(widget, 'lab/elsewhere');
  // the browser names the refused redirect by the Hub's address, which answered before: the message says so
  assert.equal(
    blocked.error,
    s.fetchErrors.blocked({ reason: { kind: 'csp_redirect', value: new URL(hub.endpoint).host } }),
  );
  assert.equal(elsewhereRequests.length, 0, 'the refused host got no request');

  const missing = await fetchModel(widget, 'lab/missing');
  assert.equal(missing.error, s.fetchErrors.not_found());
  const gated = await fetchModel(widget, 'lab/gated');
  assert.equal(gated.error, s.fetchErrors.gated({ tokenSent: false }));
  // the listing answered, every file was refused: nothing stored, not even an empty partial file
  assert.equal(await opfs(page, ['residual-lab-models', 'models--lab--gated']), null);

  // the probe's own toy is still drawn, and nothing else went wrong
  assert.equal(await widget.getAttribute('data-status'), 'done');
  assertOnlyHubProblems(view);
  await view.close();
});

// An init script: a browser that grants the page 100 kB, 20 kB of it used.
function smallQuota() {
  StorageManager.prototype.estimate = async () => ({ quota: 100000, usage: 20000 });
}

test('a model larger than the storage the browser grants is refused before its first byte', async () => {
  const repo = 'lab/roomy';
  const { view, widget } = await openProbe('', { initScript: smallQuota });
  const { error } = await fetchModel(widget, repo);
  assert.equal(
    error,
    s.fetchErrors.storage_full({ reason: { kind: 'quota', value: sizeOf(toyFiles(olmo)), limit: 80000 } }),
  );
  const asked = hub.requests.filter((r) => r.path.includes('lab%2Froomy') || r.path.includes('lab/roomy'));
  assert.deepEqual(
    asked.map((r) => r.path),
    ['/api/models/lab/roomy/revision/main?blobs=true'],
    'only the file list was asked for',
  );
  assertOnlyHubProblems(view);
  await view.close();
});

test('a sharded model: the index and every shard stored, opened in the probe with the numbers node gives', async () => {
  const repo = 'lab/sharded';
  const { view, widget } = await openProbe();
  const { status, error } = await fetchModel(widget, repo);
  assert.equal(error, '');
  assert.match(status, /fetched and checked/);
  const shards = Object.keys(sharded).filter((name) => /^model-.*\.safetensors$/.test(name));
  assert.equal(shards.length, 2);
  for (const shard of shards) {
    const sha = hub.siblingsOf(repo).find((f) => f.rfilename === shard).lfs.sha256;
    assert.ok(
      hub.requests.some((r) => r.host === 'cdn' && r.path.endsWith(sha)),
      `${shard} came through the redirect`,
    );
  }
  const blobs = await opfs(view.page, ['residual-lab-models', 'models--lab--sharded', 'blobs']);
  assert.equal(blobs.length, Object.keys(sharded).length, `every file stored: ${blobs}`);
  await eventually(
    () => textOf(widget.locator('[data-source]')),
    (text) => shards.every((shard) => text.includes(shard)) && text.includes('model.safetensors.index.json'),
    'the index and the shards are the source',
  );
  await probeDone(widget, 'the sharded model is run on its first ids');
  const ids = [0, 1, 2, 3, 4, 5, 6, 7];
  assert.equal(await widget.getByLabel('Prompt').inputValue(), ids.join(', '));
  const files = Object.fromEntries(
    Object.entries(sharded).map(([name, content]) => [
      name,
      typeof content === 'string' ? content : new Uint8Array(content),
    ]),
  );
  assert.deepEqual(await drawnReadouts(widget), await expectedReadouts(api, files, ids));
  assertOnlyHubProblems(view);
  await view.close();
});

test('a gated model with the token field: sent to the Hub only, kept nowhere; a 429 is retried after Retry-After', async () => {
  const { view, widget } = await openProbe();
  const { page } = view;
  const seen = hub.requests.length;
  await widget.locator('#field-token').fill(TOKEN);
  const got = await fetchModel(widget, 'lab/gated-token');
  assert.equal(got.error, '');
  assert.match(got.status, /fetched and checked/);
  const mine = hub.requests.slice(seen).filter((r) => r.method !== 'OPTIONS');
  const toHub = mine.filter((r) => r.host === 'hub');
  const toCdn = mine.filter((r) => r.host === 'cdn');
  assert.ok(toHub.length >= 3 && toCdn.length >= 1, JSON.stringify(mine));
  for (const r of toHub) assert.equal(r.authorization, `Bearer ${TOKEN}`, r.path);
  for (const r of toCdn) assert.equal(r.authorization, undefined, `the download host got no token: ${r.path}`);
  const kept = await page.evaluate(() => [
    location.href,
    JSON.stringify({ ...localStorage }),
    JSON.stringify({ ...sessionStorage }),
    document.cookie,
  ]);
  for (const place of kept) assert.ok(!place.includes(TOKEN), `the token is not kept: ${place}`);

  // a wrong token: the Hub's refusal, said as such
  await widget.locator('#field-token').fill('hf_not_the_right_one');
  const wrong = await fetchModel(widget, 'lab/gated');
  assert.equal(wrong.error, s.fetchErrors.gated({ tokenSent: true }));

  await widget.locator('#field-token').fill('');
  const before = hub.requests.length;
  const throttled = await fetchModel(widget, 'lab/throttled');
  assert.equal(throttled.error, '');
  assert.match(throttled.status, /fetched and checked/);
  const configs = hub.requests.slice(before).filter((r) => r.method === 'GET' && r.path.endsWith('/config.json'));
  assert.equal(configs.length, 2, 'the 429, then the answer');
  assertOnlyHubProblems(view);
  await view.close();
});
