// The chapter's experiments on a checkpoint (web/lib/checkpoint/claims.js: no final norm, increments, eps margins,
// the layer-drop sweep, the stream's top directions) against the float64 forward
// (tests/fixtures/checkpoints/reference.mjs) on seeded tiny checkpoints and on the shipped toys; their options
// refused by name.
//   node --test tests/js/checkpoint-experiments.test.mjs     after `node scripts/build.mjs`
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkpointClaims as experiments, load } from '../../dist/lib/residual-lab.js';
import { makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { IDS, close, rewritten, sizes, withCheckpoint as openIn } from '../fixtures/checkpoints/hooks-helpers.mjs';
import { referenceForward } from '../fixtures/checkpoints/reference.mjs';

let lab;
before(async () => {
  lab = await load();
});
const withCheckpoint = (files, fn, options) => openIn(lab, files, fn, options);

describe('experiments against the float64 reference', () => {
  test('no final norm, increments, eps, where the length lives', async () => {
    for (const family of ['qwen2', 'gemma2', 'olmo2']) {
      const fixture = makeCheckpoint({ family, seed: 5 });
      const c = sizes(fixture),
        d = c.hidden_size,
        V = c.vocab_size,
        T = IDS.length;
      const ref = referenceForward(family, fixture.config, fixture.tensors, IDS);
      const raw = referenceForward(family, fixture.config, fixture.tensors, IDS, { noFinalNorm: 'division' });
      const noGain = referenceForward(family, fixture.config, fixture.tensors, IDS, { noFinalNorm: true });
      await withCheckpoint(fixture.files, async (ckpt) => {
        const entropy = (logits) => {
          const m = Math.max(...logits);
          const s = logits.reduce((a, z) => a + Math.exp(z - m), 0);
          return -logits.reduce((a, z) => a + (Math.exp(z - m) / s) * (z - m - Math.log(s)), 0);
        };
        for (const t of [T - 1, 2]) {
          const nf = await experiments.noFinalNorm(ckpt, IDS, { position: t });
          const at = (r) => Array.from(r.logits.subarray(t * V, (t + 1) * V));
          assert.equal(nf.position, t);
          close(
            [nf.real.entropy, nf.raw.entropy, nf.noGain.entropy],
            [entropy(at(ref)), entropy(at(raw)), entropy(at(noGain))],
            `${family} position ${t} entropies`,
          );
          close([nf.scale], [Math.sqrt(ref.observed.finalNormInput[t] + c.rms_norm_eps)], `${family} scale`);
          close([nf.streamNorm], [Math.hypot(...ref.hidden.at(-1).subarray(t * d, (t + 1) * d))], `${family} |h|`);
          // the division alone is a positive rescaling, applied before the soft-cap (monotone): no two tokens swap
          assert.deepEqual(nf.raw.ids, nf.real.ids, `${family} position ${t}: the order kept`);
        }

        const inc = await experiments.increments(ckpt, IDS, { position: 2 });
        const norm = (x, t) => Math.hypot(...x.subarray(t * d, (t + 1) * d));
        close(
          inc.layers.map((l) => l.attn),
          ref.attnOut.map((a, l) => norm(a, 2) / norm(ref.hidden[l], 2)),
          `${family} attention increments`,
        );
        close(
          inc.layers.map((l) => l.mlp),
          ref.mlpOut.map((m, l) => norm(m, 2) / norm(ref.mid[l], 2)),
          `${family} MLP increments`,
        );
        assert.equal(inc.layers[0].attnGain === null, family === 'qwen2');

        const eps = await experiments.epsMargin(ckpt, IDS);
        const want = [];
        ref.observed.normInputs.forEach((inputs, l) =>
          inputs.forEach((ms, s) => ms && want.push(Math.min(...ms) / c.rms_norm_eps)),
        );
        // OLMo 2 normalizes q and k: their rows are among the margins
        assert.equal(
          eps.rows.filter((r) => r.slot === 'qNorm' || r.slot === 'kNorm').length,
          family === 'olmo2' ? 2 * c.num_hidden_layers : 0,
        );
        want.push(Math.min(...ref.observed.finalNormInput) / c.rms_norm_eps);
        close(
          eps.rows.map((r) => r.ratio),
          want,
          `${family} eps ratios`,
        );
        assert.equal(eps.smallest.ratio, Math.min(...eps.rows.map((r) => r.ratio)));

        const top = await experiments.streamTop(ckpt, IDS, { k: 3, position: 0 });
        top.states.forEach((s, i) => {
          const x = Array.from(ref.hidden[i].subarray(0, d));
          const order = x
            .map((_, j) => j)
            .sort((a, b) => Math.abs(x[b]) - Math.abs(x[a]))
            .slice(0, 3);
          assert.deepEqual(
            s.coords.map((co) => co.index),
            order,
            `${family} state ${i} top coordinates`,
          );
          close(
            s.coords.map((co) => co.share),
            order.map((j) => x[j] ** 2 / x.reduce((a, v) => a + v * v, 0)),
            `${family} state ${i} shares`,
          );
        });
      });
    }
  });

  test('soft-caps: counts in the bent region against the reference; a model without caps says so', async () => {
    const fixture = makeCheckpoint({ family: 'gemma2', seed: 3 });
    const ref = referenceForward('gemma2', fixture.config, fixture.tensors, IDS);
    await withCheckpoint(fixture.files, async (ckpt) => {
      const r = await experiments.softcaps(ckpt, IDS);
      assert.equal(r.attnCap, 5);
      r.attention.forEach((l, i) => {
        const heads = ref.observed.heads[i];
        assert.equal(
          l.bent,
          heads.reduce((a, h) => a + h.bent, 0),
        );
        close([l.maxBefore], [Math.max(...heads.map((h) => h.maxBefore))], `layer ${i} max`);
        assert.ok(l.maxAfter < 5);
      });
      const fin = ref.observed.finalSoftcap(IDS.length);
      assert.equal(r.final.bent, fin.bent);
      assert.ok(r.final.maxAfter < 3 && r.final.maxBefore > r.final.maxAfter);
    });
    const none = makeCheckpoint({ family: 'llama', seed: 3 });
    await withCheckpoint(none.files, async (ckpt) => {
      assert.match((await experiments.softcaps(ckpt, IDS)).unsupported, /no soft-cap/);
    });
  });

  test('the wrong convention: top tokens under both readings against the reference, at the last position and another', async () => {
    for (const [family, position] of [
      ['llama', undefined],
      ['gemma3', undefined],
      ['llama', 3],
    ]) {
      const fixture = makeCheckpoint({ family, seed: 10 });
      const V = sizes(fixture).vocab_size;
      const t = position ?? IDS.length - 1;
      await withCheckpoint(fixture.files, async (ckpt) => {
        const r = await experiments.wrongConvention(ckpt, IDS, { k: 3, position });
        assert.equal(r.position, t);
        const gemma = family.startsWith('gemma');
        assert.equal(r.right.normOffset, gemma ? 1 : 0);
        for (const [side, offset] of [
          ['right', gemma ? 1 : 0],
          ['wrong', gemma ? 0 : 1],
        ]) {
          const ref = referenceForward(family, fixture.config, fixture.tensors, IDS, { normOffset: offset });
          const lastRow = Array.from(ref.logits.subarray(t * V, (t + 1) * V));
          const order = lastRow
            .map((_, j) => j)
            .sort((a, b) => lastRow[b] - lastRow[a])
            .slice(0, 3);
          assert.deepEqual(r[side].ids, order, `${family} ${side}`);
          assert.equal(r[side].lens.layers.length, sizes(fixture).num_hidden_layers + 1);
          assert.equal(r[side].lens.position, t);
        }
      });
    }
  });
});

test('the layer-drop sweep at a position: KL and cosine there, against the reference with that layer skipped', async () => {
  const fixture = makeCheckpoint({ family: 'qwen3', seed: 6 });
  const c = sizes(fixture),
    V = c.vocab_size,
    d = c.hidden_size,
    t = 2;
  const logProbs = (ref) => {
    const x = Array.from(ref.logits.subarray(t * V, (t + 1) * V));
    const m = Math.max(...x);
    const s = Math.log(x.reduce((a, z) => a + Math.exp(z - m), 0)) + m;
    return x.map((z) => z - s);
  };
  const full = referenceForward('qwen3', fixture.config, fixture.tensors, IDS);
  const p = logProbs(full);
  await withCheckpoint(fixture.files, async (ckpt) => {
    const sweep = await experiments.dropLayers(ckpt, IDS, { position: t });
    assert.equal(sweep.position, t);
    assert.equal(sweep.top, p.indexOf(Math.max(...p)));
    sweep.layers.forEach(({ layer: l, kl, cosine }) => {
      const q = logProbs(referenceForward('qwen3', fixture.config, fixture.tensors, IDS, { skipLayers: [l] }));
      close([kl], [p.reduce((a, v, j) => a + Math.exp(v) * (v - q[j]), 0)], `layer ${l} KL at ${t}`);
      const [a, b] = [full.hidden[l], full.hidden[l + 1]].map((h) => Array.from(h.subarray(t * d, (t + 1) * d)));
      const dot = a.reduce((s, v, i) => s + v * b[i], 0);
      close([cosine], [dot / Math.hypot(...a) / Math.hypot(...b)], `layer ${l} cosine at ${t}`);
    });
  });
});

test('eps margins: a norm whose input is all zeros is a row with mean square 0; q/k norms per head are rows', async () => {
  const olmo = makeCheckpoint({ family: 'olmo2', seed: 4 });
  const files = rewritten(olmo, (name, v) => /layers\.1\.self_attn\.o_proj\.weight$/.test(name) && v.fill(0));
  await withCheckpoint(files, async (ckpt) => {
    const { rows, smallest } = await experiments.epsMargin(ckpt, IDS);
    const zero = rows.find((r) => r.layer === 1 && r.slot === 'attnNormAfter');
    assert.ok(zero, "layer 1's post-attention norm keeps its row");
    assert.equal(zero.minMeanSquare, 0);
    assert.equal(smallest, zero);
  });
  const qwen3 = makeCheckpoint({ family: 'qwen3', seed: 4 });
  const c = sizes(qwen3);
  const ref = referenceForward('qwen3', qwen3.config, qwen3.tensors, IDS);
  await withCheckpoint(qwen3.files, async (ckpt) => {
    const { rows } = await experiments.epsMargin(ckpt, IDS);
    for (const [s, slot] of [
      [4, 'qNorm'],
      [5, 'kNorm'],
    ])
      for (let l = 0; l < c.num_hidden_layers; l++) {
        const row = rows.find((r) => r.layer === l && r.slot === slot);
        close([row.minMeanSquare], [Math.min(...ref.observed.normInputs[l][s])], `qwen3 layer ${l} ${slot}`);
      }
  });
});

test("the experiments' options: unknown keys refused by name, k and position whole numbers in range, the bound named", async () => {
  const fixture = makeCheckpoint({ family: 'llama', seed: 1 });
  const c = sizes(fixture);
  const T = IDS.length;
  await withCheckpoint(fixture.files, async (ckpt) => {
    const refused = (name, options, pattern) =>
      assert.rejects(experiments[name](ckpt, IDS, options), (e) => {
        assert.equal(e.code, 'invalid_options', `${name} ${JSON.stringify(options)}: ${e.message}`);
        assert.match(e.message, pattern);
        return true;
      });
    for (const name of Object.keys(experiments.CLAIM_OPTIONS)) {
      await refused(name, { layer: 99 }, new RegExp(`^${name}: unknown options key "layer"`));
      if (!experiments.CLAIM_OPTIONS[name].includes('position'))
        await refused(name, { position: 0 }, /unknown options key "position"/);
    }
    for (const name of ['streamTop', 'noFinalNorm', 'wrongConvention']) {
      const most = name === 'streamTop' ? c.hidden_size : Math.min(c.vocab_size, experiments.MAX_TOP_TOKENS);
      for (const k of [-1, 0, 'five', 2.5, most + 1])
        await refused(name, { k }, new RegExp(`k must be an integer from 1 to ${most} \\(got `));
    }
    for (const name of ['increments', 'streamTop', 'dropLayers', 'noFinalNorm', 'wrongConvention'])
      for (const position of ['2', 2.5, -1, T, 99])
        await refused(name, { position }, new RegExp(`position must be an integer from 0 to ${T - 1} \\(got `));
    await refused('epsMargin', { onProgress: 3 }, /onProgress must be a function/);
    await refused('epsMargin', 'fast', /options must be an object/);
    // what the documented values give, with the defaults filled in
    const top = await experiments.streamTop(ckpt, IDS, { k: 2, position: undefined });
    assert.deepEqual([top.k, top.position, top.states[0].coords.length], [2, T - 1, 2]);
    const ckptCall = await ckpt.claim('increments', IDS, { position: 0 });
    assert.equal(ckptCall.position, 0);
  });
});

test("eps margins on the shipped toys, every norm the float64 reference meets: the toy OLMo 2's smallest is layer 0's q_norm", async () => {
  const { readSafetensors, record, tensorValues, toyFiles } = await import('../fixtures/toys.mjs');
  const { toyWindow } = await import('../../web/components/shared/toys.js');
  const { NORM_INPUTS } = experiments;
  for (const toy of record.toys) {
    const files = toyFiles(toy);
    const config = JSON.parse(new TextDecoder().decode(files['config.json']));
    const { header, dataStart } = readSafetensors(files['model.safetensors']);
    const tensors = new Map(
      Object.entries(header)
        .filter(([name]) => name !== '__metadata__')
        .map(([name, entry]) => [
          name,
          { shape: entry.shape, values: tensorValues(files['model.safetensors'], dataStart, entry) },
        ]),
    );
    await withCheckpoint(files, async (ckpt) => {
      const ids = ckpt.tokenize(toyWindow(toy));
      const ref = referenceForward(toy.modelType, config, tensors, ids);
      const { rows, smallest, eps } = await experiments.epsMargin(ckpt, ids);
      const want = [];
      ref.observed.normInputs.forEach((inputs, l) =>
        inputs.forEach((ms, s) => ms && want.push({ layer: l, slot: NORM_INPUTS[s], ratio: Math.min(...ms) / eps })),
      );
      want.push({ layer: null, slot: 'finalNorm', ratio: Math.min(...ref.observed.finalNormInput) / eps });
      assert.deepEqual(
        rows.map((r) => `${r.layer} ${r.slot}`),
        want.map((r) => `${r.layer} ${r.slot}`),
        `${toy.name}: every norm`,
      );
      close(
        rows.map((r) => r.ratio),
        want.map((r) => r.ratio),
        `${toy.name}: ratios`,
      );
      if (toy.modelType === 'olmo2') assert.deepEqual([smallest.layer, smallest.slot], [0, 'qNorm']);
    });
  }
});
