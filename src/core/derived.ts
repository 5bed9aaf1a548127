/**
 * Values derived from one immutable object and owned by it, each made once, on first use, by
 * the module that derives it: the object's own module need not know them, and they live and die
 * with it. Each deriving module keys its value with a symbol of its own, so two never collide.
 */
export class Derived {
  readonly #values = new Map<symbol, unknown>();

  get<T>(key: symbol, make: () => T): T {
    let value = this.#values.get(key) as T | undefined;
    if (value === undefined) {
      value = make();
      this.#values.set(key, value);
    }
    return value;
  }
}
