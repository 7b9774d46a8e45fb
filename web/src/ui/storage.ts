// Web Storage that may be missing: a browser with storage disabled throws on `localStorage`
// itself. Then the page keeps things in memory for its lifetime instead of failing to start.
import { MemoryStore, type KeyValueStore } from '../workspace/terminal-port';

export function browserStorage(get: () => Storage): KeyValueStore {
  try {
    const storage = get();
    storage.getItem('limpet.probe');
    return storage;
  } catch {
    return new MemoryStore();
  }
}
