// lab.fetchCheckpoint(repo, options): a checkpoint fetched from the Hugging Face Hub or a mirror into local storage
// (node: the Hub's own cache, hub-cache-node.js; a browser: the Origin Private File System, hub-opfs.js), resumed
// with HTTP Range after a dropped connection, every file verified as its bytes arrive, and returned as what
// lab.openCheckpoint takes. The page only downloads, and only when the reader asks.
//
// The Hub's conventions followed (as huggingface_hub keeps them):
//   GET {endpoint}/api/models/{repo}/revision/{revision}?blobs=true  -> { sha: commit, siblings: [{ rfilename,
//       size, blobId (git object id), lfs?: { sha256, size } }] }: the commit, every size (so storage is checked
//       before the first byte) and every file's hash, without following a redirect (a browser cannot read the
//       X-Linked-Etag of a 302 it followed).
//   GET {endpoint}/{repo}/resolve/{commit}/{file}  -> the file; weights (LFS) by a 302 to a download host.
//   A blob is named by its ETag: the SHA-256 for an LFS file, the git object id for the others.
import { sha256 } from '@noble/hashes/sha2.js';
import { sha1 } from '@noble/hashes/legacy.js';
import { ResidualLabError } from '../errors.js';

export { CHAPTER_MODEL, DEFAULT_ENDPOINT, HUB_HOSTS } from './hub-hosts.js';
import { DEFAULT_ENDPOINT } from './hub-hosts.js';
import { checkEndpoint, checkRepoId, checkRevision, checkToken } from './hub-checks.js';
import { fail, network } from './hub-network.js';

export { checkEndpoint, checkRepoId, checkToken };

// The files fetched: the model's config, its tokenizer (optional: the probe runs ids without it), and the weights,
// one file or an index and its shards.
const CONFIG = 'config.json';
const TOKENIZER = 'tokenizer.json';
const SINGLE = 'model.safetensors';
const INDEX = 'model.safetensors.index.json';

const MAX_ATTEMPTS = 5; // consecutive failed requests of one file without a byte of progress

const encodePath = (path) => path.split('/').map(encodeURIComponent).join('/');

/**
 * Fetches `repo` into `store` and returns { repo, revision, commit, endpoint, bytes, fetched, files }, files
 * being what lab.openCheckpoint takes. A model the store already holds for this revision is returned with no
 * request at all. options: endpoint, revision ('main'), onProgress({ file, loaded, total }) (bytes of every file
 * fetched so far, of all the files), signal (an AbortSignal: a cancel keeps the partial file for a resume), fetch,
 * token (a Hugging Face access token, sent as `Authorization: Bearer` to the endpoint's origin alone), file (a
 * .gguf of the repo, fetched alone, or with the rest of its split set NAME-0000i-of-0000N.gguf).
 */
export async function fetchCheckpoint(repo, options, store) {
  checkRepoId(repo);
  const revision = checkRevision(options.revision ?? 'main');
  const endpoint = checkEndpoint(options.endpoint ?? DEFAULT_ENDPOINT);
  const token = checkToken(options.token);
  const { signal, onProgress } = options;
  signal?.throwIfAborted();

  const gguf = options.file;
  if (gguf !== undefined && (typeof gguf !== 'string' || !gguf.endsWith('.gguf')))
    throw fail('invalid_input', `options.file must name a .gguf file of ${repo}, is ${JSON.stringify(gguf)}`);
  const stored = await store.snapshot(repo, revision, gguf);
  if (stored && !gguf) return { repo, revision, endpoint, fetched: false, ...stored };
  if (stored && gguf) {
    // the snapshot may hold other files of the repo: the set asked for, if all there
    const names = ggufSet(repo, gguf, new Map(Object.keys(stored.files).map((n) => [n, n])), false);
    if (names)
      return {
        repo,
        revision,
        endpoint,
        fetched: false,
        ...stored,
        files: Object.fromEntries(names.map((n) => [n, stored.files[n]])),
      };
  }

  const net = network(options.fetch ?? globalThis.fetch, signal, endpoint, token);
  const info = await net.json(
    `${endpoint}/api/models/${encodePath(repo)}/revision/${encodeURIComponent(revision)}?blobs=true`,
    repo,
  );
  const commit = info?.sha;
  if (typeof commit !== 'string' || !/^[0-9a-f]{40}$/.test(commit) || !Array.isArray(info.siblings))
    throw fail('bad_response', `${new URL(endpoint).host} answered for ${repo} without a commit and a file list`);
  const listed = new Map(info.siblings.map((s) => [s.rfilename, s]));
  if (!gguf && !listed.has(CONFIG))
    throw fail('not_found', `${repo} has no config.json: it is not a transformers model`);

  const wanted = gguf ? ggufSet(repo, gguf, listed) : [CONFIG];
  if (!gguf && listed.has(TOKENIZER)) wanted.push(TOKENIZER);
  let index = null;
  if (gguf) {
    // a GGUF holds its config and tokenizer
  } else if (listed.has(INDEX)) {
    wanted.push(INDEX);
  } else if (listed.has(SINGLE)) {
    wanted.push(SINGLE);
  } else {
    throw fail('not_found', `${repo} has no model.safetensors (nor an index of shards): nothing the lab can read`);
  }
  const file = (name) => {
    const s = listed.get(name);
    if (!s) throw fail('not_found', `${repo} names ${name} in its index, but the file is not there`);
    const size = s.lfs?.size ?? s.size;
    const key = s.lfs?.sha256 ?? s.blobId;
    if (!Number.isSafeInteger(size) || typeof key !== 'string' || !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(key))
      throw fail('bad_response', `${new URL(endpoint).host} listed ${name} without its size and hash`);
    return { name, size, key, lfs: Boolean(s.lfs) };
  };
  let plan = wanted.map(file);
  const progress = { loaded: 0, total: plan.reduce((sum, f) => sum + f.size, 0) };
  const report = (name) => onProgress?.({ file: name, loaded: progress.loaded, total: progress.total });
  await store.reserve(repo, plan, progress.total);

  const resolve = (name) => `${endpoint}/${encodePath(repo)}/resolve/${commit}/${encodePath(name)}`;
  const fetchOne = async (f) => {
    await download(net, store, repo, f, resolve(f.name), (n) => {
      progress.loaded += n;
      report(f.name);
    });
  };
  for (const f of plan) await fetchOne(f);
  if (plan.some((f) => f.name === INDEX)) {
    index = JSON.parse(new TextDecoder().decode(await store.readBlob(repo, plan.find((f) => f.name === INDEX).key)));
    const shards = [...new Set(Object.values(index?.weight_map ?? {}))].sort();
    if (!shards.length) throw fail('bad_response', `${repo}'s ${INDEX} names no shards`);
    const more = shards.map(file);
    progress.total += more.reduce((sum, f) => sum + f.size, 0);
    await store.reserve(
      repo,
      more,
      more.reduce((sum, f) => sum + f.size, 0),
    );
    for (const f of more) await fetchOne(f);
    plan = plan.concat(more);
  }
  const files = await store.link(repo, revision, commit, plan, { endpoint });
  return { repo, revision, endpoint, commit, bytes: progress.total, fetched: true, files };
}

/**
 * `name` and, for the first of a split set, the rest of it, all of which `listed` must hold; else not_found (or
 * null when `required` is false).
 */
export function ggufSet(repo, name, listed, required = true) {
  const split = /^(.*)-00001-of-(\d{5})\.gguf$/.exec(name);
  const names = split
    ? Array.from(
        { length: Number(split[2]) },
        (_, i) => `${split[1]}-${String(i + 1).padStart(5, '0')}-of-${split[2]}.gguf`,
      )
    : [name];
  const absent = names.filter((n) => !listed.has(n));
  if (!absent.length) return names;
  if (!required) return null;
  throw fail('not_found', `${repo} has no ${absent.join(', ')}`);
}

/**
 * One file into the store: resumed from the bytes a partial file already has (hashed again from storage first, so
 * the hash covers every byte), Range requests after a dropped connection, the hash checked at the end.
 */
async function download(net, store, repo, f, url, onBytes) {
  if (await store.hasBlob(repo, f.key, f.size)) {
    onBytes(f.size);
    return;
  }
  // LFS files: SHA-256 of the bytes. Others: the git object id, SHA-1 of "blob <size>\0" + the bytes.
  const newHash = () => {
    const h = f.lfs ? sha256.create() : sha1.create();
    if (!f.lfs) h.update(new TextEncoder().encode(`blob ${f.size}\0`));
    return h;
  };
  const partial = await store.partial(repo, f.key);
  let hash = newHash();
  let offset = 0;
  try {
    for await (const chunk of partial.existing()) {
      hash.update(chunk);
      offset += chunk.length;
    }
    if (offset > f.size) {
      await partial.truncate();
      hash = newHash();
      offset = 0;
    }
    onBytes(offset);
    let failures = 0;
    while (offset < f.size) {
      const headers = offset > 0 ? { range: `bytes=${offset}-` } : {};
      const response = await net.request(url, { headers }, 'download', repo);
      if (response.status === 416) {
        await partial.truncate();
        onBytes(-offset);
        hash = newHash();
        offset = 0;
        continue;
      }
      if (offset > 0 && response.status !== 206) {
        // the host ignored the range: start over
        await partial.truncate();
        onBytes(-offset);
        hash = newHash();
        offset = 0;
      }
      const before = offset;
      try {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const chunk = offset + value.length > f.size ? value.subarray(0, f.size - offset) : value;
          await partial.write(chunk);
          hash.update(chunk);
          offset += chunk.length;
          onBytes(chunk.length);
          if (offset >= f.size) {
            reader.cancel().catch(() => {});
            break;
          }
        }
      } catch (error) {
        if (net.signal?.aborted || error instanceof ResidualLabError) throw error;
        if (error?.name === 'AbortError') throw error;
      }
      failures = offset > before ? 0 : failures + 1;
      if (offset < f.size && failures >= MAX_ATTEMPTS)
        throw fail(
          'offline',
          `the download of ${f.name} stopped at byte ${offset} of ${f.size} ${MAX_ATTEMPTS} times in a row; fetch again to resume`,
        );
    }
    const got = Array.from(hash.digest(), (b) => b.toString(16).padStart(2, '0')).join('');
    if (got !== f.key) {
      await partial.discard();
      throw fail(
        'hash_mismatch',
        `${f.name} arrived with SHA-${f.lfs ? '256' : '1'} ${got}, not the ${f.key} the Hub lists: ` +
          'the download was corrupted or the host changed the file; it was deleted, fetch again',
      );
    }
    await partial.commit();
  } catch (error) {
    await partial.close();
    if (error?.name === 'AbortError' || (error?.code === undefined && error?.name === 'TimeoutError'))
      throw fail('cancelled', 'the download was cancelled; fetching the model again resumes it');
    throw error;
  }
}
