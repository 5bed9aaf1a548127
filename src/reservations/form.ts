import { frenchMobile } from './phone.js';

/** Why the person takes the course: what the centre needs to know, and what decides the paperwork. */
export const REASONS = {
  voluntary: 'Stage volontaire, pour récupérer des points',
  probationary: 'Permis probatoire : stage obligatoire demandé par la lettre 48N',
  court: 'Stage ordonné par la justice (composition pénale, peine complémentaire)',
} as const;
export type Reason = keyof typeof REASONS;

/** The form's fields, in page order: each error links to its field by this name. */
export const FIELDS = ['firstName', 'lastName', 'email', 'phone', 'reason', 'consent'] as const;
export type FieldName = (typeof FIELDS)[number];

export interface ReservationDetails {
  firstName: string;
  lastName: string;
  email: string;
  /** E.164. */
  phone: string;
  reason: Reason;
}

export interface FieldError {
  field: FieldName;
  message: string;
}

/** What the person typed (to show again beside the errors) and what is wrong with it. */
export interface FormState {
  values: Partial<Record<FieldName, string>>;
  errors: FieldError[];
}

export type FormResult =
  | { ok: true; details: ReservationDetails; values: FormState['values'] }
  | { ok: false; state: FormState };

const MAX_NAME = 60;
const MAX_EMAIL = 254;
// Letters (any script's accents), then letters, spaces, hyphens, apostrophes and dots: "Jean-Éric",
// "N'Diaye", "O’Connor", "de La Tour", "St. John".
const NAME = /^\p{L}[\p{L}\p{M} '’.-]*$/u;
// One @, a dot in the domain, no spaces, quotes or brackets: what a mailbox people type looks like.
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:".]+(\.[^\s@<>()[\]\\,;:".]+)+$/;
const CONTROL = /\p{Cc}|\p{Cf}/u;

function text(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  return typeof v === 'string' ? v.normalize('NFC').trim().replace(/\s+/g, ' ') : '';
}

function name(value: string, field: 'firstName' | 'lastName', label: string): FieldError | undefined {
  if (value === '') return { field, message: `Indiquez votre ${label}.` };
  if (value.length > MAX_NAME) return { field, message: `Votre ${label} doit tenir en ${MAX_NAME} caractères.` };
  if (CONTROL.test(value) || !NAME.test(value))
    return {
      field,
      message: `Votre ${label} ne peut contenir que des lettres, des espaces, des traits d’union et des apostrophes.`,
    };
  return undefined;
}

/**
 * Reads the reservation form (a urlencoded body). Every field is checked and every error kept,
 * each with a message in French naming what to type, so that the page can show them all at once.
 */
export function readForm(body: Record<string, unknown>): FormResult {
  const values = {
    firstName: text(body, 'firstName'),
    lastName: text(body, 'lastName'),
    email: text(body, 'email'),
    phone: text(body, 'phone'),
    reason: text(body, 'reason'),
    consent: text(body, 'consent'),
  };
  const errors: FieldError[] = [];
  const push = (e: FieldError | undefined) => {
    if (e) errors.push(e);
  };
  push(name(values.firstName, 'firstName', 'prénom'));
  push(name(values.lastName, 'lastName', 'nom'));

  if (values.email === '') push({ field: 'email', message: 'Indiquez votre adresse e-mail.' });
  else if (values.email.length > MAX_EMAIL || CONTROL.test(values.email) || !EMAIL.test(values.email))
    push({ field: 'email', message: 'Indiquez une adresse e-mail valide, par exemple prenom.nom@exemple.fr.' });

  const phone = frenchMobile(values.phone);
  if (values.phone === '') push({ field: 'phone', message: 'Indiquez votre numéro de téléphone mobile.' });
  else if (!phone)
    push({
      field: 'phone',
      message:
        'Indiquez un numéro de mobile français : 06 ou 07 suivi de 8 chiffres, ou +33 6…, y compris outre-mer (0690, 0692, +262, +590, +594, +596…).',
    });

  if (!Object.hasOwn(REASONS, values.reason)) push({ field: 'reason', message: 'Choisissez le motif de votre stage.' });
  if (values.consent !== 'yes')
    push({
      field: 'consent',
      message: 'Cochez la case pour accepter les conditions du centre et la transmission de vos coordonnées.',
    });

  if (errors.length > 0 || !phone) return { ok: false, state: { values, errors } };
  return {
    ok: true,
    values,
    details: {
      firstName: values.firstName,
      lastName: values.lastName,
      email: values.email,
      phone,
      reason: values.reason as Reason,
    },
  };
}

/** The address as the same-person check compares it: case does not make another mailbox in practice. */
export function emailKey(email: string): string {
  return email.toLowerCase();
}
