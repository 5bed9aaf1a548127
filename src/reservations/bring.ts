/** What to bring, for everybody, then by the booking's reason (form.ts: voluntary, probationary, court). */
const BRING = [
  'votre permis de conduire ;',
  'une pièce d’identité en cours de validité (carte d’identité ou passeport) ;',
];
const BRING_FOR: Record<string, string> = {
  probationary:
    'la lettre 48N reçue en recommandé : le stage est obligatoire pour votre permis probatoire, et le centre en a besoin pour votre attestation ;',
  court: 'la décision de justice ou la proposition du procureur qui vous impose ce stage ;',
};

/**
 * The list of what to bring both days, worded as the convocation email words it: the licence and
 * an ID for everybody, the 48N letter for a probationary licence, the court document when ordered.
 */
export function whatToBring(reason: string): string[] {
  return [...BRING, ...(BRING_FOR[reason] ? [BRING_FOR[reason] as string] : []), 'de quoi écrire.'];
}
