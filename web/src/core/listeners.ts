// A minimal listener set: subscribe returns its own unsubscribe; a throwing listener does not
// stop the others.

export class Listeners<T> {
  private readonly set = new Set<(value: T) => void>();

  subscribe(listener: (value: T) => void): () => void {
    this.set.add(listener);
    return () => this.set.delete(listener);
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
