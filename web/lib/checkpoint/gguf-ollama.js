// `ollama:NAME[:TAG]` in node: ollama keeps a model as a manifest (JSON, under
//   $OLLAMA_MODELS or ~/.ollama/models, manifests/registry.ollama.ai/<namespace, default library>/<name>/<tag>)
// whose layer of mediaType application/vnd.ollama.image.model names a GGUF blob, blobs/sha256-<hex>.
import { ResidualLabError } from '../errors.js';
import { importNodeModule } from '../node-module.js';

const MODEL_LAYER = 'application/vnd.ollama.image.model';
const missing = (message) => new ResidualLabError(message, { code: 'missing_file' });

/** The files of `ollama:NAME[:TAG]`: { 'model.gguf': path of its blob }. */
export async function ollamaFiles(reference, env = globalThis.process?.env ?? {}) {
  const { join } = await importNodeModule('node:path');
  const { homedir } = await importNodeModule('node:os');
  const { readFile } = await importNodeModule('node:fs/promises');
  const spec = reference.slice('ollama:'.length);
  const [path, tag = 'latest'] = spec.split(':');
  if (!path || !/^[\w.-]+(\/[\w.-]+)?$/.test(path) || !/^[\w.-]+$/.test(tag))
    throw new ResidualLabError(`${reference}: give ollama:NAME or ollama:NAME:TAG (as \`ollama list\` shows it)`, {
      code: 'invalid_input',
    });
  const root = env.OLLAMA_MODELS || join(homedir(), '.ollama', 'models');
  const [namespace, name] = path.includes('/') ? path.split('/') : ['library', path];
  const manifestPath = join(root, 'manifests', 'registry.ollama.ai', namespace, name, tag);
  let manifest;
  try {
    manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  } catch (error) {
    throw missing(
      `${reference}: no ollama manifest at ${manifestPath} (${error.code ?? error.message}); set OLLAMA_MODELS to ollama's models folder`,
    );
  }
  const layer = manifest?.layers?.find((l) => l?.mediaType === MODEL_LAYER);
  if (!layer || !/^sha256:[0-9a-f]{64}$/.test(layer.digest ?? ''))
    throw missing(`${reference}: the manifest ${manifestPath} names no model layer`);
  return { 'model.gguf': join(root, 'blobs', layer.digest.replace(':', '-')) };
}
