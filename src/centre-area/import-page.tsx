import type { FieldError as ApiIssue } from '../core/errors.js';
import { FieldMessage } from '../web/field.js';
import { Layout, type SiteInfo } from '../web/layout.js';

export const importPath = (centreId: string) => `/espace-centre/centres/${centreId}/import`;

export const FORMATS = { csv: 'CSV', json: 'JSON', ndjson: 'NDJSON' } as const;
export type AreaImportFormat = keyof typeof FORMATS;

export interface ImportPreview {
  draftId: string;
  sessions: { created: number; updated: number; unchanged: number };
}

/** The file input's accepted types: what the import reads (a phone offers these files first). */
export const ACCEPTED_FILES = '.csv,.json,.ndjson,text/csv,application/json';

/** Import a file's sessions: choose it on the phone (or paste it), see the API's dry run, then confirm. */
export function ImportPage(props: {
  site: SiteInfo;
  centreId: string;
  centreName: string;
  formToken: string;
  format: AreaImportFormat;
  content: string;
  maxRecords: number;
  maxMb: number;
  preview?: ImportPreview | undefined;
  /** Why the file was refused, as the API words it, and its issues (line, field, reason). */
  problem?: string | undefined;
  issues?: ApiIssue[] | undefined;
  issueCount?: number | undefined;
  notice?: string | undefined;
  /** Which form the problem is about: the file chosen (`fichier`) or the pasted content (default). */
  problemField?: 'fichier' | 'contenu' | undefined;
  /** The format chosen in the file's form ('' = from the file's name). */
  uploadFormat?: AreaImportFormat | '' | undefined;
  /** The name of the file the preview is of, when it was chosen rather than pasted. */
  fileName?: string | undefined;
}) {
  const { preview } = props;
  const problemField = props.problemField ?? 'contenu';
  const contentError =
    props.problem && problemField === 'contenu' ? { field: 'contenu', message: props.problem } : undefined;
  const fileError =
    props.problem && problemField === 'fichier' ? { field: 'fichier', message: props.problem } : undefined;
  return (
    <Layout
      site={props.site}
      title={`Importer des stages · ${props.centreName}`}
      description="Importer un fichier"
      noindex
    >
      <p>
        <a href="/espace-centre">← Espace centre</a>
      </p>
      <h1>Importer des stages</h1>
      <p>
        {props.centreName} : choisissez un fichier CSV, JSON ou NDJSON au format de l’import de l’API, encodé en UTF-8
        (au plus {props.maxRecords} lignes et {props.maxMb} Mo), ou collez son contenu. Rien n’est écrit avant votre
        confirmation : un aperçu dit d’abord ce qui serait créé ou modifié.
      </p>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      {props.problem ? (
        <div class="errors" role="alert" id="erreurs">
          <h2>Le fichier n’a pas été importé</h2>
          <p>{props.problem}</p>
          {props.issues && props.issues.length > 0 ? (
            <ul>
              {props.issues.map((i) => (
                <li>
                  {i.line !== undefined ? `Ligne ${i.line}` : `Enregistrement ${(i.index ?? 0) + 1}`} · {i.name} :{' '}
                  {i.reason}
                </li>
              ))}
            </ul>
          ) : null}
          {props.issueCount && props.issues && props.issueCount > props.issues.length ? (
            <p>… et {props.issueCount - props.issues.length} autres problèmes.</p>
          ) : null}
        </div>
      ) : null}
      {preview ? (
        <section aria-labelledby="apercu" class="notice">
          <h2 id="apercu">Aperçu : rien n’est encore écrit</h2>
          {props.fileName !== undefined ? <p>Fichier : {props.fileName}</p> : null}
          <ul>
            <li>{preview.sessions.created} stage(s) créé(s)</li>
            <li>{preview.sessions.updated} stage(s) modifié(s)</li>
            <li>{preview.sessions.unchanged} stage(s) inchangé(s)</li>
          </ul>
          <form method="post" action={`${importPath(props.centreId)}/confirmer`}>
            <input type="hidden" name="_csrf" value={props.formToken} />
            <input type="hidden" name="brouillon" value={preview.draftId} />
            <button type="submit">Confirmer l’import</button>
          </form>
        </section>
      ) : null}
      <h2 id="choisir">Choisir le fichier</h2>
      <form
        class="area-form"
        method="post"
        action={importPath(props.centreId)}
        encType="multipart/form-data"
        aria-labelledby="choisir"
        noValidate
      >
        <input type="hidden" name="_csrf" value={props.formToken} />
        <div>
          <label for="format-fichier">Format</label>
          <select id="format-fichier" name="format">
            <option value="" selected={!props.uploadFormat}>
              D’après le nom du fichier
            </option>
            {Object.entries(FORMATS).map(([value, label]) => (
              <option value={value} selected={value === props.uploadFormat}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="fichier">
            Fichier{' '}
            <span class="hint" id="fichier-hint">
              .csv, .json ou .ndjson, encodé en UTF-8 (« CSV UTF-8 » dans Excel), au plus {props.maxMb} Mo
            </span>
          </label>
          <input
            type="file"
            id="fichier"
            name="fichier"
            accept={ACCEPTED_FILES}
            required
            aria-describedby={fileError ? 'fichier-hint fichier-error' : 'fichier-hint'}
            {...(fileError ? { 'aria-invalid': 'true' } : {})}
          />
          <FieldMessage error={fileError} />
        </div>
        <p>
          <button type="submit">Voir l’aperçu du fichier</button>
        </p>
      </form>
      <h2 id="coller">Ou coller son contenu</h2>
      <form class="area-form" method="post" action={importPath(props.centreId)} aria-labelledby="coller" noValidate>
        <input type="hidden" name="_csrf" value={props.formToken} />
        <div>
          <label for="format">Format</label>
          <select id="format" name="format">
            {Object.entries(FORMATS).map(([value, label]) => (
              <option value={value} selected={value === props.format}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="contenu">
            Contenu du fichier{' '}
            <span class="hint" id="contenu-hint">
              CSV : une ligne d’en-tête avec une colonne type ; JSON : {'{"sessions": […]}'}
            </span>
          </label>
          <textarea
            id="contenu"
            name="contenu"
            rows={12}
            required
            aria-describedby={contentError ? 'contenu-hint contenu-error' : 'contenu-hint'}
            {...(contentError ? { 'aria-invalid': 'true' } : {})}
          >
            {props.content}
          </textarea>
          <FieldMessage error={contentError} />
        </div>
        <p>
          <button type="submit">Voir l’aperçu</button>
        </p>
      </form>
    </Layout>
  );
}
