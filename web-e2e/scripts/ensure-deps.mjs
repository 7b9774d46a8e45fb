// Runs `npm ci` when node_modules is missing or older than package-lock.json, so a normal Maven
// build installs the pinned dependencies exactly once and never by hand.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mtime = (path) => { try { return statSync(path).mtimeMs; } catch { return -1; } };

const lock = mtime(join(root, 'package-lock.json'));
const installed = mtime(join(root, 'node_modules', '.package-lock.json'));
if (lock < 0) {
  console.error('limpet-web-e2e: package-lock.json is missing');
  process.exit(1);
}
if (installed >= lock) process.exit(0);

console.log('limpet-web-e2e: installing pinned dependencies (npm ci)');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
