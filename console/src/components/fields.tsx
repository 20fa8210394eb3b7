import type { ComponentChildren, JSX } from 'preact';
import { Field } from './ui.js';

/** A choice's value and the words shown for it. */
export type Choice = readonly [value: string, label: string];

interface SelectFieldProps {
  label: string;
  /** A fixed id for the select (otherwise one is generated). */
  id?: string;
  hint?: string;
  /** The message next to the select (a refusal, or why its choices could not be loaded). */
  error?: string | undefined;
  /** A form's select whose value the server may refuse: it says `aria-invalid` (false until refused). */
  refusable?: boolean;
  value: string;
  disabled?: boolean;
  onChange: (value: string) => void;
  /** The choices after any given as children (children come first: "All", "None", an unknown one). */
  choices?: readonly Choice[];
  children?: ComponentChildren;
}

/** A labelled select (a `Field`), its hint and error tied to it. */
export function SelectField(props: SelectFieldProps) {
  return (
    <Field label={props.label} id={props.id} hint={props.hint} error={props.error}>
      {({ id, describedBy, invalid }) => (
        <select
          id={id}
          aria-describedby={describedBy}
          aria-invalid={props.refusable ? invalid : undefined}
          disabled={props.disabled}
          value={props.value}
          onChange={(e) => props.onChange(e.currentTarget.value)}
        >
          {props.children}
          {(props.choices ?? []).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** A labelled search box; `onInput` has every keystroke (the caller debounces what it sends). */
export function SearchField(props: { label: string; value: string; onInput: (value: string) => void }) {
  return (
    <Field label={props.label}>
      {({ id, describedBy }) => (
        <input
          id={id}
          aria-describedby={describedBy}
          type="search"
          value={props.value}
          onInput={(e) => props.onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/**
 * "All workplaces", a workplace that is not (or no longer) in the company's list, then the list: a
 * workplace filter's choices.
 */
export function WorkplaceChoices(props: {
  selected: string;
  workplaces: readonly { id: string; name: string }[];
}) {
  return (
    <>
      <option value="">All workplaces</option>
      {props.selected && !props.workplaces.some((w) => w.id === props.selected) ? (
        <option value={props.selected}>Unknown workplace</option>
      ) : null}
      {props.workplaces.map((w) => (
        <option key={w.id} value={w.id}>
          {w.name}
        </option>
      ))}
    </>
  );
}

/** The error line of a group of check boxes (a fieldset), written as `Field` writes one control's. */
export function FieldsetError(props: { id: string; message: string | undefined }) {
  return props.message ? (
    <p class="field-error" id={props.id}>
      <span aria-hidden="true">⚠ </span>
      {props.message}
    </p>
  ) : null;
}

/** The input's own attributes beyond id, description, validity, value and input (type, inputMode, …). */
type InputAttributes = Omit<JSX.IntrinsicElements['input'], 'id' | 'value' | 'onInput'>;

/** A labelled text input (or date, email, …); `refusable` as for `SelectField`. */
export function TextField(props: {
  label: string;
  id?: string;
  hint?: string | undefined;
  error?: string | undefined;
  refusable?: boolean;
  value: string;
  onInput: (value: string) => void;
  input?: InputAttributes;
}) {
  return (
    <Field label={props.label} id={props.id} hint={props.hint} error={props.error}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          type="text"
          {...props.input}
          aria-describedby={describedBy}
          aria-invalid={props.refusable ? invalid : undefined}
          value={props.value}
          onInput={(e) => props.onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}
