import { z } from 'zod';
import { HOLD_ID, IDEMPOTENCY_KEY } from './policy.js';

/** The fields a hold request takes, one definition for MCP (hold_place, release_hold) and REST. */
export const holdFields = {
  idempotencyKey: z
    .string()
    .regex(IDEMPOTENCY_KEY, { error: 'idempotencyKey must be 1 to 100 printable ASCII characters, no space' })
    .describe('Same key again: same hold, its state.'),
  holdId: z
    .string()
    .regex(HOLD_ID, { error: 'holdId must be a hold id (hld_…), as hold_place gives' })
    .describe('From hold_place.'),
};
