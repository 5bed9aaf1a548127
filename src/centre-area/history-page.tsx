import type { Membership } from '../accounts/users.js';
import { formatPrice } from '../catalogue/price.js';
import { frenchDate, frenchTime } from '../web/format.js';
import { Layout, type SiteInfo } from '../web/layout.js';
import { may } from './access.js';

export const historyPath = (centreId: string) => `/espace-centre/centres/${centreId}/historique`;

/** One row of the history, as src/history/list.ts reads it. */
export interface HistoryRow {
  id: string;
  at: Date;
  entity: string;
  entityId: string;
  field: string;
  oldValue: string | null;
  newValue: string | null;
  actorKind: string;
  actorLabel: string | null;
}

export interface HistoryPageProps {
  site: SiteInfo;
  membership: Membership;
  /** The centre's own time zone: each change's time is said as the centre lives it. */
  timeZone: string;
  rows: HistoryRow[];
  /** What each row's record is, by its id: a session's date, a reservation's reference. */
  sessions: ReadonlyMap<string, { day1: string; startTime: string }>;
  reservations: ReadonlyMap<string, string>;
  /** Team members' emails and API keys' names, by id (only on the owner's page). */
  members: ReadonlyMap<string, string>;
  keys: ReadonlyMap<string, string>;
  /** The `avant` of the next (older) page, when there is one. */
  next?: string | undefined;
  /** Whether this page is an older one (a link back to the newest). */
  older: boolean;
}

/** The fields as a centre reads them, by record kind. */
const FIELDS: Record<string, Record<string, string>> = {
  session: {
    created: 'création',
    centreId: 'centre',
    courseNumber: 'numéro du stage',
    day1: 'premier jour',
    day2: 'second jour',
    startTime: 'heure de début',
    endTime: 'heure de fin',
    priceEuros: 'prix',
    capacity: 'taille du groupe',
    spotsAvailable: 'places libres',
    status: 'état',
    declaredOn: 'déclaré en préfecture le',
    psychologistName: 'psychologue',
    psychologistNumber: 'numéro du psychologue',
    bafmName: 'formateur BAFM',
    bafmNumber: 'numéro BAFM du formateur',
    convocationSentAt: 'convocations envoyées le',
    attendanceExportedAt: 'liste des présents exportée le',
  },
  centre: {
    created: 'création',
    slug: 'adresse de la page',
    name: 'nom',
    address: 'adresse',
    city: 'ville',
    postalCode: 'code postal',
    deptCode: 'département',
    lat: 'latitude',
    lng: 'longitude',
    agrementNumber: 'numéro d’agrément',
    email: 'e-mail de contact',
    phone: 'téléphone',
    approvedOn: 'date d’agrément',
    cancellationTerms: 'conditions d’annulation',
    suspensionReason: 'raison de la suspension',
    suspended: 'suspendu',
  },
  reservation: { status: 'état', paid: 'payée' },
  member: { role: 'rôle' },
  api_key: { created: 'création', name: 'nom', role: 'rôle', revoked: 'révoquée' },
};

const STATUSES: Record<string, Record<string, string>> = {
  session: { scheduled: 'programmé', cancelled: 'annulé' },
  reservation: { pending: 'en attente', confirmed: 'confirmée', cancelled: 'annulée' },
};

const ROLES: Record<string, Record<string, string>> = {
  member: { owner: 'responsable', staff: 'équipe' },
  api_key: { partner: 'partenaire (ce centre)', admin: 'exploitant' },
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const YES_NO: Record<string, string> = { true: 'oui', yes: 'oui', false: 'non', no: 'non' };

/** "12 mars 2030 à 09:05" in the centre's zone. */
export type InstantText = (at: Date) => string;
const DATE_FIELDS = new Set(['day1', 'day2', 'declaredOn', 'approvedOn']);

/** A value as a centre reads it: dates, prices, states and yes/no in French; the rest as stored. */
function valueText(entity: string, field: string, value: unknown, instant: InstantText): string {
  if (value === null || value === undefined || value === '') return '—';
  const text = String(value);
  if (field === 'status') return STATUSES[entity]?.[text] ?? text;
  if (field === 'role') return ROLES[entity]?.[text] ?? text;
  if (DATE_FIELDS.has(field) && DAY.test(text)) return frenchDate(text);
  if (field === 'priceEuros' && Number.isFinite(Number(text))) return formatPrice(Number(text));
  if (INSTANT.test(text)) return instant(new Date(text));
  return YES_NO[text] ?? text;
}

const fieldName = (entity: string, field: string) => FIELDS[entity]?.[field] ?? field;

/** A new record's fields (the `created` entry's JSON), each named in French. */
function createdText(entity: string, json: string | null, instant: InstantText): string {
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(json ?? '{}') as Record<string, unknown>;
  } catch {
    return json ?? '—';
  }
  return Object.entries(fields)
    .filter(([field]) => field !== 'centreId')
    .map(([field, value]) => `${fieldName(entity, field)} : ${valueText(entity, field, value, instant)}`)
    .join(' · ');
}

/** Who made the change: a user's email, an API key's name, the command line or the site. */
function actorText(kind: string, label: string | null): string {
  switch (kind) {
    case 'user':
      return label ?? 'un utilisateur';
    case 'api_key':
      return label ? `la clé d’API « ${label} »` : 'une clé d’API';
    case 'cli':
      return 'ligne de commande';
    case 'site':
      return 'le site';
    default:
      return 'le service';
  }
}

/** What was changed: the session by its date, the centre, a reservation by its reference; never a person. */
function recordText(row: HistoryRow, props: HistoryPageProps): string {
  switch (row.entity) {
    case 'centre':
      return 'Le centre';
    case 'session': {
      const s = props.sessions.get(row.entityId);
      return s ? `Stage du ${frenchDate(s.day1)}, ${frenchTime(s.startTime)}` : 'Un stage supprimé depuis';
    }
    case 'reservation': {
      const reference = props.reservations.get(row.entityId);
      return reference ? `Réservation ${reference}` : 'Une réservation';
    }
    case 'member': {
      const email = props.members.get(row.entityId);
      return email ? `Membre ${email}` : 'Un membre';
    }
    case 'api_key': {
      const name = props.keys.get(row.entityId);
      return name ? `Clé d’API « ${name} »` : 'Une clé d’API';
    }
    default:
      return row.entity;
  }
}

/** The centre's history: who changed what and when, newest first, a page at a time. */
export function HistoryPage(props: HistoryPageProps) {
  const { membership: m } = props;
  const format = new Intl.DateTimeFormat('fr-FR', {
    timeZone: props.timeZone,
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
  const instant: InstantText = (at) => format.format(at);
  return (
    <Layout
      site={props.site}
      title={`Historique · ${m.centreName}`}
      description="L’historique des changements de votre centre"
      noindex
    >
      <p>
        <a href="/espace-centre">← Espace centre</a>
      </p>
      <h1>Historique de {m.centreName}</h1>
      <p>
        Chaque changement du centre, de ses stages et de ses réservations
        {may(m.role, 'team') ? ', de son équipe et de ses clés d’API' : ''} : quand, par qui (un membre de l’équipe, une
        clé d’API, la ligne de commande ou le site), et la valeur avant → après. Le plus récent d’abord, gardé un an.
        Les coordonnées des personnes inscrites n’y figurent jamais : voyez les réservations de chaque stage.
      </p>
      {props.rows.length === 0 ? (
        <p>{props.older ? 'Rien de plus ancien.' : 'Aucun changement enregistré pour l’instant.'}</p>
      ) : (
        <ul class="area-sessions">
          {props.rows.map((r) => (
            <li id={`changement-${r.id}`} class="session">
              <p>
                <strong>
                  <time datetime={r.at.toISOString()}>{instant(r.at)}</time>
                </strong>
              </p>
              <p>
                <strong>{recordText(r, props)}</strong> · {fieldName(r.entity, r.field)} :{' '}
                {r.field === 'created' ? (
                  <span class="break">{createdText(r.entity, r.newValue, instant)}</span>
                ) : (
                  <span class="break">
                    {valueText(r.entity, r.field, r.oldValue, instant)} →{' '}
                    {valueText(r.entity, r.field, r.newValue, instant)}
                  </span>
                )}
              </p>
              <p class="hint">par {actorText(r.actorKind, r.actorLabel)}</p>
            </li>
          ))}
        </ul>
      )}
      <p>
        {props.next ? (
          <a href={`${historyPath(m.centreId)}?avant=${encodeURIComponent(props.next)}`}>Changements plus anciens</a>
        ) : null}
        {props.next && props.older ? ' · ' : null}
        {props.older ? <a href={historyPath(m.centreId)}>Les plus récents</a> : null}
      </p>
    </Layout>
  );
}
