import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiProblem, type FieldProblem } from '../api.js';

/** The field a problem's pointer names: "/body/email" and "email" both name "email". */
function fieldName(pointer: string): string {
  return pointer.split('/').at(-1) ?? pointer;
}

function messageFor(errors: readonly FieldProblem[], field: string): string | undefined {
  return errors.find((e) => e.field === field || e.field.endsWith(`/${field}`))?.message;
}

export interface FormProblem {
  /** The message for `field`, from the form's own check or from the server's refusal. */
  error(field: string): string | undefined;
  /** Forgets every field error (a new submission starts clean). */
  clear(): void;
  /**
   * The form's own check before sending: the fields given a message are refused (in the order
   * given). Answers whether any was.
   */
  refuse(messages: Record<string, string | undefined>): boolean;
  /**
   * A caught error: when it is a problem document, its `errors` become the field errors. Answers how
   * many fields it refused (of `fields` only, when given); 0 for any other error.
   */
  take(caught: unknown, fields?: readonly string[]): number;
}

/**
 * The one way a form shows refused fields: each message next to its field (see `Field`'s `error`),
 * and, when the form gives `focusId` (the id of a field's control by its name), the focus on the
 * first refused field once the messages are on the screen.
 */
export function useFormProblem(options: { focusId?: (field: string) => string } = {}): FormProblem {
  const [errors, setErrors] = useState<readonly FieldProblem[]>([]);
  const focusNext = useRef<string | null>(null);

  useEffect(() => {
    if (focusNext.current === null) return;
    document.getElementById(focusNext.current)?.focus();
    focusNext.current = null;
  }, [errors]);

  function show(list: readonly FieldProblem[]) {
    const first = list[0];
    if (first && options.focusId) focusNext.current = options.focusId(fieldName(first.field));
    setErrors(list);
  }

  return {
    error: (field) => messageFor(errors, field),
    clear: () => setErrors([]),
    refuse(messages) {
      const list = Object.entries(messages).flatMap(([field, message]) =>
        message ? [{ field, message }] : [],
      );
      show(list);
      return list.length > 0;
    },
    take(caught, fields) {
      const list = caught instanceof ApiProblem ? caught.fieldErrors : [];
      show(list);
      return fields ? fields.filter((field) => messageFor(list, field) !== undefined).length : list.length;
    },
  };
}
