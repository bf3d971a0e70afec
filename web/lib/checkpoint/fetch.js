// lab.fetchCheckpoint and the stored-models list: hub.js fetches, the store is node's Hub cache or a browser's
// Origin Private File System. Each is imported when first called: a page loads the downloader (and its SHA-256
// and SHA-1) only when a reader asks for a model, and a browser never loads the node store.
const inNode = () => typeof window === 'undefined' && typeof globalThis.process?.versions?.node === 'string';

/**
 * options: endpoint (node: else HF_ENDPOINT), revision, onProgress, signal, fetch; node also cacheDir (else the
 * Hub's: HF_HUB_CACHE, HF_HOME/hub, ~/.cache/huggingface/hub).
 */
export async function fetchCheckpoint(repo, options = {}) {
  const node = inNode();
  const endpoint = options.endpoint ?? (node ? globalThis.process.env.HF_ENDPOINT || undefined : undefined);
  const [{ fetchCheckpoint: fetchInto }, store] = await Promise.all([
    import('./hub.js'),
    node
      ? import('./hub-cache-node.js').then(({ nodeHubStore }) => nodeHubStore(options.cacheDir))
      : import('./hub-opfs.js').then(({ opfsHubStore }) => opfsHubStore()),
  ]);
  return fetchInto(repo, { ...options, endpoint }, store);
}

export const storedCheckpoints = async () => (inNode() ? [] : (await import('./hub-opfs.js')).listStoredModels());
export const deleteStoredCheckpoint = async (repo) => (await import('./hub-opfs.js')).deleteStoredModel(repo);
/** node: the Hub cache folder of `env` (HF_HUB_CACHE, HF_HOME/hub, ~/.cache/huggingface/hub). */
export const hubCacheDir = async (env) => (await import('./hub-cache-node.js')).hubCacheDir(env);
