// Promises that resolve later, so that the browser can paint and answer input between two pieces of work. Timers,
// not scheduler.postTask with priorities: ranking the loading work measured worse (docs/benchmarks.md, "The page").

/** Resolves in a later task (a timer). */
export function nextTask() {
  return new Promise((resolve) => {
    setTimeout(resolve, 0);
  });
}

// How long nextFrame waits for a frame before it goes on without one: a hidden tab has none, and an iframe out of
// view gets them throttled.
const FRAME_WAIT_MS = 100;

const waiting = []; // { resolve, element } of the nextFrame() promises, in the order they were asked for
let frameAsked = false;

/**
 * Resolves in a task after a later frame, one caller per frame in the order they asked: what one piece of work
 * built is laid out and painted in a frame of its own before the next piece starts, whoever asked for it (the
 * chapter's layout, a widget's drawing, a chart). Two pieces run between the same two frames would be laid out
 * together, or the second would force the first's layout by reading it (a canvas font, a width). Where there are
 * no frames (a worker, node, a tab hidden before the call) it is nextTask(); a frame that does not come within
 * FRAME_WAIT_MS releases the next caller without it, or every caller if the tab is hidden by then.
 * `element`, when given, is what the piece of work builds: one out of the document by its turn lays nothing out,
 * so it does not use up the frame (the caller after it is released too), and a removed widget's pieces do not
 * hold a queue.
 */
export function nextFrame(element = null) {
  if (typeof requestAnimationFrame !== 'function' || document.visibilityState === 'hidden') return nextTask();
  return new Promise((resolve) => {
    waiting.push({ resolve, element });
    askForFrame();
  });
}

function askForFrame() {
  if (frameAsked) return;
  frameAsked = true;
  let answered = false;
  const release = () => {
    if (answered) return; // the frame and the fallback timer: whichever comes first
    answered = true;
    clearTimeout(fallback);
    frameAsked = false;
    const everyone = document.visibilityState === 'hidden';
    while (waiting.length) {
      const { resolve, element } = waiting.shift();
      resolve();
      if (!everyone && (!element || element.isConnected)) break;
    }
    if (waiting.length) askForFrame();
  };
  const fallback = setTimeout(release, FRAME_WAIT_MS);
  // The task after the frame: after its style, layout and paint, which follow the frame callbacks.
  requestAnimationFrame(() => setTimeout(release, 0));
}
