import { statSync } from 'node:fs';
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

/**
 * The JVM flags of every limpet process a test starts, before `-jar`: those of the launcher's
 * client verbs (serial collector, the C1 compiler only). A test's daemon lives seconds to a minute,
 * where the C2 compiler and G1's threads cost CPU the two-core machine needs for the rest.
 */
export const BASE_JVM_FLAGS = ['--enable-native-access=ALL-UNNAMED', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];

/**
 * The AOT cache `name` beside the jar under test, as flags, when it is newer than the jar (a cache
 * is right only for the jar it was trained with): run-tests.mjs trains them for its copy of the jar,
 * so a test's verbs and daemons start as a person's do, on about half the CPU.
 */
function cacheFlags(name) {
  const cache = join(dirname(limpetJar()), name);
  try {
    if (statSync(cache).mtimeMs > statSync(limpetJar()).mtimeMs) {
      return [`-XX:AOTCache=${cache}`, '-Xlog:aot=off', '-Xlog:cds=off'];
    }
  } catch {
    // no cache: the JDK's own class data sharing
  }
  return [];
}

/** Flags of client verbs and relays (the verbs' cache). */
export const JVM_FLAGS = [...BASE_JVM_FLAGS, ...cacheFlags('limpet-cli.aot')];
/** Flags of a test's daemon (the daemon's cache). */
export const DAEMON_JVM_FLAGS = [...BASE_JVM_FLAGS, ...cacheFlags('limpet-daemon.aot')];

/** `java FLAGS -jar limpet.jar` as an argv prefix. */
export const limpetCommand = () => [javaBinary(), ...JVM_FLAGS, '-jar', limpetJar()];
