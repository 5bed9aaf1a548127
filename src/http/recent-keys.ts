/**
 * Which keys were asked recently, remembered lossily (a "doorkeeper", as in TinyLFU). An answer
 * cache admits an answer only on its key's second request within about the last `slots` distinct
 * keys: an answer asked once — a crawler walking every town, an agent varying its dates — would
 * only push out answers that are asked again, and keep the collector busy with buffers that live
 * just long enough to be promoted. Measured on 6,000 distinct searches at a fixed 6,000
 * requests/s: about a quarter of the server's CPU per request.
 *
 * The keys are held as two generations of a Bloom filter, each taking `slots / 2` new keys before
 * the older one is dropped: a key is recognised while fewer than `slots / 2` other keys came after
 * it, and forgotten once `slots` have. Bloom filters lose nothing to collisions (a table holding one
 * hash a slot forgot a key whenever another took its slot, so two keys asked in turn whose slots
 * met were never recognised); they may recognise a key never asked, about once in a hundred at
 * most (three probes, 16 bits a key), which only admits an answer early.
 */
export class RecentKeys {
  #current: Int32Array;
  #previous: Int32Array;
  /** Bits per generation, minus one (a power of two). */
  readonly #mask: number;
  readonly #perGeneration: number;
  #added = 0;

  /** `slots`: how many distinct keys it remembers at most. */
  constructor(slots: number) {
    this.#perGeneration = Math.max(1, Math.ceil(slots / 2));
    const bits = 2 ** Math.ceil(Math.log2(16 * this.#perGeneration));
    this.#current = new Int32Array(Math.max(1, bits >>> 5));
    this.#previous = new Int32Array(this.#current.length);
    this.#mask = Math.max(32, bits) - 1;
  }

  /** Records `key` and says whether it was recorded before (and not forgotten since). */
  seenBefore(key: string): boolean {
    // FNV-1a, 32 bits, and a second hash from it for the probes' stride (double hashing).
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    const step = (Math.imul(h ^ (h >>> 16), 0x85ebca6b) ^ (h >>> 13)) | 1;
    const a = h & this.#mask;
    const b = (h + step) & this.#mask;
    const c = (h + 2 * step) & this.#mask;
    if (has(this.#current, a) && has(this.#current, b) && has(this.#current, c)) return true;
    const before = has(this.#previous, a) && has(this.#previous, b) && has(this.#previous, c);
    // New to this generation: recorded in it, so that it outlives the older one.
    if (this.#added === this.#perGeneration) {
      const dropped = this.#previous;
      this.#previous = this.#current;
      this.#current = dropped.fill(0);
      this.#added = 0;
    }
    set(this.#current, a);
    set(this.#current, b);
    set(this.#current, c);
    this.#added++;
    return before;
  }
}

function has(bits: Int32Array, bit: number): boolean {
  return ((bits[bit >>> 5] as number) & (1 << (bit & 31))) !== 0;
}

function set(bits: Int32Array, bit: number): void {
  bits[bit >>> 5] = (bits[bit >>> 5] as number) | (1 << (bit & 31));
}
