// Module worker that runs lab calls off the main thread (see worker-client.js for the other end).
// Request:  { id, method: 'experiments.warmup', args: [options] }   (a dotted path into the lab object)
// Replies:  { id, progress }  while running (when the call takes an onProgress option), then
//           { id, result } or { id, error: { name, message, code } }.
import { load } from './residual-lab.js';

const labReady = load();

function resolveMethod(lab, path) {
  let owner = lab;
  const parts = path.split('.');
  for (const part of parts.slice(0, -1)) owner = owner?.[part];
  const fn = owner?.[parts.at(-1)];
  if (typeof fn !== 'function') throw new Error(`the lab has no function ${path}`);
  return fn.bind(owner);
}

// Typed arrays in the result are transferred, not copied.
function transferables(value, found = []) {
  if (ArrayBuffer.isView(value)) found.push(value.buffer);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) transferables(v, found);
  return [...new Set(found)];
}

self.onmessage = async ({ data: { id, method, args = [] } }) => {
  try {
    const lab = await labReady;
    const fn = resolveMethod(lab, method);
    const [options, ...rest] = args;
    const withProgress = options && typeof options === 'object' && !ArrayBuffer.isView(options)
      ? { ...options, onProgress: (progress) => self.postMessage({ id, progress }) }
      : options;
    const result = await fn(withProgress, ...rest);
    self.postMessage({ id, result }, transferables(result));
  } catch (err) {
    self.postMessage({ id, error: { name: err?.name ?? 'Error', message: err?.message ?? String(err), code: err?.code } });
  }
};
