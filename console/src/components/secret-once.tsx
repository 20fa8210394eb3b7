import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Field } from './ui.js';

interface SecretOnceProps {
  /** The id of the panel's heading (the panel is labelled by it). */
  headingId: string;
  heading: ComponentChildren;
  /** What the secret is for and what to do if it is lost, after "This secret is shown only once." */
  explanation: string;
  /** More words after the explanation, in the same paragraph (or '' for none). */
  more?: string;
  /** The secret's field label, e.g. "Client secret". */
  label: string;
  secret: string;
  rows: number;
  /** Shown between the explanation and the secret (e.g. the client id that goes with it). */
  children?: ComponentChildren;
  onDone: () => void;
}

/**
 * A secret the server shows once (an API key's client secret, a webhook's signing secret): the panel
 * takes the focus, offers a copy button (or selects the text where the clipboard is out of reach),
 * and stays until the person says they have stored it. The secret lives only in the caller's state.
 */
export function SecretOnce(props: SecretOnceProps) {
  const ref = useRef<HTMLElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => ref.current?.focus(), [props.secret]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied('Copied to the clipboard.');
    } catch {
      // Without clipboard access (plain http on another host), select the text for Ctrl+C.
      inputRef.current?.select();
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  }

  return (
    <section class="secret-panel" aria-labelledby={props.headingId} tabIndex={-1} ref={ref}>
      <h2 id={props.headingId}>{props.heading}</h2>
      <p>
        <strong>This secret is shown only once.</strong>
        {` ${props.explanation}`}
        {props.more}
      </p>
      {props.children}
      <Field label={props.label}>
        {({ id }) => (
          <div class="copy-row">
            <textarea
              ref={inputRef}
              id={id}
              class="secret-value"
              readOnly
              rows={props.rows}
              value={props.secret}
              spellcheck={false}
              autocomplete="off"
              onFocus={(e) => e.currentTarget.select()}
            />
            <button type="button" class="primary" onClick={() => void copy()}>
              Copy secret
            </button>
          </div>
        )}
      </Field>
      <p role="status" class="copy-status">
        {copied}
      </p>
      <button type="button" onClick={props.onDone}>
        I have stored the secret
      </button>
    </section>
  );
}
