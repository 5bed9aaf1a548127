import { AlertForm } from '../../alerts/pages.js';
import { formatPrice } from '../../catalogue/price.js';
import type { SessionEntry } from '../../catalogue/read-model.js';
import { BookingSection, type BookingState } from '../../reservations/pages/booking-form.js';
import { departmentPath, MapLink, SessionList, SpotsLeft } from '../../web/components.js';
import { frenchDate, frenchTime } from '../../web/format.js';
import { KeptMarkup, kept } from '../../web/kept-markup.js';
import { Layout, type SiteInfo } from '../../web/layout.js';
import { Notices } from '../../web/notices.js';
import { CentreSection, SessionFacts } from '../../web/session-facts.js';
import type { SessionStatus } from '../structured-data.js';
import { sessionJsonLdText } from '../structured-data.js';

export interface SessionPageProps {
  site: SiteInfo;
  entry: SessionEntry;
  status: SessionStatus;
  /** Past, but its second day not yet over (in its zone): it has begun rather than ended. */
  underway: boolean;
  alternatives: readonly SessionEntry[];
  /** Article slug → title, for the articles this page links to (absent ones are not linked). */
  articles: ReadonlyMap<string, string>;
  path: string;
  /** The reservation form's anti-forgery token, its state after a refused submission, and a notice. */
  booking: BookingState;
}

function ArticleLink({
  articles,
  slug,
  children,
}: {
  articles: ReadonlyMap<string, string>;
  slug: string;
  children: string;
}) {
  return articles.has(slug) ? <a href={`/articles/${slug}`}>{children}</a> : children;
}

/** Why a session cannot be booked, above its facts. */
function StatusNotice({
  status,
  underway,
  day1,
  start,
}: {
  status: SessionStatus;
  underway: boolean;
  day1: string;
  start: string;
}) {
  return status === 'cancelled' ? (
    <p class="notice" role="status">
      Ce stage a été annulé par le centre. Voici les prochains stages près de là.
    </p>
  ) : status === 'past' && underway ? (
    <p class="notice" role="status">
      Ce stage a commencé le {frenchDate(day1)} à {frenchTime(start)} : les inscriptions sont closes. Voici les
      prochains stages près de là.
    </p>
  ) : status === 'past' ? (
    <p class="notice" role="status">
      Ce stage est terminé : il a commencé le {frenchDate(day1)}. Voici les prochains stages près de là.
    </p>
  ) : status === 'full' ? (
    <p class="notice" role="status">
      Ce stage est complet : il ne reste plus de place. Voici les prochains stages près de là.
    </p>
  ) : null;
}

/** The next bookable sessions near one that cannot be booked. */
function Alternatives({
  centre: c,
  entries,
}: {
  centre: SessionEntry['view']['centre'];
  entries: readonly SessionEntry[];
}) {
  return (
    <section aria-labelledby="autres">
      <h2 id="autres">Prochains stages près de {c.city}</h2>
      {entries.length ? (
        <SessionList entries={entries} />
      ) : (
        <p>Aucun autre stage n’est proposé pour le moment dans ce département ni dans sa région.</p>
      )}
      <p>
        <a href={departmentPath(c.deptCode)}>Tous les stages du département {c.deptName}</a>
      </p>
    </section>
  );
}

/** What to bring, attendance, and when the points come back, with the articles that say more. */
function GoodToKnow({ articles }: { articles: ReadonlyMap<string, string> }) {
  return (
    <>
      <h2 id="pratique">Bon à savoir</h2>
      <ul>
        <li>
          À apporter : une pièce d’identité et votre permis de conduire ; pour un permis probatoire, la lettre 48N
          reçue. Le détail :{' '}
          <ArticleLink articles={articles} slug="reserver-un-stage-etapes-et-documents">
            réserver un stage, étapes et documents
          </ArticleLink>
          .
        </li>
        <li>
          Présence obligatoire aux deux journées complètes ; un retard ou une absence fait perdre le bénéfice du stage (
          <ArticleLink articles={articles} slug="deroulement-des-deux-jours-de-stage">
            déroulement des deux jours
          </ArticleLink>
          ).
        </li>
        <li>
          Jusqu’à 4 points sont crédités à partir du lendemain du second jour, dans la limite du maximum de votre permis
          ; un stage volontaire au plus une fois par an (
          <ArticleLink articles={articles} slug="quand-les-points-sont-ils-credites">
            quand les points sont-ils crédités
          </ArticleLink>
          ).
        </li>
      </ul>
    </>
  );
}

/** The session's facts and its places, or why none are on sale. */
function Facts({ entry, status, underway }: { entry: SessionEntry; status: SessionStatus; underway: boolean }) {
  return (
    <SessionFacts entry={entry} hoursNote="les deux jours (14 heures en tout)" priceClass="price">
      <dt>Places</dt>
      <dd>
        {status === 'past' ? (
          underway ? (
            'inscriptions closes'
          ) : (
            'stage terminé'
          )
        ) : status === 'cancelled' ? (
          'stage annulé'
        ) : (
          <SpotsLeft spots={entry.view.spotsAvailable} />
        )}
      </dd>
    </SessionFacts>
  );
}

// What a session's page shows of it, kept per entry (entries are immutable: a changed session is a
// new entry) and status, ~1 KB each; the centre's section per centre; the advice once per set of articles.
const keptFacts = new KeptMarkup<SessionEntry>(1024 * 1024);
const keptCentres = new KeptMarkup<SessionEntry['view']['centre']>(512 * 1024);
const keptGoodToKnow = new KeptMarkup<ReadonlyMap<string, string>>(64 * 1024);

export function SessionPage(props: SessionPageProps) {
  const { entry, status, articles } = props;
  const s = entry.view;
  const c = s.centre;
  // A place held for this person (a hold's page) is theirs to book even when none is left on sale.
  const bookable = status === 'available' || (status === 'full' && props.booking.hold !== undefined);
  // A refused form says so in the title too: it is what a screen reader announces first.
  const title = `${props.booking.state?.errors.length ? 'Erreur : ' : ''}Stage du ${frenchDate(s.day1)} à ${c.city}`;
  return (
    <Layout
      site={props.site}
      title={title}
      description={`Stage de récupération de points les ${frenchDate(s.day1)} et ${frenchDate(s.day2)} à ${c.city} (${c.deptName}), ${formatPrice(s.priceEuros)}, centre agréé ${c.name}.`}
      canonicalPath={props.path}
      jsonLd={[sessionJsonLdText(entry, `${props.site.baseUrl}${props.path}`)]}
    >
      <h1>
        Stage de récupération de points à {c.city} ({c.deptCode})
      </h1>
      <StatusNotice status={status} underway={props.underway} day1={s.day1} start={s.startTime} />
      {kept({
        tag: 'div',
        attrs: { class: 'card' },
        cache: keptFacts,
        of: entry,
        variant: `${status}${props.underway ? ' underway' : ''}`,
        render: () => <Facts entry={entry} status={status} underway={props.underway} />,
      })}

      {bookable ? <BookingSection entry={entry} {...props.booking} /> : <Notices problem={props.booking.notice} />}

      {status === 'full' && !bookable && props.booking.mailEnabled ? (
        <AlertForm fields={{ sessionId: entry.record.id }} heading="h2" />
      ) : null}

      {!bookable ? <Alternatives centre={c} entries={props.alternatives} /> : null}

      <CentreSection centre={c} keptIn={keptCentres}>
        <p>Agrément préfectoral n° {c.agrementNumber}</p>
        <MapLink lat={c.lat} lng={c.lng} />
      </CentreSection>

      {kept({
        tag: 'section',
        attrs: { 'aria-labelledby': 'pratique' },
        cache: keptGoodToKnow,
        of: articles,
        render: () => <GoodToKnow articles={articles} />,
      })}
    </Layout>
  );
}
