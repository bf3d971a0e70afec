// Text of a decoder widget's run state (web/components/experiment-run/), in English.
export default {
  running: 'Computing in a background worker…',
  steps: (done, total) => `Training step ${done} of ${total}…`,
  cancel: 'Cancel',
  cancelled: 'Cancelled: the last finished result stays on screen.',
  cancelledPartial: (done, total) => `Cancelled at step ${done} of ${total}: the curves so far stay on screen.`,
  failed: (message) => `The experiment failed: ${message}`,
  took: (ms) => `Computed in ${ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`}.`,
  seed: 'Random seed',
  anotherSeed: 'Another seed',
};
