// Runs every tests/*.test.mjs with node's test runner, two files at a time: each file starts its
// own daemon (on a port of its own) and browser and spends most of its time waiting on them, so one
// file at a time left half a core idle. Fails early and clearly when a prerequisite is missing.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_JVM_FLAGS, chromiumPath, javaBinary, limpetJar } from '../tests/support/paths.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const [what, path, hint] of [
  ['Chromium', chromiumPath(), 'install the Debian package `chromium` (apt-get install chromium) or set LIMPET_CHROMIUM'],
  ['the limpet jar', limpetJar(), 'build it first (./limpet build, or mvn install -pl app -am)'],
]) {
  if (!existsSync(path)) {
    console.error(`limpet-web-e2e: ${what} not found at ${path}: ${hint}`);
    process.exit(1);
  }
}
// Test a private copy of the jar: a build running elsewhere in the checkout may rewrite the
// original while the daemon is restarted mid-suite. Copy once the file has stopped changing.
const waitUntilStable = () => {
  for (let i = 0; i < 60; i++) {
    const before = statSync(limpetJar());
    spawnSync('sleep', ['1']);
    const after = statSync(limpetJar());
    if (before.size === after.size && before.mtimeMs === after.mtimeMs) return;
  }
};
waitUntilStable();
mkdirSync(join(root, 'target'), { recursive: true });
const jarCopy = join(root, 'target', 'limpet-under-test.jar');
copyFileSync(limpetJar(), jarCopy);
// The copy's start-up caches, as ./limpet and `limpet install` train them: the tests' daemons and
// verbs start from them (support/paths.mjs), on about half the CPU. Without them the tests still
// run, only slower, and this says so.
const training = spawnSync(javaBinary(), [...BASE_JVM_FLAGS, '-jar', jarCopy, 'train-caches'], { cwd: root, stdio: 'inherit' });
if (training.status !== 0) {
  console.error(`limpet-web-e2e: training the start-up caches failed (exit ${training.status}): the tests run without them`);
}

const only = process.argv.slice(2);
const files = readdirSync(join(root, 'tests'))
  .filter((f) => f.endsWith('.test.mjs') && (only.length === 0 || only.some((o) => f.includes(o))))
  .sort()
  .map((f) => join('tests', f));
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
  cwd: root, stdio: 'inherit', env: { ...process.env, LIMPET_JAR: jarCopy },
});
process.exit(result.status ?? 1);
