// A worker_threads worker of bench/training-wall-time.mjs: loads the lab from the WebAssembly.Module the main
// thread compiled (as a page's lab workers do) and runs the experiments.warmup parts it is sent.
import { parentPort, workerData } from 'node:worker_threads';
import { load } from '../dist/lib/residual-lab.js';

const lab = await load({ flavour: 'simd', module: workerData.module });
parentPort.on('message', (options) => parentPort.postMessage(lab.experiments.warmup(options)));
parentPort.postMessage('ready');
