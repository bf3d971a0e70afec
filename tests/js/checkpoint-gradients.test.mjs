// ckpt.gradients against the float64 PyTorch autograd reference (tests/fixtures/checkpoints/make_gradients.py,
// which checks itself by finite differences and writes gradients.json): every field within 1e-4 (assertGradients
// says relative to what), on the seeded checkpoints of every family and dtype (untied head for both losses, tied head
// for the default one) and on both shipped toys; the same numbers through the lab worker; the named errors.
//   node --test tests/js/checkpoint-gradients.test.mjs     after `node scripts/build.mjs`
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from '../../dist/lib/residual-lab.js';
import { createLabWorker } from '../../dist/lib/worker-client.js';
import { makeCheckpoint, tensorShapes } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { referenceForward } from '../fixtures/checkpoints/reference.mjs';
import { assertRelativelyClose } from '../fixtures/float64.mjs';
import { models, record, toyFiles } from '../fixtures/toys.mjs';
import { toyWindow } from '../../web/components/shared/toys.js';

const REFERENCE = JSON.parse(readFileSync(new URL('../fixtures/checkpoints/gradients.json', import.meta.url), 'utf8'));
const TOL = 1e-4;

let lab;
before(async () => {
  lab = await load();
});

const options = (target) => (target ? { target } : {});
const caseName = (c) => `${c.family} ${c.dtype} ${c.tied ? 'tied' : 'untied'} ${c.target ? 'target' : 'next'}`;

/**
 * Every field of `got` within TOL of `want`: each per-position array relative to its own largest value, each gain
 * and parameter norm relative to itself. That implies the target's bound (relative to the largest of each kind) and
 * also holds the small values, such as the branch-only gradient far below the top; measured: 3e-6 at the most.
 */
function assertGradients(got, want, what, paramNames) {
  assertRelativelyClose([got.loss], [want.loss], `${what} loss`, TOL);
  for (const field of ['streamGrads', 'midGrads', 'branchOnly']) {
    assert.equal(got[field].length, want[field].length, `${what} ${field}: one array per point of the stream`);
    got[field].forEach((a, i) => {
      assert.ok(a instanceof Float32Array, `${what} ${field}[${i}] is a Float32Array`);
      assertRelativelyClose(a, want[field][i], `${what} ${field}[${i}]`, TOL);
    });
  }
  assert.equal(got.branchGains.length, want.branchGains.length, `${what} branchGains: one per layer`);
  got.branchGains.forEach((g, l) => {
    for (const part of ['attn', 'mlp'])
      assertRelativelyClose([g[part]], [want.branchGains[l][part]], `${what} branchGains[${l}].${part}`, TOL);
  });
  const wanted = Array.isArray(want.paramGradNorms)
    ? Object.fromEntries(paramNames.map((name, i) => [name, want.paramGradNorms[i]]))
    : want.paramGradNorms;
  assert.deepEqual(Object.keys(got.paramGradNorms).sort(), Object.keys(wanted).sort(), `${what} paramGradNorms names`);
  for (const [name, norm] of Object.entries(wanted))
    assertRelativelyClose([got.paramGradNorms[name]], [norm], `${what} paramGradNorms ${name}`, TOL);
}

describe('every family and dtype matches the float64 autograd reference', () => {
  const families = [...new Set(REFERENCE.checkpoints.map((c) => c.family))];
  for (const family of families)
    test(family, async () => {
      for (const c of REFERENCE.checkpoints.filter((x) => x.family === family)) {
        const fixture = makeCheckpoint({ family, dtype: c.dtype, tied: c.tied });
        const ckpt = await lab.openCheckpoint(fixture.files);
        try {
          const got = await ckpt.gradients(REFERENCE.ids, options(c.target));
          assertGradients(got, c, caseName(c), [...tensorShapes(family, fixture.config).keys()]);
        } finally {
          ckpt.dispose();
        }
      }
    });
});

// Split over two workers (each its rows of every projection, files read where they lie), the forward and the
// backward: the reference's numbers, and one worker's up to the order of the workers' sum.
describe('split over two workers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rl-gradients-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // the sandwich with soft-caps, OLMo 2's placement and whole-projection q/k norm, Qwen2's biases, Qwen3's per head
  for (const family of ['gemma2', 'olmo2', 'qwen2', 'qwen3'])
    test(family, async () => {
      for (const c of REFERENCE.checkpoints.filter((x) => x.family === family && x.dtype === 'BF16')) {
        const fixture = makeCheckpoint({ family, dtype: c.dtype, tied: c.tied });
        const files = { ...fixture.files };
        for (const name of Object.keys(files).filter((n) => n.endsWith('.safetensors'))) {
          files[name] = join(dir, `${family}-${c.tied}-${name}`);
          writeFileSync(files[name], fixture.files[name]);
        }
        const runs = [];
        for (const workers of [1, 2]) {
          const ckpt = await lab.openCheckpoint(files, { workers });
          try {
            runs.push(await ckpt.gradients(REFERENCE.ids, options(c.target)));
          } finally {
            ckpt.dispose();
          }
        }
        const [one, two] = runs;
        assert.equal(two.reads.workerHeapBytes.length, 2, `${caseName(c)}: the forward ran in two workers`);
        assertGradients(two, c, `${caseName(c)} 2 workers`, [...tensorShapes(family, fixture.config).keys()]);
        assertGradients(two, one, `${caseName(c)} 2 workers against 1`);
      }
    });
});

test('the autograd reference computes the same loss as the JS float64 forward (reference.mjs)', () => {
  const logSoftmax = (row, t) => {
    const max = Math.max(...row);
    return row[t] - max - Math.log(row.reduce((s, v) => s + Math.exp(v - max), 0));
  };
  for (const c of REFERENCE.checkpoints) {
    const { config, tensors } = makeCheckpoint({ family: c.family, dtype: c.dtype, tied: c.tied });
    const V = (config.text_config ?? config).vocab_size;
    const { logits } = referenceForward(c.family, config, tensors, REFERENCE.ids);
    const row = (t) => logits.subarray(t * V, (t + 1) * V);
    const ids = REFERENCE.ids;
    const loss = c.target
      ? -logSoftmax(row(c.target.position), c.target.token)
      : -ids.slice(1).reduce((s, id, t) => s + logSoftmax(row(t), id), 0) / (ids.length - 1);
    assertRelativelyClose([loss], [c.loss], caseName(c), 1e-6); // the fixture keeps 7 digits
  }
});

describe('the shipped toys match the reference', () => {
  for (const toy of record.toys) {
    const cases = REFERENCE.toys.filter((c) => c.name === toy.name);
    test(toy.name, async () => {
      assert.equal(cases.length, 2, `${toy.name}: the default loss and a target`);
      const sha = createHash('sha256')
        .update(readFileSync(`${models}${toy.name}/model.safetensors`))
        .digest('hex');
      assert.equal(sha, cases[0].sha256, `${toy.name} was retrained: run tests/fixtures/checkpoints/make_gradients.py`);
      const ckpt = await lab.openCheckpoint(toyFiles(toy));
      try {
        assert.deepEqual(cases[0].ids, ckpt.tokenize(toyWindow(toy)), `${toy.name}: the probe's window`);
        for (const c of cases) {
          const got = await ckpt.gradients(c.ids, options(c.target));
          assertGradients(got, c, `${toy.name} ${c.target ? 'target' : 'next'}`);
        }
      } finally {
        ckpt.dispose();
      }
    });
  }
});

describe('through the lab worker', () => {
  const worker = createLabWorker();
  after(() => worker.terminate());
  test('the toy Llama: the same numbers as in this thread, with progress', async () => {
    const toy = record.toys[0];
    const [c] = REFERENCE.toys.filter((x) => x.name === toy.name && x.target === null);
    const ckpt = await worker.call('openCheckpoint', [toyFiles(toy)]);
    try {
      const seen = [];
      const got = await ckpt.gradients(c.ids, { onProgress: (p) => seen.push(p) });
      assertGradients(got, c, `${toy.name} in the worker`);
      assert.ok(seen.length > 0, 'progress reached the page');
    } finally {
      await ckpt.dispose();
    }
  });
});

describe('bad requests get named errors', () => {
  let ckpt;
  before(async () => {
    ckpt = await lab.openCheckpoint(makeCheckpoint({ family: 'llama' }).files);
  });
  after(() => ckpt.dispose());
  const rejects = (call, pattern, what) =>
    assert.rejects(call, (e) => {
      assert.equal(e.name, 'ResidualLabError', `${what}: ${e.message}`);
      assert.equal(e.code, 'invalid_input', `${what}: ${e.message}`);
      assert.match(e.message, pattern, what);
      return true;
    });
  test('one token has no next token to predict', () =>
    rejects(() => ckpt.gradients([3]), /next/i, 'one token, next-token loss'));
  test('one token with a target is a loss', async () => {
    const got = await ckpt.gradients([3], { target: { position: 0, token: 5 } });
    assert.ok(Number.isFinite(got.loss) && got.loss > 0);
  });
  test('a target token out of the vocabulary', () =>
    rejects(() => ckpt.gradients([3, 4, 5], { target: { position: 1, token: 48 } }), /token/, 'token 48 of 48'));
  test('a target position past the input', () =>
    rejects(() => ckpt.gradients([3, 4, 5], { target: { position: 3, token: 1 } }), /position/, 'position 3 of 3'));
  test('an input token out of the vocabulary', () => rejects(() => ckpt.gradients([3, 48, 5]), /token/, 'input id 48'));
  test('an unknown option key is named', () =>
    rejects(() => ckpt.gradients([3, 4, 5], { traget: { position: 1, token: 1 } }), /traget/, 'unknown key'));
  test('a target with an unknown key is named', () =>
    rejects(
      () => ckpt.gradients([3, 4, 5], { target: { position: 1, token: 1, pos: 2 } }),
      /target\.pos\b/,
      'target key',
    ));
  test('a run over the memory limit is refused before it starts', () =>
    assert.rejects(
      () => ckpt.gradients(REFERENCE.ids, { memoryLimit: 1024 }),
      (e) => e.name === 'ResidualLabError' && e.code === 'out_of_memory' && /memory limit/.test(e.message),
    ));
  test('after a bad request the checkpoint still answers', async () => {
    await ckpt.gradients([3, 48, 5]).catch(() => {});
    const got = await ckpt.gradients(REFERENCE.ids);
    const [want] = REFERENCE.checkpoints.filter(
      (c) => c.family === 'llama' && c.dtype === 'F32' && !c.tied && !c.target,
    );
    assertRelativelyClose([got.loss], [want.loss], 'the loss after a bad request', TOL);
  });
});
