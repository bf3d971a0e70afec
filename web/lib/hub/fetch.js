// lab.fetchCheckpoint and the stored-models list: hub.js fetches, the store is node's Hub cache or a browser's
// Origin Private File System. Each is imported when first called: a page loads the downloader (and its SHA-256
// and SHA-1) only when a reader asks for a model, and a browser never loads the node store.
const inNode = () => typeof window === 'undefined' && typeof globalThis.process?.versions?.node === 'string';

/**
 * options: endpoint (node: else HF_ENDPOINT), revision, onProgress, signal, fetch, token (node: else HF_TOKEN or the
 * Hub's token file; false sends none); node also cacheDir (else the Hub's: HF_HUB_CACHE, HF_HOME/hub,
 * XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub).
 */
export async function fetchCheckpoint(repo, options = {}) {
  const node = inNode();
  const endpoint = options.endpoint ?? (node ? globalThis.process.env.HF_ENDPOINT || undefined : undefined);
  const [{ fetchCheckpoint: fetchInto }, store, token] = await Promise.all([
    import('./hub.js'),
    node
      ? import('./hub-cache-node.js').then(({ nodeHubStore }) => nodeHubStore(options.cacheDir))
      : import('./hub-opfs.js').then(({ opfsHubStore }) => opfsHubStore()),
    options.token === false
      ? null
      : (options.token ?? (node ? import('./hub-cache-node.js').then(({ hubToken }) => hubToken()) : null)),
  ]);
  return fetchInto(repo, { ...options, endpoint, token }, store);
}

export const storedCheckpoints = async () => (inNode() ? [] : (await import('./hub-opfs.js')).listStoredModels());
export const deleteStoredCheckpoint = async (repo) => (await import('./hub-opfs.js')).deleteStoredModel(repo);
/** node: the Hub cache folder of `env` (HF_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub). */
export const hubCacheDir = async (env) => (await import('./hub-cache-node.js')).hubCacheDir(env);
/** node: the access token huggingface_hub would send (HF_TOKEN, HF_TOKEN_PATH, HF_HOME/token), or null. */
export const hubToken = async (env) => (await import('./hub-cache-node.js')).hubToken(env);
