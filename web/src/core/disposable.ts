// xterm.js's and VS Code's lifetime rule: whatever subscribes gets a Disposable back, and whoever
// owns a subscription disposes it when it goes. A DisposableStore is one owner's lifetime: the
// disposables it was handed, and an AbortSignal for the DOM listeners it added
// (`addEventListener(type, fn, { signal: store.signal })`); one dispose() ends them all.

/** What a subscription returns (xterm.js's IDisposable). Disposing twice does nothing more. */
export interface Disposable {
  dispose(): void;
}

/** A Disposable that runs `dispose` once. */
export function toDisposable(dispose: () => void): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      dispose();
    },
  };
}

export class DisposableStore implements Disposable {
  private readonly owned = new Set<Disposable>();
  private readonly lifetime = new AbortController();

  /** Aborted by dispose(): DOM listeners added with it are removed then. */
  get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  get isDisposed(): boolean {
    return this.lifetime.signal.aborted;
  }

  /** Keeps `disposable` until dispose(); one added after dispose() is disposed at once. */
  add<T extends Disposable>(disposable: T): T {
    if (this.isDisposed) disposable.dispose();
    else this.owned.add(disposable);
    return disposable;
  }

  dispose(): void {
    if (this.isDisposed) return;
    this.lifetime.abort();
    const owned = [...this.owned];
    this.owned.clear();
    for (const disposable of owned) {
      try {
        disposable.dispose();
      } catch (error) {
        console.error('limpet: dispose failed', error);
      }
    }
  }
}
