// The hosts lab.fetchCheckpoint fetches from, in one table without dependencies: hub.js, the probe's host menu, the
// page's Content-Security-Policy (scripts/lib/csp.mjs, shipped in the package with this file) and
// docs/checkpoints.md read it.
/**
 * The hosts the lab fetches from: one row per host; `downloads`: where the host redirects weight
 * files (the Hub's download hosts as of 2026; they change, which is why a blocked redirect is named, not hidden).
 */
export const HUB_HOSTS = Object.freeze([
  Object.freeze({
    id: 'huggingface',
    name: 'Hugging Face',
    endpoint: 'https://huggingface.co',
    downloads: Object.freeze(['https://*.hf.co', 'https://*.huggingface.co']),
  }),
  Object.freeze({
    id: 'hf-mirror',
    name: 'hf-mirror.com',
    endpoint: 'https://hf-mirror.com',
    downloads: Object.freeze(['https://*.hf-mirror.com']),
  }),
]);
export const DEFAULT_ENDPOINT = HUB_HOSTS[0].endpoint;

/** The chapter's model and its download size (config.json + tokenizer.json + model.safetensors, as the Hub lists them). */
export const CHAPTER_MODEL = Object.freeze({ repo: 'Qwen/Qwen2.5-0.5B-Instruct', bytes: 988097824 + 7031645 + 659 });
