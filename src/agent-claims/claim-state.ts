/** What a claim is now, as the client and the person's page see it. */
export type ClaimState = 'pending' | 'approved' | 'denied' | 'expired' | 'revoked';

/** A claim's state from its row: a pending one past its expiry has expired. */
export function claimState(row: { status: string; expiresAt: Date; revokedAt: Date | null }, now: Date): ClaimState {
  if (row.status === 'approved') return row.revokedAt ? 'revoked' : 'approved';
  if (row.status === 'denied') return 'denied';
  return row.expiresAt.getTime() <= now.getTime() ? 'expired' : 'pending';
}
