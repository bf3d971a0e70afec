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

const waiting = []; // resolve functions of the nextFrame() promises, in the order they were asked for
let frameAsked = false;

/**
 * Resolves in a task after a later frame, one caller per frame in the order they asked: what one piece of work
 * built is laid out and painted in a frame of its own before the next piece starts, whoever asked for it (the
 * chapter's layout, a widget's drawing, a chart). Two pieces run between the same two frames would be laid out
 * together, or the second would force the first's layout by reading it (a canvas font, a width). Where there are
 * no frames (a hidden tab, a worker, node) it is nextTask(), and a frame that never comes releases every caller.
 */
export function nextFrame() {
  if (typeof requestAnimationFrame !== 'function' || document.visibilityState === 'hidden') return nextTask();
  return new Promise((resolve) => {
    waiting.push(resolve);
    askForFrame();
  });
}

function askForFrame() {
  if (frameAsked) return;
  frameAsked = true;
  const releaseAll = () => {
    frameAsked = false;
    for (const resolve of waiting.splice(0)) resolve();
  };
  const fallback = setTimeout(releaseAll, FRAME_WAIT_MS);
  requestAnimationFrame(() => {
    clearTimeout(fallback);
    // After this frame's style, layout and paint, which follow the frame callbacks: the next caller only.
    setTimeout(() => {
      frameAsked = false;
      waiting.shift()?.();
      if (waiting.length) askForFrame();
    }, 0);
  });
}
