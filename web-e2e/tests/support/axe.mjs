// axe-core (the pinned npm package) injected into the page: accessibility violations by impact.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

/** Runs axe on the whole page; returns every violation as {impact, id, help, targets}. */
export async function axeViolations(page) {
  // Evaluated by the browser's debugger, not as a <script>: the page's CSP (script-src 'self') refuses inline scripts.
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(readFileSync(AXE, 'utf8'));
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.map((v) => ({ impact: v.impact, id: v.id, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

/** The serious and critical ones, with the others logged for whoever reads the output. */
export async function seriousViolations(page, label) {
  const all = await axeViolations(page);
  for (const v of all.filter((x) => x.impact !== 'serious' && x.impact !== 'critical')) {
    console.log(`axe (${label}): ${v.impact} ${v.id}: ${v.help} at ${v.targets.slice(0, 3).join(', ')}`);
  }
  return all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
