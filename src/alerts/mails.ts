import type { Mail } from '../mail/transport.js';

/** Where an alert email's links lead, and the platform that signs it. */
export interface AlertMailContext {
  to: string;
  baseUrl: string;
  platformName: string;
  /** This email's own unsubscribe path (links.ts unsubscribePath). */
  unsubscribePath: string;
}

/**
 * An alert email: its text ends with the unsubscribe link, and its headers carry the same link for
 * one-click unsubscribe (RFC 8058: List-Unsubscribe with an https URL, and List-Unsubscribe-Post),
 * which mail clients show as a button and POST to without opening the page.
 */
function alertMail(c: AlertMailContext, subject: string, lines: string[]): Mail {
  const unsubscribe = `${c.baseUrl}${c.unsubscribePath}`;
  return {
    to: c.to,
    subject,
    text: [
      ...lines,
      '',
      'Ne plus recevoir d’e-mail pour cette alerte (un clic suffit) :',
      unsubscribe,
      '',
      c.platformName,
    ].join('\n'),
    headers: {
      'List-Unsubscribe': `<${unsubscribe}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}

/** The double opt-in's one email: nothing else is sent before its link is followed and confirmed. */
export function confirmationMail(c: AlertMailContext & { what: string; confirmPath: string }): Mail {
  return alertMail(c, `Confirmez votre alerte · ${c.platformName}`, [
    'Bonjour,',
    '',
    `Vous avez demandé à être prévenu ${c.what}.`,
    '',
    'Pour activer cette alerte, ouvrez ce lien puis appuyez sur « Activer l’alerte » :',
    `${c.baseUrl}${c.confirmPath}`,
    '',
    'Tant qu’elle n’est pas activée, vous ne recevrez rien, et elle est effacée au bout de 7 jours.',
    'Si vous n’avez rien demandé, ignorez ce message.',
  ]);
}

/** To an address that already has this alert, active: the page said "sent", whatever the case. */
export function alreadyActiveMail(c: AlertMailContext & { what: string }): Mail {
  return alertMail(c, `Votre alerte est déjà active · ${c.platformName}`, [
    'Bonjour,',
    '',
    `Une alerte a été demandée à nouveau pour cette adresse : vous êtes déjà prévenu ${c.what}.`,
    'Vous n’avez rien à faire.',
  ]);
}

/** A place is free on the session the person watches: the page's link; booking is first come, first served. */
export function placeFreedMail(
  c: AlertMailContext & { session: string; city: string; day1: string; path: string },
): Mail {
  return alertMail(c, `Une place s’est libérée : stage du ${c.day1} à ${c.city}`, [
    'Bonjour,',
    '',
    `Une place vient de se libérer pour ${c.session}.`,
    '',
    'Pour la réserver :',
    `${c.baseUrl}${c.path}`,
    '',
    'Premier arrivé, premier servi : cet e-mail ne vous réserve pas la place.',
  ]);
}

/** New sessions for a search alert, each with its page's link. */
export function newSessionsMail(
  c: AlertMailContext & { search: string; sessions: { line: string; path: string }[] },
): Mail {
  const n = c.sessions.length;
  return alertMail(
    c,
    n === 1 ? 'Un nouveau stage correspond à votre recherche' : `${n} nouveaux stages correspondent à votre recherche`,
    [
      'Bonjour,',
      '',
      `${n === 1 ? 'Un stage avec des places correspond' : 'Des stages avec des places correspondent'} à votre recherche ${c.search} :`,
      ...c.sessions.flatMap((s) => ['', s.line, `${c.baseUrl}${s.path}`]),
      '',
      'Premier arrivé, premier servi : cet e-mail ne vous réserve pas de place.',
    ],
  );
}
