// A promise resolved in a later task (a timer), so that the browser can paint and answer input between two pieces
// of work. A timer, not scheduler.postTask with priorities: ranking the loading work measured worse
// (docs/benchmarks.md, "The page").
export function nextTask() {
  return new Promise((resolve) => {
    setTimeout(resolve, 0);
  });
}
