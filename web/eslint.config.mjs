// Two rules the compiler cannot keep, checked by `npm test` (and so by the Maven build):
//
// Layering. src/ is layered core ← protocol ← client ← sessions ← workspace ← ui: a module may
// import its own layer and the ones to its left, never one to its right; main.ts, the composition
// root, may import them all. xterm.js belongs to ui alone.
//
// Lifetimes (xterm.js's and VS Code's rule): every on*/subscribe returns a Disposable, and whatever
// subscribes is unsubscribed when its owner goes. An addEventListener call passes its owner's
// AbortSignal (`{ signal }`, core/disposable.ts), so one abort() removes every listener the owner
// added and removeEventListener is never needed; a listener that lives exactly as long as its
// element is the element's own handler property (`onclick`). No inline eslint-disable: no exceptions.
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

/**
 * `addEventListener(...)` or `x.addEventListener(...)` whose arguments hold no object literal with a
 * `signal` (nested :has because esquery 1.7 matches nothing for `:has(> A > B)`).
 */
const unownedListener = ':matches(CallExpression[callee.name="addEventListener"], CallExpression[callee.property.name="addEventListener"])'
  + ':not(:has(> ObjectExpression:has(> Property[key.name="signal"])))';

export default [
  {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: 'module' },
    linterOptions: { noInlineConfig: true },
    rules: {
      'no-restricted-syntax': ['error',
        { selector: unownedListener, message: 'pass the owner\'s AbortSignal ({ signal }) so its dispose() removes this listener, or use the element\'s own on* property' },
        { selector: 'CallExpression[callee.property.name="removeEventListener"]', message: 'add the listener with its owner\'s AbortSignal and abort() it instead' },
        { selector: 'ImportExpression', message: 'no dynamic import(): the layering rule sees static imports only' },
      ],
    },
  },
  ...layerRules,
];
