// ckpt.gradients beside the forward in Chromium, on the synthetic checkpoints of bench/synthetic-checkpoints.mjs
// picked through a file input as a reader picks them, opened in the lab worker as the gradient-flow widget opens
// them (its default workers: the split runs' workers inside it): a first forward and gradients, then `rounds` rounds
// of one forward and one gradients of 16 tokens, interleaved, each timed in the page. Prints one JSON line per
// round and a summary: the medians, their range, and the ratio of each round's gradients to its forward.
//   node bench/checkpoint-browser-gradients.mjs [--shapes=qwen2.5-0.5b] [--rounds=5]     after `node scripts/build.mjs`
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/lib/chromium.mjs';
import { median } from '../scripts/lib/median.mjs';
import { SHAPES, checkpointPaths } from './synthetic-checkpoints.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const shapes = arg('shapes', 'qwen2.5-0.5b').split(',');
const rounds = Number(arg('rounds', '5'));

const { server, url } = await startServer({ siteRoot: join(root, 'dist'), port: 0 });
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
try {
  for (const shape of shapes) {
    const paths = await checkpointPaths(shape);
    const page = await browser.newPage();
    await page.goto(`${url}embed.html?widget=checkpoint-probe&lang=en`);
    await page.evaluate(() => {
      const input = Object.assign(document.createElement('input'), { type: 'file', multiple: true, id: 'bench' });
      document.body.append(input);
    });
    await page.locator('#bench').setInputFiles(paths);
    const V = SHAPES[shape].config.vocab_size;
    const result = await page.evaluate(
      async ({ rounds, V }) => {
        const { createLabWorker } = await import('/lib/worker-client.js');
        const worker = createLabWorker();
        const files = Object.fromEntries([...document.getElementById('bench').files].map((f) => [f.name, f]));
        for (const [name, file] of Object.entries(files)) if (name.endsWith('.json')) files[name] = await file.text();
        const handle = await worker.call('openCheckpoint', [files]);
        const ids = Array.from({ length: 16 }, (_, i) => (i * 7919) % V);
        const timed = async (f) => {
          const t0 = performance.now();
          await f();
          return (performance.now() - t0) / 1000;
        };
        const first = {
          forward: await timed(() => handle.run(ids)),
          gradients: await timed(() => handle.gradients(ids)),
        };
        const rows = [];
        for (let k = 0; k < rounds; k++)
          rows.push({
            forward: await timed(() => handle.run(ids)),
            gradients: await timed(() => handle.gradients(ids)),
          });
        const workers = handle.workers;
        await handle.dispose();
        worker.terminate();
        return { first, rows, workers };
      },
      { rounds, V },
    );
    console.log(JSON.stringify({ shape, first: result.first, workers: result.workers }));
    for (const [k, row] of result.rows.entries())
      console.log(JSON.stringify({ shape, round: k, ...row, ratio: row.gradients / row.forward }));
    const of = (key) => result.rows.map((r) => r[key]);
    const range = (xs) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
    const ratios = result.rows.map((r) => r.gradients / r.forward);
    console.log(
      `${shape} in Chromium, ${result.workers} workers, 16 tokens, ${rounds} rounds: forward ${median(of('forward')).toFixed(2)} s (${range(of('forward'))}), gradients ${median(of('gradients')).toFixed(2)} s (${range(of('gradients'))}), ratio ${median(ratios).toFixed(2)} (${range(ratios)})`,
    );
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
