// The precision lab's float64 side (web/components/precision-lab/compute.js): its reference RMSNorm, and the
// shared draw of random vectors that the widget's vector and the sweep both take their values from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EPS, MAX_D, exactRmsNorm, randomVector, seededPrefix } from '../../web/components/precision-lab/compute.js';

test("the reference RMSNorm is the chapter's worked example: [2, -1, 3, 0] over sqrt(14 / 4 + eps)", () => {
  const { y, rms, sumSquares } = exactRmsNorm(Float32Array.from([2, -1, 3, 0]));
  assert.equal(sumSquares, 14);
  assert.equal(rms, Math.sqrt(3.5 + EPS));
  assert.deepEqual([...y], [2 / rms, -1 / rms, 3 / rms, 0]);
  assert.ok(Math.abs(y[0] - 1.069) < 1e-3); // 2 / 1.8708
});

test('a seeded prefix holds the values randomVector draws for that length and seed, for any order of calls', () => {
  for (const [d, seed] of [
    [1, 3],
    [7, 3],
    [4096, 1],
    [MAX_D, 9],
    [5, 0],
    [4096, 1],
  ]) {
    assert.deepEqual([...seededPrefix(d, seed)], [...randomVector(d, seed)], `d = ${d}, seed = ${seed}`);
  }
  assert.notDeepEqual([...seededPrefix(4, 1)], [...seededPrefix(4, 2)]);
});
