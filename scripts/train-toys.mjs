// npm run train-toys: builds the native exporter, trains the toy decoders into web/models/ and records every
// shipped file's SHA-256 in web/models/SHA256SUMS (the format `sha256sum -c` reads).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const build = join(root, 'build/native');
const out = join(root, 'web/models');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

run('cmake', ['-S', root, '-B', build, '-DCMAKE_BUILD_TYPE=Release']);
run('cmake', ['--build', build, '-j2', '--target', 'train_toys']);
run(join(build, 'train_toys'), [out]);

function listFiles(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? listFiles(path) : [path];
    });
}

const lines = listFiles(out)
  .filter((f) => !f.endsWith('SHA256SUMS'))
  .map((f) => `${createHash('sha256').update(readFileSync(f)).digest('hex')}  ${relative(out, f)}`);
writeFileSync(join(out, 'SHA256SUMS'), `${lines.join('\n')}\n`);
console.log(`train-toys: ${lines.length} files in ${relative(root, out)}, hashes in web/models/SHA256SUMS`);
