/**
 * An EventTarget that counts the listeners it holds (one added with a signal goes when the signal
 * aborts, as a browser's does): what a component leaves behind after dispose() is `listeners`.
 */
export class CountingTarget extends EventTarget {
  private readonly held: { type: string; listener: EventListenerOrEventListenerObject; capture: boolean }[] = [];

  get listeners(): number {
    return this.held.length;
  }

  override addEventListener(type: string, listener: EventListenerOrEventListenerObject | null,
    options?: AddEventListenerOptions | boolean): void {
    super.addEventListener(type, listener, options);
    const signal = typeof options === 'object' ? options.signal : undefined;
    if (!listener || signal?.aborted) return;
    const entry = { type, listener, capture: typeof options === 'boolean' ? options : !!options?.capture };
    if (this.held.some((e) => e.type === type && e.listener === listener && e.capture === entry.capture)) return;
    this.held.push(entry);
    signal?.addEventListener('abort', () => this.forget(entry), { once: true });
  }

  override removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null,
    options?: EventListenerOptions | boolean): void {
    super.removeEventListener(type, listener, options);
    const capture = typeof options === 'boolean' ? options : !!options?.capture;
    const entry = this.held.find((e) => e.type === type && e.listener === listener && e.capture === capture);
    if (entry) this.forget(entry);
  }

  private forget(entry: CountingTarget['held'][number]): void {
    const i = this.held.indexOf(entry);
    if (i >= 0) this.held.splice(i, 1);
  }
}
