// Installs the pinned agent CLIs (package-lock.json) into agent-clis/node_modules with `npm ci`
// when that folder is missing or older than the lock file: a project-local prefix, never global.
// Run by .ci/run and by the it module's build before the real-agent suite.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const mtime = (path) => { try { return statSync(path).mtimeMs; } catch { return -1; } };

const lock = mtime(join(root, 'package-lock.json'));
if (lock < 0) {
  console.error('agent-clis: package-lock.json is missing');
  process.exit(1);
}
if (mtime(join(root, 'node_modules', '.package-lock.json')) >= lock
    && ['claude', 'codex', 'gemini'].every((cli) => mtime(join(root, 'node_modules', '.bin', cli)) >= 0)) {
  process.exit(0);
}
console.log('agent-clis: installing the pinned agent CLIs (npm ci)');
const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
