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
export const JVM_FLAGS = ['--enable-native-access=ALL-UNNAMED', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];

/** `java FLAGS -jar limpet.jar` as an argv prefix. */
export const limpetCommand = () => [javaBinary(), ...JVM_FLAGS, '-jar', limpetJar()];
