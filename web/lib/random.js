// Seeded randomness shared by the widgets, the experiments and the test fixtures: the same seed gives the same
// numbers everywhere.

/** mulberry32: uniform values in [0, 1) from a 32-bit seed. */
export function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Deterministic standard-normal values: mulberry32 for uniforms, Box-Muller (both of its values) for the normal. */
export function randomVector(d, seed) {
  const uniform = mulberry32(seed);
  const x = new Float32Array(d);
  for (let i = 0; i < d; i += 2) {
    const radius = Math.sqrt(-2 * Math.log(1 - uniform()));
    const angle = 2 * Math.PI * uniform();
    x[i] = radius * Math.cos(angle);
    if (i + 1 < d) x[i + 1] = radius * Math.sin(angle);
  }
  return x;
}
