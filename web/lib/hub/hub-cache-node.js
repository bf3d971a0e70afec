// node's store for lab.fetchCheckpoint: the Hugging Face Hub's own cache, so a model `hf download` or transformers
// fetched opens with no network, and one the lab fetched is theirs too:
//   <cache>/models--<org>--<name>/blobs/<etag>               the file (etag: SHA-256 for LFS, else git object id)
//   <cache>/models--<org>--<name>/blobs/<etag>.incomplete    a partial download, resumed from its length
//   <cache>/models--<org>--<name>/snapshots/<commit>/<file>  a relative symlink to ../../blobs/<etag>
//   <cache>/models--<org>--<name>/refs/<revision>            the commit the revision resolved to
// <cache>: options.cacheDir, else HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub.
import { ResidualLabError } from '../errors.js';
import { importNodeModule } from '../node-module.js';

const WEIGHTS = 'model.safetensors';
const INDEX = 'model.safetensors.index.json';
const CHUNK = 1 << 22;

/** The Hub's cache folder, from the Hub client's variables. */
export async function hubCacheDir(env = globalThis.process?.env ?? {}) {
  const { homedir } = await importNodeModule('node:os');
  const { join } = await importNodeModule('node:path');
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface', 'hub');
}

/**
 * The access token as huggingface_hub finds it: HF_TOKEN, else the file HF_TOKEN_PATH, else HF_HOME/token (HF_HOME:
 * else XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface), the file `hf auth login` writes; null when none.
 */
export async function hubToken(env = globalThis.process?.env ?? {}) {
  if (env.HF_TOKEN?.trim()) return env.HF_TOKEN.trim();
  const { homedir } = await importNodeModule('node:os');
  const { join } = await importNodeModule('node:path');
  const { readFile } = await importNodeModule('node:fs/promises');
  const home = env.HF_HOME || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface');
  const token = await readFile(env.HF_TOKEN_PATH || join(home, 'token'), 'utf8').catch(() => '');
  return token.trim() || null;
}

export async function nodeHubStore(cacheDir) {
  const fs = await importNodeModule('node:fs/promises');
  const { openAsBlob } = await importNodeModule('node:fs');
  const path = await importNodeModule('node:path');
  const { join, dirname, relative } = path;
  const root = cacheDir ?? (await hubCacheDir());
  const repoDir = (repo) => join(root, `models--${repo.replace('/', '--')}`);
  const blob = (repo, key) => join(repoDir(repo), 'blobs', key);
  const storageError = (error) =>
    error?.code === 'ENOSPC' || error?.code === 'EDQUOT'
      ? new ResidualLabError(`the disk holding ${root} is full; free space or set HF_HUB_CACHE to another disk`, {
          code: 'storage_full',
        })
      : error;

  /** The files of a snapshot as lab.openCheckpoint takes them: JSON as disk-backed Blobs, weights as paths. */
  const filesOf = async (dir, names) => {
    const files = {};
    for (const name of names)
      files[name] =
        name.endsWith('.safetensors') || name.endsWith('.gguf') ? join(dir, name) : await openAsBlob(join(dir, name));
    return files;
  };

  return {
    root,
    /** file: a .gguf asked for (hub.js then picks its set from the files). */
    async snapshot(repo, revision, file) {
      let commit = revision;
      if (!/^[0-9a-f]{40}$/.test(revision)) {
        try {
          commit = (await fs.readFile(join(repoDir(repo), 'refs', revision), 'utf8')).trim();
        } catch {
          return null;
        }
      }
      const dir = join(repoDir(repo), 'snapshots', commit);
      const names = await (file ? ggufNames(fs, dir) : checkpointNames(fs, path, dir));
      if (!names) return null;
      let bytes = 0;
      for (const name of names) bytes += (await fs.stat(join(dir, name))).size;
      return { commit, bytes, files: await filesOf(dir, names) };
    },
    async reserve() {
      // a disk has no quota to ask; a full one is told by ENOSPC as the bytes are written (storage_full)
    },
    hasBlob: async (repo, key, size) => (await fs.stat(blob(repo, key)).catch(() => null))?.size === size,
    readBlob: (repo, key) => fs.readFile(blob(repo, key)),
    partial: async (repo, key) => partialFile(fs, dirname, blob(repo, key), storageError),
    async link(repo, revision, commit, plan) {
      const dir = join(repoDir(repo), 'snapshots', commit);
      for (const f of plan) {
        const at = join(dir, f.name);
        await fs.mkdir(dirname(at), { recursive: true });
        await fs.rm(at, { force: true });
        await fs.symlink(relative(dirname(at), blob(repo, f.key)), at);
      }
      if (revision !== commit) {
        const ref = join(repoDir(repo), 'refs', revision);
        await fs.mkdir(dirname(ref), { recursive: true });
        await fs.writeFile(ref, commit);
      }
      return filesOf(
        dir,
        plan.map((f) => f.name),
      );
    },
  };
}

/** The .gguf files of a snapshot folder, or null when it has none. */
async function ggufNames(fs, dir) {
  const names = (await fs.readdir(dir).catch(() => [])).filter((n) => n.endsWith('.gguf'));
  return names.length ? names : null;
}

/**
 * The files of a transformers checkpoint in a snapshot folder: config.json, tokenizer.json when there, and the
 * weights (model.safetensors, or the index and every shard it names); null when any of them is missing.
 */
async function checkpointNames(fs, { join }, dir) {
  const exists = (path) =>
    fs.stat(path).then(
      (s) => s.isFile(),
      () => false,
    );
  if (!(await exists(join(dir, 'config.json')))) return null;
  const names = ['config.json'];
  if (await exists(join(dir, 'tokenizer.json'))) names.push('tokenizer.json');
  if (await exists(join(dir, INDEX))) {
    let shards;
    try {
      shards = [...new Set(Object.values(JSON.parse(await fs.readFile(join(dir, INDEX), 'utf8')).weight_map))];
    } catch {
      return null;
    }
    for (const shard of shards) if (!(await exists(join(dir, shard)))) return null;
    names.push(INDEX, ...shards.sort());
  } else if (await exists(join(dir, WEIGHTS))) {
    names.push(WEIGHTS);
  } else {
    return null;
  }
  return names;
}

/**
 * A partial download, `<blob>.incomplete`, renamed to `blob` by commit(). Nothing is created until the first byte
 * arrives: a refused download leaves no file and no folder behind. Write errors pass through `storageError`.
 */
function partialFile(fs, dirname, blob, storageError) {
  const path = `${blob}.incomplete`;
  let handle = null;
  const writer = async () => {
    if (!handle) {
      await fs.mkdir(dirname(path), { recursive: true });
      handle = await fs.open(path, 'a');
    }
    return handle;
  };
  const close = async () => {
    const h = handle;
    handle = null;
    await h?.close().catch(() => {});
  };
  return {
    async *existing() {
      const reading = await fs.open(path, 'r').catch(() => null);
      if (!reading) return;
      try {
        const { size } = await reading.stat();
        const buffer = new Uint8Array(Math.min(CHUNK, size));
        for (let at = 0; at < size;) {
          const { bytesRead } = await reading.read(buffer, 0, Math.min(CHUNK, size - at), at);
          if (bytesRead === 0) break;
          yield buffer.subarray(0, bytesRead);
          at += bytesRead;
        }
      } finally {
        await reading.close();
      }
    },
    truncate: async () => (handle ? handle.truncate(0) : fs.truncate(path, 0).catch(() => {})),
    write: async (chunk) => (await writer()).write(chunk).catch((error) => Promise.reject(storageError(error))),
    close,
    async discard() {
      await close();
      await fs.rm(path, { force: true });
    },
    async commit() {
      await writer(); // an empty file has had no write
      await close();
      await fs.rename(path, blob);
    },
  };
}
