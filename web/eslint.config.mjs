// A rule the compiler cannot keep, checked by `npm test` (and so by the Maven build):
//
// Layering. src/ is layered core ← protocol ← client ← sessions ← workspace ← ui: a module may
// import its own layer and the ones to its left, never one to its right; main.ts, the composition
// root, may import them all. xterm.js belongs to ui alone.
import tsParser from '@typescript-eslint/parser';

const LAYERS = ['core', 'protocol', 'client', 'sessions', 'workspace', 'ui'];

/** A relative import of any of `dirs` (src/ is flat: one folder per layer). */
const importOf = (dirs) => `^\\.{1,2}/(?:.*/)?(?:${dirs.join('|')})(?:/|$)`;

const layerRules = LAYERS.map((layer, i) => {
  const above = [...LAYERS.slice(i + 1), 'main'];
  const patterns = [{
    regex: importOf(above),
    message: `${layer}/ is below ${above.join(', ')} (web/eslint.config.mjs): move what both need down, or turn the call around with a callback`,
  }];
  if (layer !== 'ui') patterns.push({ regex: '^@xterm/', message: 'xterm.js is ui/\'s alone: the layers below talk to a terminal through workspace/terminal-port.ts' });
  return { files: [`src/${layer}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } };
});

export default [
  {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: 'module' },
    linterOptions: { noInlineConfig: true },
    rules: {
      'no-restricted-syntax': ['error',
        { selector: 'ImportExpression', message: 'no dynamic import(): the layering rule sees static imports only' },
      ],
    },
  },
  ...layerRules,
];
