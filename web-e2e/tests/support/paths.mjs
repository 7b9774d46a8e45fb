import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const moduleRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const repoRoot = resolve(moduleRoot, '..');

export const chromiumPath = () => process.env.LIMPET_CHROMIUM ?? '/usr/bin/chromium';
export const limpetJar = () => process.env.LIMPET_JAR ?? join(repoRoot, 'app', 'target', 'limpet.jar');
export const screenshotDir = () => process.env.LIMPET_SCREENSHOTS ?? join(moduleRoot, 'target', 'screenshots');

/** A JDK >= 25 for the daemon: LIMPET_JAVA (Maven passes its own), JAVA_HOME, or Temurin 25. */
export function javaBinary() {
  if (process.env.LIMPET_JAVA) return process.env.LIMPET_JAVA;
  return join(process.env.JAVA_HOME ?? '/usr/lib/jvm/temurin-25-jdk-amd64', 'bin', 'java');
}
