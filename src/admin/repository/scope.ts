import { WriteRefused } from '../../db/write-refused.js';

/** Which centre a caller may write: all (operator key) or one (partner key). */
export interface WriteScope {
  centreId: string | null;
}

export function forbiddenCentre(): WriteRefused {
  return new WriteRefused(403, 'forbidden', "This key may only read and write its own centre's sessions.");
}
