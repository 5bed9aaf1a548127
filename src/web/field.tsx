import type { ComponentChildren, InputHTMLAttributes } from 'preact';

/** What is wrong with one field of a form, shown next to it and linked from the list above. */
export interface FieldError {
  field: string;
  message: string;
}

/** An input's error message, tied to it by aria-describedby. */
export function FieldMessage({ error }: { error: FieldError | undefined }) {
  return error ? (
    <span class="field-error" id={`${error.field}-error`}>
      {error.message}
    </span>
  ) : null;
}

/** The attributes that tie an input to its hint and its error, for screen readers. */
export function described(error: FieldError | undefined, hintId?: string) {
  const ids = [hintId, error ? `${error.field}-error` : undefined].filter(Boolean).join(' ');
  return {
    ...(error ? { 'aria-invalid': 'true' as const } : {}),
    ...(ids ? { 'aria-describedby': ids } : {}),
  };
}

export interface FieldProps {
  /** The input's id and name. */
  name: string;
  label: ComponentChildren;
  /** A few words in the label; with an id, the input is described by them too. */
  hint?: { text: string; id?: string } | undefined;
  error: FieldError | undefined;
  /** The input's other attributes (type, value, autocomplete…), written in this order. */
  input: InputHTMLAttributes;
}

/** One input of a form: its label (and hint), the input, and its error message. */
export function Field({ name, label, hint, error, input }: FieldProps) {
  return (
    <div>
      <label for={name}>
        {label}
        {hint ? (
          <>
            {' '}
            <span class="hint" id={hint.id}>
              {hint.text}
            </span>
          </>
        ) : null}
      </label>
      <input id={name} name={name} {...input} {...described(error, hint?.id)} />
      <FieldMessage error={error} />
    </div>
  );
}
