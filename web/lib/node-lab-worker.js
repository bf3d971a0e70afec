// A node worker_threads entry that runs a Web Worker module (lab-worker.js, named by workerData.url): it gives
// the module the `self` a Web Worker has (postMessage, onmessage), over the thread's parentPort. Messages that
// arrive while the module loads are held and replayed, as a Web Worker's would be queued.
import { parentPort, workerData } from 'node:worker_threads';

let handler = null;
const held = [];
globalThis.self = globalThis;
globalThis.postMessage = (message, transfer) => parentPort.postMessage(message, transfer);
Object.defineProperty(globalThis, 'onmessage', {
  configurable: true,
  get: () => handler,
  set: (fn) => {
    handler = fn;
  },
});
parentPort.on('message', (data) => (handler ? handler({ data }) : held.push(data)));
await import(workerData.url);
for (const data of held.splice(0)) handler?.({ data });
