import { AsyncLocalStorage } from 'node:async_hooks';
import type { SearchScope } from '../catalogue/search.js';

/**
 * What a tool's answer drew on, as the tool says while the SDK computes it: the snapshot version it
 * read, the departments (and whether centres by name or position) it depends on, and the
 * catalogue's `updatedAt` it wrote. With that, the fast path (fast-path.ts) keeps the answer across
 * changes elsewhere, as REST does, giving it the catalogue's new `updatedAt`.
 */
export interface AnswerScope {
  readonly version: number;
  readonly scope: SearchScope;
  readonly updatedAtIso: string;
}

/** Collects the scopes told while one request is answered (one tool call: at most one, normally). */
export class AnswerNote {
  readonly scopes: AnswerScope[] = [];
}

const notes = new AsyncLocalStorage<AnswerNote>();

/** Runs `answer` (the SDK answering one request) with `note` collecting what its tool tells. */
export function withAnswerNote<T>(note: AnswerNote | undefined, answer: () => T): T {
  return note ? notes.run(note, answer) : answer();
}

/**
 * Called by a read tool: its answer drew only on `scope`. A tool that never calls it has its kept
 * answer dropped on any catalogue change.
 */
export function tellAnswerScope(told: AnswerScope): void {
  notes.getStore()?.scopes.push(told);
}
