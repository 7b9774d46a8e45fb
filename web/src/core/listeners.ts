// A minimal listener set: subscribe returns the subscription's Disposable; a throwing listener
// does not stop the others.
import { toDisposable, type Disposable } from './disposable';

export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  subscribe(listener: (value: T) => void): Disposable {
    // One Set entry per subscription: the same function subscribed twice is called twice.
    const entry = (value: T) => listener(value);
    this.set.add(entry);
    return toDisposable(() => this.set.delete(entry));
  }

  get size(): number {
    return this.set.size;
  }

  emit(value: T): void {
    for (const listener of [...this.set]) {
      try {
        listener(value);
      } catch (error) {
        console.error('limpet: listener failed', error);
      }
    }
  }

  clear(): void {
    this.set.clear();
  }
}
