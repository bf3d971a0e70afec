// A checkpoint run's interventions (options.intervene) and observations (options.collect) against the float64
// forward written from the Transformers modeling code (tests/fixtures/checkpoints/reference.mjs) on seeded tiny
// checkpoints of every family; one worker and a split run give the same numbers; and the properties the chapter's
// claims rest on. The experiments built on them: checkpoint-experiments.test.mjs.
//   node --test tests/js/checkpoint-hooks.test.mjs     after `node scripts/build.mjs`
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointClaims as experiments, load } from '../../dist/lib/residual-lab.js';
import { FAMILIES, makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { IDS, close, rewritten, sizes, withCheckpoint as openIn } from '../fixtures/checkpoints/hooks-helpers.mjs';
import { referenceForward, rmsNormBf16Reference } from '../fixtures/checkpoints/reference.mjs';

const ALL = ['attnScores', 'normInputs', 'residMid', 'finalSoftcap', 'finalNormBf16'];
let lab, dir;
before(async () => {
  lab = await load();
  dir = mkdtempSync(join(tmpdir(), 'rl-hooks-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const withCheckpoint = (files, fn, options) => openIn(lab, files, fn, options);
const rowNorms = (x, d) =>
  Array.from({ length: x.length / d }, (_, r) => Math.hypot(...x.subarray(r * d, (r + 1) * d)));

describe('observations match the float64 reference, every family', () => {
  for (const family of FAMILIES) {
    test(family, async () => {
      const fixture = makeCheckpoint({ family, seed: 7 });
      const c = sizes(fixture);
      const ref = referenceForward(family, fixture.config, fixture.tensors, IDS);
      const T = IDS.length,
        d = c.hidden_size,
        H = c.num_attention_heads;
      await withCheckpoint(fixture.files, async (ckpt) => {
        const r = await ckpt.run(IDS, { logits: 'all', hiddenStates: true, collect: ALL });
        const o = r.collected;
        for (let l = 0; l < c.num_hidden_layers; l++) {
          const heads = ref.observed.heads[l];
          close(
            Array.from({ length: H }, (_, h) => o.attnScores[l][4 * h]),
            heads.map((s) => s.maxBefore),
            `${family} layer ${l} max |score|`,
          );
          close(
            Array.from({ length: H }, (_, h) => o.attnScores[l][4 * h + 1]),
            heads.map((s) => s.maxAfter),
            `${family} layer ${l} max |capped score|`,
          );
          assert.deepEqual(
            Array.from({ length: H }, (_, h) => o.attnScores[l][4 * h + 2]),
            heads.map((s) => s.bent),
            `${family} layer ${l} bent`,
          );
          assert.deepEqual(
            Array.from({ length: H }, (_, h) => o.attnScores[l][4 * h + 3]),
            heads.map((s) => s.count),
            `${family} layer ${l} count`,
          );
          ref.observed.normInputs[l].forEach((ms, s) => {
            const got = o.normInputs[l].subarray(s * T, (s + 1) * T);
            if (ms) close(got, ms, `${family} layer ${l} N${s + 1} input`);
            else
              assert.ok(
                got.every((v) => v === 0),
                `${family} layer ${l} has no N${s + 1}: zeros`,
              );
          });
          close(o.residMid[l], rowNorms(ref.mid[l], d), `${family} layer ${l} resid_mid`);
        }
        close(o.finalNormInput, ref.observed.finalNormInput, `${family} final norm input`);
        const cap = ref.observed.finalSoftcap(T);
        close(
          [o.finalSoftcap.maxBefore, o.finalSoftcap.maxAfter],
          [cap.maxBefore, cap.maxAfter],
          `${family} final cap`,
        );
        assert.deepEqual(
          [o.finalSoftcap.bent, o.finalSoftcap.count],
          [cap.bent, cap.count],
          `${family} final cap counts`,
        );
        close(r.logits, ref.logits, `${family} logits with everything observed`);
        // the BF16 path's arithmetic, on the stream the lab computed (whose float32 values are checked elsewhere)
        const g = fixture.tensors.get([...fixture.tensors.keys()].find((n) => /\.norm\.weight$/.test(n))).values;
        const offset = family.startsWith('gemma') ? 1 : 0;
        for (let t = 0; t < T; t++) {
          const want = rmsNormBf16Reference(
            r.hiddenStates.at(-1).subarray(t * d, (t + 1) * d),
            g,
            c.rms_norm_eps,
            offset,
          );
          assert.equal(o.finalNormBf16.meanSquare[t], want.ms, `${family} bf16 mean square ${t}`);
          assert.deepEqual(
            Array.from(o.finalNormBf16.hidden.subarray(t * d, (t + 1) * d)),
            want.y,
            `${family} bf16 norm ${t}`,
          );
        }
      });
    });
  }
});

describe('interventions match the float64 reference, every family', () => {
  for (const family of FAMILIES) {
    test(family, async () => {
      const fixture = makeCheckpoint({ family, seed: 9 });
      const gemma = family.startsWith('gemma');
      await withCheckpoint(fixture.files, async (ckpt) => {
        for (const intervene of [
          { skipLayers: [1] },
          { skipLayers: [0, 2] },
          { noFinalNorm: true },
          { noFinalNorm: 'division' },
          { normOffset: gemma ? 0 : 1 },
        ]) {
          const what = `${family} ${JSON.stringify(intervene)}`;
          const r = await ckpt.run(IDS, { logits: 'all', hiddenStates: true, intervene });
          const ref = referenceForward(family, fixture.config, fixture.tensors, IDS, intervene);
          ref.hidden.forEach((h, i) => close(r.hiddenStates[i], h, `${what} hidden[${i}]`));
          close(r.logits, ref.logits, `${what} logits`);
        }
      });
    });
  }
});

test('one worker and a split run give the same observations and interventions, every family', async () => {
  for (const family of FAMILIES) {
    const fixture = makeCheckpoint({ family, dtype: 'BF16', seed: 12 });
    const path = join(dir, `${family}.safetensors`);
    writeFileSync(path, fixture.files['model.safetensors']);
    const files = { 'config.json': fixture.files['config.json'], 'model.safetensors': path };
    const runs = [];
    for (const workers of [1, 2]) {
      await withCheckpoint(
        files,
        async (ckpt) => {
          assert.equal(ckpt.workers, workers);
          const plain = await ckpt.run(IDS, { hiddenStates: true, collect: ALL });
          const hooked = await ckpt.run(IDS, {
            collect: ALL,
            intervene: {
              from: { layer: 1, stream: plain.hiddenStates[1] },
              skipLayers: [1],
              normOffset: 1 - ckpt.forward.normOffset,
            },
          });
          runs.push({ plain, hooked });
        },
        { workers },
      );
    }
    for (const key of ['plain', 'hooked']) {
      assert.deepEqual(runs[1][key].collected, runs[0][key].collected, `${family} ${key} observations`);
      assert.deepEqual(runs[1][key].logits, runs[0][key].logits, `${family} ${key} logits`);
    }
  }
});

describe('properties', () => {
  test('dropping a layer whose weights are zero changes nothing', async () => {
    for (const family of ['qwen2', 'gemma2', 'olmo2']) {
      const fixture = makeCheckpoint({ family, seed: 4 });
      // o_proj and down_proj of layer 1 zero: both its increments are exactly 0 (after an output norm too)
      const files = rewritten(
        fixture,
        (name, v) => /layers\.1\.(self_attn\.o_proj|mlp\.down_proj)\.weight$/.test(name) && v.fill(0),
      );
      await withCheckpoint(files, async (ckpt) => {
        const full = await ckpt.run(IDS, { logits: 'all' });
        const dropped = await ckpt.run(IDS, { logits: 'all', intervene: { skipLayers: [1] } });
        assert.deepEqual(dropped.logits, full.logits, family);
        const sweep = await experiments.dropLayers(ckpt, IDS);
        assert.equal(sweep.layers[1].kl, 0, `${family}: no divergence`);
        assert.ok(sweep.layers[1].topSurvives);
        assert.ok(Math.abs(sweep.layers[1].cosine - 1) < 1e-6, `${family}: the layer's output is its input`);
        assert.ok(sweep.layers[0].kl > 1e-6, `${family}: dropping a layer with weights does change the output`);
      });
    }
  });

  test('the sweep is one run whose dropped layers are variants: it reads the model once', async () => {
    const fixture = makeCheckpoint({
      family: 'llama',
      config: { ...makeCheckpoint({ family: 'llama' }).config, num_hidden_layers: 6 },
      seed: 2,
    });
    await withCheckpoint(
      fixture.files,
      async (ckpt) => {
        const L = 6;
        let bytes = 0,
          runs = 0;
        const counted = {
          forward: ckpt.forward,
          normWeights: () => ckpt.normWeights(),
          run: async (ids, o) => {
            const r = await ckpt.run(ids, o);
            bytes += r.reads.bytes;
            runs += 1;
            return r;
          },
        };
        const sweep = await experiments.dropLayers(counted, IDS);
        const one = (await ckpt.run(IDS)).reads.bytes;
        // one run: every layer read once, the head once for the full run's and the variants' last rows
        assert.equal(runs, 1);
        assert.equal(bytes, one, `${bytes} bytes read, one run reads ${one}`);
        // kept in the heap (the default budget holds this model), the whole sweep reads the model once
        await withCheckpoint(fixture.files, async (resident) => {
          let residentBytes = 0;
          await experiments.dropLayers(
            {
              ...counted,
              run: async (ids, o) => ((r) => ((residentBytes += r.reads.bytes), r))(await resident.run(ids, o)),
            },
            IDS,
          );
          assert.equal(resident.residency().mode, 'resident');
          assert.ok(residentBytes <= one, `resident: ${residentBytes} bytes read, one run reads ${one}`);
        });
        for (const l of [0, 3, 5]) {
          // the same as the whole run with layer l skipped, from the embedding on
          const whole = await ckpt.run(IDS, { intervene: { skipLayers: [l] } });
          const ref = referenceForward('llama', fixture.config, fixture.tensors, IDS, { skipLayers: [l] });
          const full = referenceForward('llama', fixture.config, fixture.tensors, IDS);
          close(whole.logits, ref.logits.subarray(ref.logits.length - 48), `skip ${l}`);
          const lp = (x) => {
            const m = Math.max(...x);
            const s = Math.log(x.reduce((a, z) => a + Math.exp(z - m), 0)) + m;
            return x.map((z) => z - s);
          };
          const p = lp(Array.from(full.logits.subarray(full.logits.length - 48))),
            q = lp(Array.from(ref.logits.subarray(ref.logits.length - 48)));
          const kl = p.reduce((a, v, j) => a + Math.exp(v) * (v - q[j]), 0);
          assert.ok(
            Math.abs(sweep.layers[l].kl - kl) < 1e-4 * Math.max(1, kl),
            `layer ${l} KL ${sweep.layers[l].kl} against ${kl}`,
          );
        }
      },
      { residencyBudget: 0 },
    ); // read every run: what a model over the budget reads
  });

  test("headInputs: another run's last stream row through this run's final norm and head gives that run's logits", async () => {
    for (const family of ['llama', 'gemma2']) {
      const fixture = makeCheckpoint({ family, seed: 3 });
      await withCheckpoint(
        fixture.files,
        async (ckpt) => {
          const { d, layers: L } = ckpt.forward;
          const skipped = await ckpt.run(IDS, { intervene: { skipLayers: [0] }, hiddenStates: true });
          const noHead = await ckpt.run(IDS, { intervene: { skipLayers: [0] }, hiddenStates: true, logits: 'none' });
          assert.equal(noHead.logits, null);
          // the only bytes a run without logits leaves unread: the output head's (tied or not)
          const head =
            ckpt.tensors.find((t) => t.name === 'lm_head.weight') ??
            ckpt.tensors.find((t) => t.name.endsWith('embed_tokens.weight'));
          const headBytes = head.shape[0] * head.shape[1] * { F32: 4, BF16: 2, F16: 2 }[head.dtype];
          assert.equal(skipped.reads.bytes - noHead.reads.bytes, headBytes, `${family}: the head is not read`);
          const T = IDS.length;
          const last = noHead.hiddenStates[L].slice((T - 1) * d, T * d);
          const pass = await ckpt.run(IDS, {
            intervene: { from: { layer: L, stream: skipped.hiddenStates[L] } },
            logits: 'none',
            headInputs: Float32Array.of(...last, ...last),
          });
          const V = skipped.logits.length;
          assert.equal(pass.headInputLogits.length, 2 * V);
          close(pass.headInputLogits.subarray(0, V), skipped.logits, `${family} first row`);
          close(pass.headInputLogits.subarray(V), skipped.logits, `${family} second row`);
          await assert.rejects(ckpt.run(IDS, { headInputs: new Float32Array(d + 1) }), { code: 'invalid_input' });
        },
        { residencyBudget: 0 },
      ); // each run reads what it needs
    }
  });

  test('the wrong convention with w = 0 multiplies by 0; w = 1 read as 1 + w is a model with gains 2', async () => {
    const gemma = makeCheckpoint({ family: 'gemma2', zeroNorms: true, seed: 6 });
    await withCheckpoint(gemma.files, async (ckpt) => {
      const wrong = await ckpt.run(IDS, { intervene: { normOffset: 0 }, hiddenStates: true });
      // every norm's output is 0: the sublayers add nothing, and the head reads zeros
      assert.ok(wrong.hiddenStates.every((h) => h.every((v, i) => v === wrong.hiddenStates[0][i])));
      assert.ok(wrong.logits.every((z) => z === 0));
    });
    const ones = makeCheckpoint({ family: 'llama', seed: 6 });
    const filesOnes = rewritten(ones, (name, v) => /norm\.weight$/.test(name) && v.fill(1));
    const twos = makeCheckpoint({ family: 'llama', seed: 6 });
    const filesTwos = rewritten(twos, (name, v) => /norm\.weight$/.test(name) && v.fill(2));
    const a = await withCheckpoint(filesOnes, (ckpt) => ckpt.run(IDS, { logits: 'all', intervene: { normOffset: 1 } }));
    const b = await withCheckpoint(filesTwos, (ckpt) => ckpt.run(IDS, { logits: 'all' }));
    assert.deepEqual(a.logits, b.logits);
  });

  test('no attention score exceeds the bound the q/k norms give', async () => {
    for (const family of ['qwen3', 'gemma3_text', 'olmo2']) {
      for (const seed of [1, 2, 3]) {
        const fixture = makeCheckpoint({ family, seed });
        await withCheckpoint(fixture.files, async (ckpt) => {
          const r = await experiments.attentionScores(ckpt, IDS);
          for (const layer of r.layers) {
            assert.ok(layer.bound > 0);
            for (const s of layer.maxPerHead)
              assert.ok(s > 0 && s <= layer.bound, `${family} layer ${layer.layer}: ${s} > ${layer.bound}`);
          }
        });
      }
    }
    const qwen2 = makeCheckpoint({ family: 'qwen2', seed: 1 });
    await withCheckpoint(qwen2.files, async (ckpt) => {
      const r = await experiments.attentionScores(ckpt, IDS);
      assert.ok(r.layers.every((l) => l.bound === null && l.maxPerHead.every((s) => s > 0)));
    });
  });

  test('BF16 arithmetic on values exact in BF16 gives the FP32 mean square where the sums stay exact', async () => {
    // embedding rows of -1, 0 and 1 and every layer skipped: the final norm reads them; their squares sum to
    // whole numbers <= 32, exact in bfloat16's 8 bits
    const fixture = makeCheckpoint({ family: 'llama', seed: 8 });
    const files = rewritten(
      fixture,
      (name, v) => name.includes('embed') && v.forEach((x, i) => (v[i] = Math.sign(Math.round(x)))),
    );
    await withCheckpoint(files, async (ckpt) => {
      const r = await ckpt.run(IDS, { collect: ['normInputs', 'finalNormBf16'], intervene: { skipLayers: [0, 1, 2] } });
      assert.ok(r.collected.finalNormInput.some((ms) => ms > 0 && ms < 1));
      assert.deepEqual(r.collected.finalNormBf16.meanSquare, r.collected.finalNormInput);
      const exp = await experiments.bf16Norm(ckpt, IDS);
      assert.ok(
        exp.positions.some((p) => p.meanSquareError !== 0),
        'on a real stream the BF16 sum does lose',
      );
    });
  });

  test('bad hooks are refused with a message naming them', async () => {
    const fixture = makeCheckpoint({ family: 'qwen2', seed: 1 });
    await withCheckpoint(fixture.files, async (ckpt) => {
      const bad = async (options, pattern) =>
        assert.rejects(
          () => ckpt.run(IDS, options),
          (e) => e.code === 'invalid_input' && pattern.test(e.message),
        );
      await bad({ intervene: { skipLayer: 1 } }, /skipLayer is not one of/);
      await bad({ intervene: { skipLayers: [3] } }, /skipLayers must list layers 0 \.\. 2/);
      await bad({ intervene: { normOffset: 2 } }, /normOffset must be 0/);
      await bad({ intervene: { from: { layer: 1, stream: new Float32Array(3) } } }, /from.stream/);
      await bad({ collect: ['everything'] }, /not one of attnScores/);
    });
  });
});
