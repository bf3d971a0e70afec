// Promises that resolve later, so that the browser can paint and answer input between two pieces of work. Timers,
// not scheduler.postTask with priorities: ranking the loading work measured worse (docs/benchmarks.md, "The page").

/** Resolves in a later task (a timer). */
export function nextTask() {
  return new Promise((resolve) => {
    setTimeout(resolve, 0);
  });
}

// How long nextFrame waits for a frame that may never come (the tab was hidden after the request).
const FRAME_WAIT_MS = 100;

/**
 * Resolves in a task after the browser's next frame: what the last piece of work built is then laid out and
 * painted before the next piece starts, so that a frame lays out one piece, not several that ran between two
 * frames. Where there are no frames (a hidden tab, a worker, node) it is nextTask().
 */
export function nextFrame() {
  if (typeof requestAnimationFrame !== 'function' || document.visibilityState === 'hidden') return nextTask();
  return new Promise((resolve) => {
    const fallback = setTimeout(resolve, FRAME_WAIT_MS);
    requestAnimationFrame(() => {
      clearTimeout(fallback);
      setTimeout(resolve, 0); // after this frame's style, layout and paint, which follow the frame callbacks
    });
  });
}
