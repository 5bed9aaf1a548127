/**
 * Gives a large buffer's memory back now rather than at the heap's next full collection. A buffer
 * read whole at start (a file of megabytes) outlives the young generation while it is parsed, so its
 * memory would stay in the process's RSS until a full collection, which an idle server may not run
 * for minutes. Transferring its ArrayBuffer away detaches it (the buffer reads as empty from then
 * on) and leaves the memory to a clone nothing holds, freed by the next scavenge. Only a buffer that
 * owns its whole ArrayBuffer is released: a slice of a shared pool is left alone.
 */
export function releaseBytes(bytes: Uint8Array): void {
  if (bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) return;
  if (!(bytes.buffer instanceof ArrayBuffer)) return;
  structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
}
