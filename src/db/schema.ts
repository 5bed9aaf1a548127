import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigserial,
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
};

/** Prefecture-approved centres ("centres agréés"). */
export const centres = pgTable(
  'centres',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    slug: text('slug').notNull().unique(),
    name: text('name').notNull(),
    address: text('address').notNull(),
    city: text('city').notNull(),
    postalCode: text('postal_code').notNull(),
    deptCode: text('dept_code').notNull(),
    lat: doublePrecision('lat').notNull(),
    lng: doublePrecision('lng').notNull(),
    agrementNumber: text('agrement_number').notNull().unique(),
    /** Where the centre receives booking notices; never shown in a public answer. */
    email: text('email'),
    /** The centre's telephone number, for the people who book. */
    phone: text('phone'),
    /** The day the prefect approved the centre; the approval holds 5 years (design.md §6). */
    approvedOn: date('approved_on', { mode: 'string' }),
    /** Set while an operator has suspended the centre: it is then in no public answer. */
    suspendedAt: timestamp('suspended_at', { withTimezone: true, mode: 'date' }),
    /** The operator's reason for the suspension; never shown publicly. */
    suspensionReason: text('suspension_reason'),
    /**
     * The centre's own cancellation and refund terms, as it writes them (plain text, line breaks
     * kept): shown to people before they book, on their reservation and in its confirmation email.
     * Null: the service's default sentence (reservations/cancellation-terms.tsx). Not in the public
     * REST/MCP centre object (spec.md §2.3).
     */
    cancellationTerms: text('cancellation_terms'),
    ...timestamps,
  },
  (t) => [
    index('centres_dept_code_idx').on(t.deptCode),
    check('centres_cancellation_terms_length', sql`char_length(${t.cancellationTerms}) <= 2000`),
    check('centres_agrement_number_format', sql`${t.agrementNumber} ~ '^R[0-9]{2}[0-9A-Z]{3}[0-9]{5}$'`),
    check('centres_lat_range', sql`${t.lat} between -90 and 90`),
    check('centres_lng_range', sql`${t.lng} between -180 and 180`),
  ],
);

/** Two-day course sessions. Prices are integer cents so that no amount is ever rounded. */
export const stageSessions = pgTable(
  'stage_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    centreId: uuid('centre_id')
      .notNull()
      .references(() => centres.id, { onDelete: 'cascade' }),
    /** Course identification number, which French law requires adverts to show. */
    courseNumber: text('course_number').notNull().unique(),
    day1: date('day1', { mode: 'string' }).notNull(),
    day2: date('day2', { mode: 'string' }).notNull(),
    startTime: text('start_time').notNull(),
    endTime: text('end_time').notNull(),
    priceCents: integer('price_cents').notNull(),
    capacity: smallint('capacity').notNull(),
    /** Places on sale now: what the centre's own figure leaves once the bookings made here are counted. */
    spotsAvailable: smallint('spots_available').notNull(),
    /**
     * Places held by bookings made here (reservations not cancelled). Only a booking, a
     * cancellation or a cancelled session moves it, never a centre's write: see admin/repository/places-model.ts.
     */
    heldHere: smallint('held_here').notNull().default(0),
    /** A cancelled session leaves search at once but stays known, so that its page and check_availability say so. */
    status: text('status').notNull().default('scheduled'),
    /**
     * The day the centre declared the course to the prefecture (2024 rule: at least 10 calendar days
     * before day1; see admin/declaration.ts). Private: no public answer carries it.
     */
    declaredOn: date('declared_on', { mode: 'string' }),
    ...timestamps,
  },
  (t) => [
    // The read model's order (catalogue/repository.ts loads the catalogue through it without a
    // sort: 16 ms for the first 1,000 of 80,000 sessions on the embedded database, instead of 210
    // ms sorting them all); its first column serves the queries by date.
    index('stage_sessions_order_idx').on(t.day1, sql`${t.startTime} collate "C"`, t.priceCents, t.id),
    index('stage_sessions_centre_idx').on(t.centreId),
    check('stage_sessions_consecutive_days', sql`${t.day2} = ${t.day1} + 1`),
    check(
      'stage_sessions_time_format',
      sql`${t.startTime} ~ '^[0-2][0-9]:[0-5][0-9]$' and ${t.endTime} ~ '^[0-2][0-9]:[0-5][0-9]$'`,
    ),
    check('stage_sessions_price_positive', sql`${t.priceCents} > 0`),
    check('stage_sessions_capacity', sql`${t.capacity} between 1 and 40`),
    check('stage_sessions_spots', sql`${t.spotsAvailable} between 0 and ${t.capacity}`),
    check('stage_sessions_held', sql`${t.heldHere} >= 0`),
    // Places taken here and places on sale never exceed the group: no booking is ever oversold.
    check('stage_sessions_places_held', sql`${t.spotsAvailable} + ${t.heldHere} <= ${t.capacity}`),
    check('stage_sessions_status', sql`${t.status} in ('scheduled', 'cancelled')`),
    check('stage_sessions_declared_before', sql`${t.declaredOn} is null or ${t.declaredOn} <= ${t.day1}`),
  ],
);

/**
 * The two trainers of a session (arrêté du 26 juin 2012: a psychologist and a road-safety trainer
 * holding the BAFM), which the centre needs to declare the course to the prefecture. Private: kept
 * out of stage_sessions so that no public answer, change log or catalogue version ever carries
 * them; only the centre's area reads and writes them.
 */
export const sessionTrainers = pgTable('session_trainers', {
  sessionId: uuid('session_id')
    .primaryKey()
    .references(() => stageSessions.id, { onDelete: 'cascade' }),
  psychologistName: text('psychologist_name'),
  /** ADELI (9 digits) or RPPS (11 digits) number of the psychologist. */
  psychologistNumber: text('psychologist_number'),
  bafmName: text('bafm_name'),
  /** The number of the trainer's BAFM (brevet d'aptitude à la formation des moniteurs). */
  bafmNumber: text('bafm_number'),
  ...timestamps,
});

/**
 * A file pasted in the centres' area whose dry run was shown as a preview, waiting for its
 * "Confirmer l'import": kept server-side, bound to the user and the centre, for a short while, so
 * that exactly the previewed content is applied (or refused if what it changes changed meanwhile).
 */
export const areaImportDrafts = pgTable('area_import_drafts', {
  id: text('id').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  centreId: uuid('centre_id')
    .notNull()
    .references(() => centres.id, { onDelete: 'cascade' }),
  format: text('format').notNull(),
  content: text('content').notNull(),
  /** The dry run's counts and the stored records' versions when it was shown. */
  preview: text('preview').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
});

/**
 * One row: the catalogue's version and the time of its last real change. Bumped once per
 * writing statement on centres and stage_sessions by the triggers of the custom migration 0004 —
 * once per transaction, at its COMMIT, for a catalogueWrite (migration 0027) — which also log what
 * changed (catalogue_changes) and NOTIFY `catalogue_changed` with the new version. Its row lock
 * serialises catalogue writers, so versions commit in order.
 */
export const catalogueState = pgTable('catalogue_state', {
  id: smallint('id').primaryKey().default(1),
  version: integer('version').notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * What a catalogue write has changed so far, until it commits: with `catalogue.deferred` on (every
 * catalogueWrite, db/write.ts), the change-log triggers put the rows a statement touched here instead
 * of taking a version; at COMMIT a deferred trigger moves them into catalogue_changes under one new
 * version (migration 0027). So the version lock is held only while PostgreSQL commits, never across
 * the writer's round trips. Rows here are never seen committed: each writer sees its own only.
 */
export const catalogueChangesPending = pgTable('catalogue_changes_pending', {
  entity: text('entity').notNull(),
  id: uuid('id').notNull(),
});

/**
 * Anonymous OAuth clients (RFC 7591 registration). No human data: a name the client chose and
 * a hash of its secret, or, for a private_key_jwt client, its public keys (inline or where it
 * publishes them). The secret itself is shown once, at registration, and never stored. Clients
 * known by a URL (Client ID Metadata Documents, src/auth/cimd/) have no row: their document is.
 */
export const oauthClients = pgTable(
  'oauth_clients',
  {
    clientId: text('client_id').primaryKey(),
    /**
     * base64url SHA-256 of the secret (see src/auth/secrets.ts for why a fast hash is enough);
     * null for private_key_jwt (it has keys) and for a public client (none: an agent host).
     */
    secretHash: text('secret_hash'),
    clientName: text('client_name').notNull(),
    tokenEndpointAuthMethod: text('token_endpoint_auth_method').notNull(),
    /** private_key_jwt: the client's public keys (a JWK Set), or the https URL it publishes them at. */
    jwks: jsonb('jwks'),
    jwksUri: text('jwks_uri'),
    /** Space-separated grant types registered; null: `client_credentials`, as every client before issue 27. */
    grantTypes: text('grant_types'),
    /** The redirect URIs of an authorization-code client (JSON array of strings); null otherwise. */
    redirectUris: jsonb('redirect_uris').$type<string[]>(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    check(
      'oauth_clients_auth_method',
      sql`${t.tokenEndpointAuthMethod} in ('client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none')`,
    ),
    // A secret for the secret methods; exactly one of jwks and jwks_uri for private_key_jwt; nothing for none.
    check(
      'oauth_clients_credentials',
      sql`case ${t.tokenEndpointAuthMethod} when 'private_key_jwt' then ${t.secretHash} is null and ((${t.jwks} is null) <> (${t.jwksUri} is null)) when 'none' then ${t.secretHash} is null and ${t.jwks} is null and ${t.jwksUri} is null else ${t.secretHash} is not null end`,
    ),
  ],
);

/**
 * The `jti` of each private_key_jwt assertion accepted at the token endpoint (RFC 7523 §3: the
 * server may refuse a replayed one), kept until the assertion expires, shared by every instance:
 * the primary key makes a second use fail whichever instance sees it. Expired rows are pruned.
 */
export const clientAssertionJtis = pgTable(
  'client_assertion_jtis',
  {
    clientId: text('client_id').notNull(),
    jti: text('jti').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.jti] }), index('client_assertion_jtis_expires_idx').on(t.expiresAt)],
);

/**
 * ES256 key pairs that sign access tokens, shared by every instance. The private key is stored as
 * a JWK: whoever can read this table can mint tokens, so the database is a secret store.
 * Exactly one key is active (retires_at null); a rotated-out key keeps verifying until retires_at,
 * which is after the last token it signed has expired.
 */
export const signingKeys = pgTable(
  'signing_keys',
  {
    kid: text('kid').primaryKey(),
    alg: text('alg').notNull().default('ES256'),
    privateJwk: jsonb('private_jwk').notNull(),
    publicJwk: jsonb('public_jwk').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    retiresAt: timestamp('retires_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    // At most one active key: two instances creating the first key at once cannot both succeed.
    uniqueIndex('signing_keys_one_active').on(sql`(${t.retiresAt} is null)`).where(sql`${t.retiresAt} is null`),
    check('signing_keys_alg', sql`${t.alg} = 'ES256'`),
  ],
);

/**
 * What each catalogue version changed: one row per centre or session written by the statement
 * (or the catalogueWrite transaction) that made the version (an id with no row left means it was deleted), or one `reset` row for a
 * wholesale replacement. Written by the triggers, in the writer's transaction; instances read it
 * from their last applied version to apply changes one by one, and the public change stream
 * replays it. Pruned after a day (an instance further behind reloads whole).
 */
export const catalogueChanges = pgTable(
  'catalogue_changes',
  {
    version: integer('version').notNull(),
    entity: text('entity').notNull(),
    id: uuid('id'),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('catalogue_changes_version_idx').on(t.version),
    check('catalogue_changes_entity', sql`${t.entity} in ('centre', 'session', 'reset')`),
  ],
);

/**
 * Operator (`admin`) and partner (`partner`, one centre) API keys. The key is shown once, at
 * creation; only its SHA-256 is kept (256 random bits: see src/auth/secrets.ts).
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    role: text('role').notNull(),
    centreId: uuid('centre_id').references(() => centres.id, { onDelete: 'cascade' }),
    secretHash: text('secret_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    check('api_keys_role', sql`${t.role} in ('admin', 'partner')`),
    check('api_keys_partner_centre', sql`(${t.role} = 'partner') = (${t.centreId} is not null)`),
  ],
);

/**
 * Answers of writes sent with an `Idempotency-Key`, per API key, so that a retried call is
 * applied once: stored in the write's own transaction, replayed for the same key and request.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    apiKeyId: text('api_key_id').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    status: smallint('status').notNull(),
    body: jsonb('body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);

/**
 * Places booked by people on the site (src/reservations). The personal fields are what the centre
 * needs to admit the person; they are nulled by `reservations:purge` once the session is over
 * (status, reason and dates stay, as anonymous counts). `emailKey` (the address folded to lower
 * case) makes the same address on the same session one active reservation, not two.
 */
export const reservations = pgTable(
  'reservations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Short, readable on a phone: SRP-XXXX-XXXX (Crockford base 32, no I, L, O or U). */
    reference: text('reference').notNull().unique(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => stageSessions.id, { onDelete: 'cascade' }),
    centreId: uuid('centre_id')
      .notNull()
      .references(() => centres.id, { onDelete: 'cascade' }),
    status: text('status').notNull().default('pending'),
    reason: text('reason').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    email: text('email'),
    emailKey: text('email_key'),
    /** E.164, e.g. +33612345678. */
    phone: text('phone'),
    /** SHA-256 of the booking browser's form cookie: a resubmission from it finds its reservation again. */
    browserHash: text('browser_hash'),
    consentAt: timestamp('consent_at', { withTimezone: true, mode: 'date' }).notNull(),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true, mode: 'date' }),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true, mode: 'date' }),
    /** Who cancelled: the person (private link), the centre (partner key) or the operator (admin key). */
    cancelledBy: text('cancelled_by'),
    purgedAt: timestamp('purged_at', { withTimezone: true, mode: 'date' }),
    /** When the centre marked it paid (the centre's area; who did is in change_history); null: not paid. */
    paidAt: timestamp('paid_at', { withTimezone: true, mode: 'date' }),
    /**
     * The person's last date change from their area (people-area/change): when, and from which
     * session to which. A row moved in place carries both; when the change went to another centre,
     * the row cancelled at the first and the new one at the second carry the same pair. The
     * webhooks tell a date change from a plain cancel or booking by it (reservation.changed).
     */
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }),
    changedFromSessionId: uuid('changed_from_session_id'),
    changedToSessionId: uuid('changed_to_session_id'),
    ...timestamps,
  },
  (t) => [
    index('reservations_session_idx').on(t.sessionId),
    // A catalogue write finds the reservations it changed by their updated_at (= the transaction's now()).
    index('reservations_updated_idx').on(t.updatedAt),
    index('reservations_centre_idx').on(t.centreId, t.createdAt),
    uniqueIndex('reservations_one_active_per_email')
      .on(t.sessionId, t.emailKey)
      .where(sql`${t.status} <> 'cancelled' and ${t.emailKey} is not null`),
    check('reservations_status', sql`${t.status} in ('pending', 'confirmed', 'cancelled')`),
    check('reservations_reason', sql`${t.reason} in ('voluntary', 'probationary', 'court')`),
    check(
      'reservations_cancelled_by',
      sql`${t.cancelledBy} is null or ${t.cancelledBy} in ('person', 'centre', 'operator')`,
    ),
  ],
);

/**
 * Who was present at each half-day of a course (1: day 1 morning, 2: day 1 afternoon, 3: day 2
 * morning, 4: day 2 afternoon), as the centre marked it. Present at all four is the condition of the
 * attestation the centre sends to the prefecture (Code de la route R223-5, R223-8).
 */
export const attendance = pgTable(
  'attendance',
  {
    reservationId: uuid('reservation_id')
      .notNull()
      .references(() => reservations.id, { onDelete: 'cascade' }),
    halfDay: smallint('half_day').notNull(),
    present: boolean('present').notNull(),
    markedAt: timestamp('marked_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The user who marked it (null once that user is deleted). */
    markedBy: uuid('marked_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [
    primaryKey({ columns: [t.reservationId, t.halfDay] }),
    check('attendance_half_day', sql`${t.halfDay} between 1 and 4`),
  ],
);

/**
 * A session's paperwork with the people booked and the prefecture: when the joining instructions
 * (convocation) were emailed and when the list of those who attended was exported. Kept apart from
 * stage_sessions on purpose: every write of a stage_sessions row is a catalogue change (0004's
 * triggers), which would tell the public change stream and webhooks of a change nobody can see.
 */
export const sessionFollowUp = pgTable('session_follow_up', {
  sessionId: uuid('session_id')
    .primaryKey()
    .references(() => stageSessions.id, { onDelete: 'cascade' }),
  convocationSentAt: timestamp('convocation_sent_at', { withTimezone: true, mode: 'date' }),
  attendanceExportedAt: timestamp('attendance_exported_at', { withTimezone: true, mode: 'date' }),
});

/**
 * Private links to a reservation: the SHA-256 of a 128-bit secret, never the secret. A reservation
 * may have several (a resubmission from the same browser gets a fresh one); all are deleted on purge.
 */
export const reservationLinks = pgTable(
  'reservation_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    reservationId: uuid('reservation_id')
      .notNull()
      .references(() => reservations.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('reservation_links_reservation_idx').on(t.reservationId)],
);

/**
 * Durable background jobs, one table for every kind (src/jobs/): written in the transaction that
 * causes them, claimed by any instance's worker with FOR UPDATE SKIP LOCKED and a lease
 * (locked_until), deleted once done. Rows stay only while pending or, when they failed for good,
 * for inspection (then deleted after a retention). `last_error` holds an error class and code,
 * never a message (a mail server's refusal quotes addresses).
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').notNull(),
    /** The payload holds a secret (a private or sign-in link): erased if the job fails for good. */
    secret: boolean('secret').notNull().default(false),
    state: text('state').notNull().default('pending'),
    runAt: timestamp('run_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    /** Null: the worker's configured default (JOBS_MAX_ATTEMPTS). */
    maxAttempts: integer('max_attempts'),
    lastError: text('last_error'),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    lockedBy: text('locked_by'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    failedAt: timestamp('failed_at', { withTimezone: true, mode: 'date' }),
    /**
     * Jobs sharing a key run one at a time in id order: one is not claimed while an older one of
     * its key is pending (a webhook's events of one session, src/webhooks/). Null: no order.
     */
    orderingKey: text('ordering_key'),
    /**
     * Not claimed before this instant of the service's clock (a reminder at a course's time, fixed in
     * the business's terms); null: `run_at` alone decides.
     */
    notBefore: timestamp('not_before', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('jobs_due_idx').on(t.runAt).where(sql`${t.state} = 'pending'`),
    index('jobs_ordering_idx')
      .on(t.orderingKey, t.id)
      .where(sql`${t.state} = 'pending' and ${t.orderingKey} is not null`),
    index('jobs_failed_idx').on(t.failedAt).where(sql`${t.state} = 'failed'`),
    check('jobs_state', sql`${t.state} in ('pending', 'failed')`),
    check('jobs_max_attempts', sql`${t.maxAttempts} is null or ${t.maxAttempts} >= 1`),
  ],
);

/**
 * People who sign in (accounts/): centres' owners and staff, platform operators (`admin`), and,
 * later, the people who book. Known by their email, lower-cased; no password. A disabled user's
 * sessions stop working at once on every instance (sessions are read from here).
 */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull().unique(),
    /** Platform operator: every centre, and the operators' area. */
    admin: boolean('admin').notNull().default(false),
    disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [check('users_email_lower', sql`${t.email} = lower(${t.email})`)],
);

/** Who works for which centre, and as what: `owner` (everything of the centre) or `staff`. */
export const centreMembers = pgTable(
  'centre_members',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    centreId: uuid('centre_id')
      .notNull()
      .references(() => centres.id, { onDelete: 'cascade' }),
    role: text('role').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.centreId] }),
    index('centre_members_centre_idx').on(t.centreId),
    check('centre_members_role', sql`${t.role} in ('owner', 'staff')`),
  ],
);

/**
 * Emailed sign-in links: the SHA-256 of the link's secret, for one email, valid 15 minutes, spent
 * once. The email is kept, not a user id: any email may ask, and its user exists once it signs in.
 */
export const signInLinks = pgTable(
  'sign_in_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    email: text('email').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('sign_in_links_expires_idx').on(t.expiresAt)],
);

/**
 * Signed-in sessions, stored server-side so that signing out, signing out everywhere and disabling
 * a user take effect on every instance at once. The cookie names the session; only its SHA-256 is
 * stored. Idle expiry from `seen_at`, absolute from `created_at` (accounts/sessions.ts).
 */
export const userSessions = pgTable(
  'user_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    seenAt: timestamp('seen_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('user_sessions_user_idx').on(t.userId)],
);

/**
 * One-time ids of the areas' create forms (accounts/form-submissions.tsx): each form carries a new
 * random id, spent with the write it asks for, so that the same form sent twice (a double tap, a
 * retry, a reload of the answer) writes once. Forgotten after a day by the accounts' hourly prune.
 */
export const formSubmissions = pgTable('form_submissions', {
  id: text('id').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** Secrets the service makes itself when none is configured (the session cookie's signing key). */
export const serviceSecrets = pgTable('service_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * Webhook subscriptions (src/webhooks/): a URL, the events it wants, one centre's (partner key)
 * or all centres' (operator key, centre_id null). `secret` is the whsec_ signing key, kept in clear
 * because every delivery signs with it (the project holds no key to encrypt it with); it is shown
 * once, at creation, and never answered again. `failing_since`: the first failure of the current
 * run of failures (null while deliveries succeed); three days of it disable the subscription.
 */
export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    centreId: uuid('centre_id').references(() => centres.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    secret: text('secret').notNull(),
    /** The API key that created it (its id). */
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    failingSince: timestamp('failing_since', { withTimezone: true, mode: 'date' }),
    disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('webhook_subscriptions_centre_idx').on(t.centreId)],
);

/** Each delivery try of a subscription, the newest kept (a receiver's answer: its status, never its body). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    subscriptionId: uuid('subscription_id')
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('webhook_deliveries_subscription_idx').on(t.subscriptionId, t.id)],
);

/**
 * The centres' history: who changed what and when, one row per changed field, written in the
 * transaction of the change (src/history/). Values are text as the admin API names them; a
 * reservation's rows carry its status only, never the person's details; a team member's, their role
 * (the id is the user's); an API key's, its creation and revocation (never its secret). Kept a year
 * (HISTORY_KEEP_DAYS), pruned by the instances' prune loop (catalogue/catalogue.ts).
 */
export const changeHistory = pgTable(
  'change_history',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** No foreign key: a centre's history outlives nothing it describes, and never blocks a delete. */
    centreId: uuid('centre_id').notNull(),
    entity: text('entity').notNull(),
    /** A record's id: a UUID, or an API key's 16 hexadecimal digits. */
    entityId: text('entity_id').notNull(),
    field: text('field').notNull(),
    oldValue: text('old_value'),
    newValue: text('new_value'),
    actorKind: text('actor_kind').notNull(),
    actorId: text('actor_id'),
    actorLabel: text('actor_label'),
  },
  (t) => [
    // Newest first, paged by (at, id): for one centre, one record, or everything (and the prune).
    index('change_history_centre_idx').on(t.centreId, t.at, t.id),
    index('change_history_entity_idx').on(t.entityId, t.at, t.id),
    index('change_history_at_idx').on(t.at, t.id),
    check('change_history_entity', sql`${t.entity} in ('centre', 'session', 'reservation', 'member', 'api_key')`),
    check('change_history_actor_kind', sql`${t.actorKind} in ('api_key', 'user', 'cli', 'site', 'system')`),
  ],
);

/**
 * "Prévenez-moi" alerts (src/alerts/): a person's email and what they watch, either one full
 * session (`session_id`) or a search (`search`: the catalogue's own filters). Who created it:
 * `site`, or the OAuth client of an agent acting for a signed-in person (`client_id`). Only the
 * person reads it back (/mon-espace); it never reaches a public answer, a webhook or a log.
 * Deleted when it ends (`ends_at` passed, unsubscribed) or stays unconfirmed (src/alerts/purge.ts).
 */
export const alerts = pgTable(
  'alerts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    /** The email lower-cased: one person's alerts, whatever the case they typed. */
    emailKey: text('email_key').notNull(),
    sessionId: uuid('session_id').references(() => stageSessions.id, { onDelete: 'cascade' }),
    search: jsonb('search'),
    createdVia: text('created_via').notNull(),
    clientId: text('client_id'),
    /**
     * The claim under which an agent made it: the agent lists and removes only these
     * (src/agent-alerts/). Kept null when the claim row is pruned; the alert stays the person's.
     */
    claimId: text('claim_id').references((): AnyPgColumn => agentClaims.id, { onDelete: 'set null' }),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true, mode: 'date' }),
    endsAt: timestamp('ends_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastSentAt: timestamp('last_sent_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    index('alerts_email_idx').on(t.emailKey),
    index('alerts_session_idx').on(t.sessionId),
    index('alerts_claim_idx').on(t.claimId),
    index('alerts_confirmed_idx').on(t.confirmedAt).where(sql`${t.confirmedAt} is not null`),
    check('alerts_what', sql`(${t.sessionId} is null) <> (${t.search} is null)`),
    check('alerts_created_via', sql`${t.createdVia} in ('site', 'agent')`),
    check('alerts_client', sql`(${t.createdVia} = 'agent') = (${t.clientId} is not null)`),
  ],
);

/** An alert's links' secrets, SHA-256 only: the confirmation link, and each email's unsubscribe link. */
export const alertLinks = pgTable(
  'alert_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    alertId: uuid('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    purpose: text('purpose').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('alert_links_alert_idx').on(t.alertId),
    check('alert_links_purpose', sql`${t.purpose} in ('confirm', 'unsubscribe')`),
  ],
);

/** The sessions a search alert was told of: never the same session twice. */
export const alertSentSessions = pgTable(
  'alert_sent_sessions',
  {
    alertId: uuid('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.alertId, t.sessionId] })],
);

/**
 * Confirmation emails sent per address (by its lower-cased email's SHA-256, never the email), for
 * the daily limit whichever instance sends; rows older than a day are deleted.
 */
export const alertConfirmationsSent = pgTable(
  'alert_confirmations_sent',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    emailHash: text('email_hash').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('alert_confirmations_sent_email_idx').on(t.emailHash, t.sentAt)],
);

/**
 * A person's consent that one registered agent client acts for them (issue 26, "The claim"), in the
 * manner of RFC 8628: the client starts it (`pending`, 10 minutes), the signed-in person confirms
 * the user code the agent gave them and approves some of the asked scopes or refuses. An approved
 * claim stays in force until the person revokes it in /mon-espace; tokens carrying it are checked
 * against this row at every request. A client has at most one claim in force.
 */
export const agentClaims = pgTable(
  'agent_claims',
  {
    /** The claim_id the client polls and the person's page names: 128 random bits, base64url. */
    id: text('id').primaryKey(),
    /**
     * A registered client's id, or the URL of a client known by its metadata document (which has
     * no oauth_clients row: hence no foreign key; no client is ever deleted).
     */
    clientId: text('client_id').notNull(),
    /** A URL client's name, from its document when the person approved; null for a registered client (its row has it). */
    clientName: text('client_name'),
    /**
     * SHA-256 of the user code (normalised: letters only, upper case); the code itself is never
     * stored. Null for an authorization given through the authorization-code flow (no code typed).
     */
    userCodeHash: text('user_code_hash'),
    /** How the person gave it: null for the claim (issue 26), `authorization_code` for an agent host's browser flow. */
    via: text('via'),
    /** Space-separated scopes the client asked for, beyond `read`. */
    requestedScopes: text('requested_scopes').notNull(),
    status: text('status').notNull().default('pending'),
    /** Space-separated scopes the person granted (`read` included), once approved. */
    grantedScopes: text('granted_scopes'),
    /** The person who decided; null while pending. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** The token `sub`: opaque, the same for one person and one client, never shown to anyone else. */
    subject: text('subject'),
    wrongCodes: integer('wrong_codes').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastPolledAt: timestamp('last_polled_at', { withTimezone: true, mode: 'date' }),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    check('agent_claims_status', sql`${t.status} in ('pending', 'approved', 'denied')`),
    check('agent_claims_via', sql`${t.via} is null or ${t.via} = 'authorization_code'`),
    // One claim in force per client: the token endpoint finds it by client. An authorization-code
    // grant is found by its code or refresh token instead, and one client may hold several.
    uniqueIndex('agent_claims_one_in_force')
      .on(t.clientId)
      .where(sql`${t.status} = 'approved' and ${t.revokedAt} is null and ${t.via} is null`),
    index('agent_claims_user').on(t.userId),
  ],
);

/**
 * A place a claimed agent holds for its person (issue 26, src/agent-holds/): taken from those on
 * sale like a booking's (held here), for a short time, until the person books it on the hold's
 * completeUrl (`completed`, naming the reservation that inherited the place), the agent releases
 * it, or it expires; the last two give the place back. No personal data: the person is their user
 * id, for the limits only.
 */
export const placeHolds = pgTable(
  'place_holds',
  {
    /** `hld_` + 128 random bits, base64url: the agent's handle and, in completeUrl, the person's capability. */
    id: text('id').primaryKey(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => stageSessions.id, { onDelete: 'cascade' }),
    /** The person it is held for (limits per person); null once their account is erased. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** The claim it was made under: only that claim sees and releases it; null once the claim is pruned. */
    claimId: text('claim_id').references((): AnyPgColumn => agentClaims.id, { onDelete: 'set null' }),
    clientId: text('client_id').notNull(),
    /** The agent's key for a repeatable request: the same key under one claim gives the same hold. */
    idempotencyKey: text('idempotency_key'),
    state: text('state').notNull().default('active'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** When it left `active` (completed, released or expired). */
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }),
    /** The reservation the person made on completeUrl, which holds the place now. */
    reservationId: uuid('reservation_id').references(() => reservations.id, { onDelete: 'set null' }),
  },
  (t) => [
    check('place_holds_state', sql`${t.state} in ('active', 'completed', 'released', 'expired')`),
    uniqueIndex('place_holds_idempotency').on(t.claimId, t.idempotencyKey),
    // One active hold per person per session, whatever the agent.
    uniqueIndex('place_holds_one_per_session').on(t.sessionId, t.userId).where(sql`${t.state} = 'active'`),
    index('place_holds_active_user').on(t.userId).where(sql`${t.state} = 'active'`),
    index('place_holds_due').on(t.expiresAt).where(sql`${t.state} = 'active'`),
  ],
);

/**
 * An agent host's authorization request (issue 27: authorization code + PKCE), from the moment the
 * client sends the person to /api/oauth/authorize until the code it received is spent. The person
 * answers on /agents/connecter?demande={id}; an approval makes a claim (via authorization_code) and
 * a one-time code, stored hashed, bound to the client, redirect URI, PKCE challenge and scopes.
 */
export const oauthAuthorizations = pgTable(
  'oauth_authorizations',
  {
    /** The request's id in the person's page address: 128 random bits, base64url. */
    id: text('id').primaryKey(),
    /** A registered client's id or a metadata document's URL (no foreign key: see agent_claims). */
    clientId: text('client_id').notNull(),
    /** A URL client's name, from its document at the request; null for a registered client. */
    clientName: text('client_name'),
    redirectUri: text('redirect_uri').notNull(),
    /** The client's `state`, given back with the answer. */
    state: text('state'),
    /** The PKCE S256 challenge (RFC 7636). */
    codeChallenge: text('code_challenge').notNull(),
    /** Space-separated agent scopes asked beyond `read` (empty: read only). */
    requestedScopes: text('requested_scopes').notNull(),
    /** Space-separated RFC 8707 resources asked; empty: the MCP endpoint. */
    resources: text('resources').notNull(),
    status: text('status').notNull().default('pending'),
    /** Until when the person may answer. */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** The authorization an approval made (its tokens carry it). */
    claimId: text('claim_id').references(() => agentClaims.id, { onDelete: 'cascade' }),
    /** SHA-256 of the code given to the client; the code itself is never stored. */
    codeHash: text('code_hash'),
    codeExpiresAt: timestamp('code_expires_at', { withTimezone: true, mode: 'date' }),
    codeUsedAt: timestamp('code_used_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    check('oauth_authorizations_status', sql`${t.status} in ('pending', 'approved', 'denied')`),
    uniqueIndex('oauth_authorizations_code').on(t.codeHash),
    index('oauth_authorizations_expiry').on(t.expiresAt),
  ],
);

/**
 * Refresh tokens of authorization-code grants, SHA-256 only. Each use rotates it: the row is marked
 * used and a new one written; a used one presented again revokes the whole grant (its claim).
 */
export const oauthRefreshTokens = pgTable(
  'oauth_refresh_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    claimId: text('claim_id')
      .notNull()
      .references(() => agentClaims.id, { onDelete: 'cascade' }),
    /** A registered client's id or a metadata document's URL (no foreign key: see agent_claims). */
    clientId: text('client_id').notNull(),
    /** The scope of the tokens it gives (`read`, then the granted agent scopes). */
    scope: text('scope').notNull(),
    /** Space-separated audiences of the access tokens it gives. */
    resources: text('resources').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('oauth_refresh_tokens_claim').on(t.claimId), index('oauth_refresh_tokens_expiry').on(t.expiresAt)],
);
