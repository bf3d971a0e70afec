// Smoothing of a noisy curve for display (presentation only: the raw values stay on the chart, faint).
// The same exponential moving average as the training loop's divergence monitor (wasm/src/train/divergence.hpp):
//   smoothed_t = beta * smoothed_{t-1} + (1 - beta) * value_t,  starting at the first finite value, beta = 0.9,
// so a run's last smoothed point is the finalSmoothedLoss the experiment reports (a browser test checks it).
// Non-finite or missing values leave a gap and do not enter the average, as there.
export const LOSS_SMOOTHING = 0.9;

export function movingAverage(values, beta = LOSS_SMOOTHING) {
  let smoothed = null;
  return Array.from(values, (value) => {
    if (value == null || !Number.isFinite(value)) return null;
    smoothed = smoothed === null ? value : beta * smoothed + (1 - beta) * value;
    return smoothed;
  });
}
