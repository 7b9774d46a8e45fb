// The opt-in for browser notifications when a session starts waiting for a person. Off
// until a person turns it on; the browser's permission is asked only then (a click), never on
// load. The choice is remembered for the origin.
import type { KeyValueStore } from '../workspace/terminal-port';
import type { WaitingAlert } from '../sessions/waiting-alerts';
import { h } from './dom';
import { icon } from './icons';

const KEY = 'limpet.notify-waiting';

export class NotifyButton {
  readonly element: HTMLButtonElement;
  private on: boolean;

  /**
   * `open`: shows the alert's session (a click on its notification brings the page forward and
   * opens the session in a tab).
   */
  constructor(private readonly store: KeyValueStore, private readonly note: (text: string) => void,
    private readonly open: (alert: WaitingAlert) => void = () => {}) {
    this.on = store.getItem(KEY) === 'on' && NotifyButton.permission() === 'granted';
    this.element = h('button.icon.notify-button', {
      type: 'button', 'data-testid': 'notify-button', onclick: () => void this.toggle(),
    }, icon('bell')) as HTMLButtonElement;
    this.show();
  }

  /**
   * Shows each alert as a browser notification, when turned on and allowed: the session's name and
   * state as the title, the line it waits on as the body. One notification per session (its tag):
   * a newer alert for it replaces the old one.
   */
  notify(alerts: WaitingAlert[]): void {
    if (!this.on || alerts.length === 0 || NotifyButton.permission() !== 'granted') return;
    for (const a of alerts) {
      const notification = new Notification(`${a.name}: ${a.text}`, {
        tag: `limpet-${a.hostKey}-${a.sessionId}`, body: a.waitingLine ?? `${a.name} ${a.text}. Click to open it.`,
      });
      notification.onclick = () => {
        window.focus();
        this.open(a);
        notification.close();
      };
    }
  }

  private async toggle(): Promise<void> {
    if (this.on) {
      this.set(false);
      return;
    }
    if (NotifyButton.permission() === 'unsupported') {
      this.note('This browser cannot show notifications.');
      return;
    }
    const answer = NotifyButton.permission() === 'granted' ? 'granted' : await Notification.requestPermission();
    if (answer !== 'granted') {
      this.note('The browser did not allow notifications; allow them for this page to be told when a session waits.');
      return;
    }
    this.set(true);
    this.note('You will be notified when a session starts waiting for you.');
  }

  private set(on: boolean): void {
    this.on = on;
    this.store.setItem(KEY, on ? 'on' : 'off');
    this.show();
  }

  private show(): void {
    const label = this.on ? 'Notifications on: tell me when a session waits (click to turn off)'
      : 'Notify me when a session starts waiting for me';
    this.element.setAttribute('aria-pressed', String(this.on));
    this.element.setAttribute('aria-label', label);
    this.element.title = label;
  }

  private static permission(): NotificationPermission | 'unsupported' {
    return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
  }
}
