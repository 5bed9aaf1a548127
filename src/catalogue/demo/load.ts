import type { Db } from '../../db/connect.js';
import { replaceCatalogue } from '../repository.js';
import { generateDemoCatalogue } from './generate.js';

export interface DemoLoadResult {
  loaded: boolean;
  centres: number;
  sessions: number;
}

/** Generates the demo catalogue for `today` and stores it, replacing the current one. */
export async function loadDemoCatalogue(
  db: Db,
  options: { today: string; seed?: string; onlyIfEmpty?: boolean; scale?: number },
): Promise<DemoLoadResult> {
  const data = generateDemoCatalogue({
    today: options.today,
    ...(options.seed ? { seed: options.seed } : {}),
    ...(options.scale && options.scale > 1 ? { scale: options.scale } : {}),
  });
  const loaded = await replaceCatalogue(db, data, { onlyIfEmpty: options.onlyIfEmpty ?? false });
  return { loaded, centres: data.centres.length, sessions: data.sessions.length };
}
