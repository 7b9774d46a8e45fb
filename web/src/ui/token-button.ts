// The top bar's "Forget token" / "Remember token" control: the opt-out of keeping the daemon's
// token in this browser (token.ts), with a note saying what changed.
import { h } from './dom';

/** Whether the browser keeps the token, and changing that. */
export interface TokenControl {
  remembered(): boolean;
  forget(): void;
  remember(): void;
  /** What is kept: the daemon's token (direct, the default) or a pairing's secret (a page served by a relay). */
  kind?: 'token' | 'pairing';
}

export class TokenButton {
  readonly element = h('button.token-button', { type: 'button', 'data-testid': 'token-button' });

  constructor(private readonly control: TokenControl, private readonly note: (text: string) => void) {
    this.element.onclick = () => this.toggle();
    this.render();
  }

  private toggle(): void {
    if (this.control.kind === 'pairing') {
      this.togglePairing();
      return;
    }
    if (this.control.remembered()) {
      this.control.forget();
      this.note('This browser forgot the token. This page stays connected until you close or reload it; '
        + '`limpet open` gives the link again.');
    } else {
      this.control.remember();
      this.note('This browser keeps the token again: the plain address (a bookmark) opens limpet.');
    }
    this.render();
  }

  private togglePairing(): void {
    if (this.control.remembered()) {
      this.control.forget();
      this.note('This tab forgot the pairing. It stays connected until you close or reload it; '
        + 'open the pairing link again (or run `limpet pair` for a new one).');
    } else {
      this.control.remember();
      this.note('This tab keeps the pairing again, until it is closed: a reload reconnects.');
    }
    this.render();
  }

  private render(): void {
    const remembered = this.control.remembered();
    if (this.control.kind === 'pairing') {
      this.element.textContent = remembered ? 'Forget pairing' : 'Keep pairing';
      this.element.title = remembered
        ? 'This tab keeps the pairing\'s secret until it is closed (never in the relay site\'s lasting storage). Forget it now.'
        : 'Keep the pairing\'s secret in this tab until it is closed, so a reload reconnects.';
      return;
    }
    this.element.textContent = remembered ? 'Forget token' : 'Remember token';
    this.element.title = remembered
      ? 'This browser keeps the daemon\'s token, so the plain address (a bookmark) opens limpet. Forget it here.'
      : 'Keep the daemon\'s token in this browser, so the plain address (a bookmark) opens limpet.';
  }
}
