import type { InputHTMLAttributes } from 'preact';
import { approvalExpiresOn } from '../catalogue/approval.js';
import { Field, type FieldError, FieldMessage } from '../web/field.js';
import { frenchDate } from '../web/format.js';
import type { SiteInfo } from '../web/layout.js';
import { Csrf, type Messages, OperatorLayout, PATHS, when } from './layout.js';
import type { CentreBooking, CentreRow } from './repository.js';

/** Where a centre stands for the public, in words. */
export type CentreStanding = 'suspended' | 'expired' | 'expiring' | 'active';

export function standingText(row: CentreRow, standing: CentreStanding): string {
  const expires = row.approvedOn ? frenchDate(approvalExpiresOn(row.approvedOn)) : '';
  switch (standing) {
    case 'suspended':
      return `Suspendu depuis le ${when(row.suspendedAt as Date)} : hors de toutes les réponses publiques`;
    case 'expired':
      return `Agrément expiré le ${expires} : hors de toutes les réponses publiques`;
    case 'expiring':
      return `Agrément à renouveler : il expire le ${expires}`;
    case 'active':
      return row.approvedOn
        ? `Actif, agrément valable jusqu’au ${expires} (exclu)`
        : 'Actif (date d’agrément non saisie)';
  }
}

function CentreList({ rows, standing }: { rows: CentreRow[]; standing: (row: CentreRow) => CentreStanding }) {
  return (
    <ul class="area-sessions">
      {rows.map((c) => (
        <li>
          <a href={PATHS.centre(c.id)}>{c.name}</a> — {c.city} ({c.deptCode}) · {c.agrementNumber}
          <br />
          <span class="hint">{standingText(c, standing(c))}</span>
        </li>
      ))}
    </ul>
  );
}

export interface CentresPageProps {
  site: SiteInfo;
  email: string;
  query: string;
  found: CentreRow[];
  ending: CentreRow[];
  suspended: CentreRow[];
  standing: (row: CentreRow) => CentreStanding;
  messages?: Messages | undefined;
}

/** The operators' home: search the centres, and what needs looking at (approvals ending, suspensions). */
export function CentresPage(props: CentresPageProps) {
  return (
    <OperatorLayout site={props.site} title="Centres" messages={props.messages}>
      <p>Connecté : {props.email} (exploitant).</p>
      <form method="get" action={PATHS.home}>
        <label for="q">Nom, ville, numéro d’agrément ou département</label>
        <input id="q" name="q" type="search" value={props.query} />
        <button type="submit">Rechercher</button>
      </form>
      <p>
        <a href={PATHS.newCentre}>Nouveau centre</a>
      </p>
      <section aria-labelledby="found-title">
        <h2 id="found-title">{props.query ? `Résultats pour « ${props.query} »` : 'Tous les centres'}</h2>
        {props.found.length === 0 ? (
          <p>Aucun centre ne correspond.</p>
        ) : (
          <CentreList rows={props.found} standing={props.standing} />
        )}
      </section>
      <section aria-labelledby="ending-title">
        <h2 id="ending-title">Agréments expirés ou qui expirent dans les 90 jours</h2>
        {props.ending.length === 0 ? <p>Aucun.</p> : <CentreList rows={props.ending} standing={props.standing} />}
      </section>
      <section aria-labelledby="suspended-title">
        <h2 id="suspended-title">Centres suspendus</h2>
        {props.suspended.length === 0 ? <p>Aucun.</p> : <CentreList rows={props.suspended} standing={props.standing} />}
      </section>
    </OperatorLayout>
  );
}

const STATUS = { pending: 'en attente', confirmed: 'confirmée', cancelled: 'annulée' } as Record<string, string>;

export interface CentrePageProps {
  site: SiteInfo;
  centre: CentreRow;
  standing: CentreStanding;
  bookings: CentreBooking[];
  formToken: string;
  messages?: Messages | undefined;
  reasonError?: FieldError | undefined;
  reason?: string | undefined;
}

/** One centre: its details, where it stands, suspend or restore, and its bookings (kept while suspended). */
export function CentrePage(props: CentrePageProps) {
  const c = props.centre;
  return (
    <OperatorLayout site={props.site} title={c.name} messages={props.messages}>
      <p>
        <strong>{standingText(c, props.standing)}</strong>
      </p>
      <dl>
        <dt>Adresse</dt>
        <dd>
          {c.address}, {c.postalCode} {c.city} ({c.deptCode})
        </dd>
        <dt>Numéro d’agrément</dt>
        <dd>{c.agrementNumber}</dd>
        <dt>Date d’agrément</dt>
        <dd>{c.approvedOn ? frenchDate(c.approvedOn) : 'non saisie'}</dd>
        <dt>Contact</dt>
        <dd>
          {c.phone ?? 'pas de téléphone'} · {c.email ?? 'pas d’e-mail'}
        </dd>
        <dt>Page publique</dt>
        <dd>
          <a href={`/centres/${c.slug}`}>/centres/{c.slug}</a>
        </dd>
        {c.suspendedAt ? (
          <>
            <dt>Motif de la suspension</dt>
            <dd>{c.suspensionReason}</dd>
          </>
        ) : null}
      </dl>
      {c.suspendedAt ? (
        <form method="post" action={PATHS.suspension(c.id)}>
          <Csrf token={props.formToken} />
          <input type="hidden" name="action" value="restore" />
          <button type="submit">Rétablir ce centre</button>
        </form>
      ) : (
        <form method="post" action={PATHS.suspension(c.id)} class="area-form">
          <Csrf token={props.formToken} />
          <input type="hidden" name="action" value="suspend" />
          <Field
            name="reason"
            label="Motif de la suspension"
            hint={{ text: '3 à 500 caractères, jamais publié', id: 'reason-hint' }}
            error={props.reasonError}
            input={{ type: 'text', value: props.reason ?? '', required: true, maxLength: 500 }}
          />
          <button type="submit" class="danger">
            Suspendre ce centre
          </button>
        </form>
      )}
      <section aria-labelledby="bookings-title">
        <h2 id="bookings-title">Réservations faites ici ({props.bookings.length})</h2>
        {props.bookings.length === 0 ? (
          <p>Aucune réservation.</p>
        ) : (
          <ul class="area-sessions">
            {props.bookings.map((b) => (
              <li>
                <strong>{b.reference}</strong> · {STATUS[b.status] ?? b.status} · stage du {frenchDate(b.day1)} à{' '}
                {b.startTime} ({b.courseNumber})
                <br />
                {[b.firstName, b.lastName].filter(Boolean).join(' ') || 'données effacées'}
                {b.phone ? ` · ${b.phone}` : ''}
                {b.email ? ` · ${b.email}` : ''} · réservé le {when(b.createdAt)}
              </li>
            ))}
          </ul>
        )}
      </section>
    </OperatorLayout>
  );
}

/** The new centre form's fields, in page order, with their labels. */
export const CENTRE_FIELDS = [
  ['name', 'Nom du centre', 'text'],
  ['slug', 'Identifiant d’adresse (lettres minuscules, chiffres, tirets)', 'text'],
  ['address', 'Adresse', 'text'],
  ['postalCode', 'Code postal', 'text'],
  ['city', 'Ville', 'text'],
  ['deptCode', 'Département (69, 2A, 974…)', 'text'],
  ['lat', 'Latitude', 'text'],
  ['lng', 'Longitude', 'text'],
  ['agrementNumber', 'Numéro d’agrément (R2406900123)', 'text'],
  ['approvedOn', 'Date d’agrément (AAAA-MM-JJ)', 'date'],
  ['phone', 'Téléphone', 'tel'],
  ['email', 'E-mail de contact', 'email'],
] as const;
export type CentreFieldName = (typeof CENTRE_FIELDS)[number][0];

export function NewCentrePage(props: {
  site: SiteInfo;
  formToken: string;
  values: Partial<Record<CentreFieldName, string>>;
  errors: FieldError[];
}) {
  const errorOf = (field: string) => props.errors.find((e) => e.field === field);
  return (
    <OperatorLayout site={props.site} title="Nouveau centre">
      {props.errors.length > 0 ? (
        <p class="notice" role="alert">
          Le centre n’a pas été créé : corrigez les champs signalés.
        </p>
      ) : null}
      <form method="post" action={PATHS.newCentre} class="area-form">
        <Csrf token={props.formToken} />
        {CENTRE_FIELDS.map(([name, label, type]) => (
          <Field
            name={name}
            label={label}
            error={errorOf(name)}
            input={
              {
                type,
                value: props.values[name] ?? '',
                required: !['approvedOn', 'phone', 'email'].includes(name),
                ...(name === 'lat' || name === 'lng' ? { inputMode: 'decimal' } : {}),
              } as InputHTMLAttributes
            }
          />
        ))}
        <FieldMessage error={errorOf('form')} />
        <button type="submit">Créer le centre</button>
      </form>
    </OperatorLayout>
  );
}
