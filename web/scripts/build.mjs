// Bundles the UI into one folder the daemon serves at `/`:
//   node scripts/build.mjs [--outdir DIR]   (default: target/classes/limpet-web)
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const flag = process.argv.indexOf('--outdir');
const outdir = resolve(flag >= 0 ? process.argv[flag + 1] : join(root, 'target', 'classes', 'limpet-web'));

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const started = Date.now();
await esbuild.build({
  absWorkingDir: root,
  entryPoints: { app: 'src/main.ts', style: 'src/style.css' },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  outdir,
  legalComments: 'linked',
  logLevel: 'warning',
});
// The worker that holds the page's sockets: a classic worker script (no module syntax), so any
// browser that runs the page starts it.
await esbuild.build({
  absWorkingDir: root,
  entryPoints: { 'socket-worker': 'src/socket-worker.ts' },
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2022'],
  outdir,
  legalComments: 'linked',
  logLevel: 'warning',
});
copyFileSync(join(root, 'src', 'index.html'), join(outdir, 'index.html'));
console.log(`limpet-web: bundled into ${outdir} in ${Date.now() - started} ms`);
