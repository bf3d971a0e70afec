// Text of a decoder widget's run state (web/components/experiment-run/), in English.
export default {
  running: 'Computing in a background worker…',
  steps: (done, total) => `Training step ${done} of ${total}…`,
  left: (seconds) => ` About ${seconds < 60 ? `${seconds} s` : `${Math.round(seconds / 60)} min`} left.`,
  fixInputs: 'Nothing was run: correct the field marked above first.',
  cancel: 'Cancel',
  retry: 'Retry',
  cancelled: 'Cancelled: the last finished result stays on screen.',
  cancelledPartial: (done, total) => `Cancelled at step ${done} of ${total}: the curves so far stay on screen.`,
  failed: (message) => `The experiment failed: ${message}`,
  workerFailed: (detail) =>
    `The experiment failed: the background worker that computes it stopped before it finished (${detail || 'its script did not load, or the browser ended it, for instance when memory ran out'}). Your settings are fine: press Retry.`,
  took: (ms) => `Computed in ${ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`}.`,
  seed: 'Random seed',
  anotherSeed: 'Another seed',
};
