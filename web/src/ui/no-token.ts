// The page without a token: what to run to get the link. The same words as the wrong-token banner.
import { fill, h } from './dom';

export function renderNoToken(root: HTMLElement, forgotten: boolean): void {
  fill(root, h('main.no-token', { 'data-testid': 'no-token' },
    h('h1', {}, 'limpet'),
    h('p', {}, 'This page needs the daemon\'s token.'),
    h('p', {}, 'Run ', h('code', {}, 'limpet open'), ' on the machine where the daemon runs: it opens limpet in your browser '
      + 'with its token, or prints the link (', h('code', {}, '…/#token=…'), ') to copy. It is the link the daemon printed when it started.'),
    forgotten
      ? h('p', {}, 'This browser was asked to forget the token ("Forget token"): a link you open is kept for its browser tab only, '
        + 'until you choose "Remember token" on the page.')
      : h('p', {}, 'Once opened with the link, this browser keeps the token, so this plain address (a bookmark) works too.')));
}
