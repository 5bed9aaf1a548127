/*
 * A centre's cancellation and refund terms, as people read them before booking, on their
 * reservation, in their area and in the confirmation email. A centre that wrote none gets the
 * service's own rule: free cancellation here until the day before, money settled with the centre.
 */

/** What people are told when the centre has written no terms of its own. */
export const DEFAULT_CANCELLATION_TERMS =
  'Vous pouvez annuler gratuitement ici jusqu’à la veille du premier jour du stage. Le paiement et un éventuel remboursement se règlent directement avec le centre : contactez-le.';

/** The terms to show: the centre's own, or the default sentence. */
export function cancellationTermsText(terms: string | null | undefined): string {
  return terms?.trim() ? terms : DEFAULT_CANCELLATION_TERMS;
}

/** The heading every surface gives the terms. */
export const CANCELLATION_TERMS_TITLE = 'Conditions d’annulation et de remboursement';

/** The terms as a paragraph, escaped like any text, each line break kept (the caller gives the heading). */
export function CancellationTerms({ terms }: { terms: string | null | undefined }) {
  const lines = cancellationTermsText(terms).split('\n');
  return (
    <p class="terms">
      {lines.map((line, i) => (
        <>
          {i > 0 ? <br /> : null}
          {line}
        </>
      ))}
    </p>
  );
}
