// lab.fetchCheckpoint and the stored-models list: hub.js fetches, the store is node's Hub cache or a browser's
// Origin Private File System.
import { fetchCheckpoint as fetchInto } from './hub.js';
import { hubCacheDir, nodeHubStore } from './hub-cache-node.js';
import { deleteStoredModel, listStoredModels, opfsHubStore } from './hub-opfs.js';

const inNode = () => typeof window === 'undefined' && typeof globalThis.process?.versions?.node === 'string';

/**
 * options: endpoint (node: else HF_ENDPOINT), revision, onProgress, signal, fetch; node also cacheDir (else the
 * Hub's: HF_HUB_CACHE, HF_HOME/hub, ~/.cache/huggingface/hub).
 */
export async function fetchCheckpoint(repo, options = {}) {
  const node = inNode();
  const endpoint = options.endpoint ?? (node ? globalThis.process.env.HF_ENDPOINT || undefined : undefined);
  const store = node ? await nodeHubStore(options.cacheDir) : await opfsHubStore();
  return fetchInto(repo, { ...options, endpoint }, store);
}

export const storedCheckpoints = () => (inNode() ? [] : listStoredModels());
export const deleteStoredCheckpoint = (repo) => deleteStoredModel(repo);
export { hubCacheDir };
