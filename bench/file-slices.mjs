// How fast Chromium reads a picked file through File slices (file.slice(a, b).arrayBuffer(), as a run's workers read
// their shares of each projection): 256 MB of the Qwen-shaped weights file of bench/synthetic-checkpoints.mjs (in the
// OS cache) in slices of 16 MB, 1 MB, 256 KB and 64 KB, one read at a time and eight at once; MB/s and the time a
// read takes. Not a test: it prints one line per case.
//   node bench/file-slices.mjs     (no build needed)
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/lib/chromium.mjs';
import { cachedCheckpoint } from './synthetic-checkpoints.mjs';

const files = await cachedCheckpoint('qwen2.5-0.5b');
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage();
  await page.setContent('<input type=file>');
  await page.locator('input').setInputFiles(files['model.safetensors']);
  const lines = await page.evaluate(async () => {
    const file = document.querySelector('input').files[0];
    const total = 256 << 20;
    const out = [];
    for (const size of [16 << 20, 1 << 20, 256 << 10, 64 << 10])
      for (const inFlight of [1, 8]) {
        let next = 0;
        const reader = async () => {
          while (next < total) {
            const at = next;
            next += size;
            await file.slice(at, at + size).arrayBuffer();
          }
        };
        const t0 = performance.now();
        await Promise.all(Array.from({ length: inFlight }, reader));
        const seconds = (performance.now() - t0) / 1000;
        const perRead = (seconds * 1000 * inFlight) / (total / size);
        out.push(
          `${size >> 10} KB slices, ${inFlight} at once: ${(total / 1e6 / seconds).toFixed(0)} MB/s, ${perRead.toFixed(2)} ms a read`,
        );
      }
    return out;
  });
  console.log(lines.join('\n'));
} finally {
  await browser.close();
}
