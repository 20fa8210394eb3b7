import { TextField } from '../../components/fields.js';
import type { FormProblem } from '../../components/form-problem.js';
import { Field } from '../../components/ui.js';
import type { Draft } from './model.js';

/* The fields of the Company screen's single sign-on form. */

interface FieldsProps {
  draft: Draft;
  configured: boolean;
  problem: FormProblem;
  set: (change: Partial<Draft>) => void;
}

const PLAIN = { autocomplete: 'off', spellcheck: false } as const;

export function SsoFields(props: FieldsProps) {
  const { draft, problem, set } = props;
  return (
    <>
      <TextField
        label="Issuer URL"
        id="sso-issuer"
        hint="The provider's issuer, e.g. https://login.microsoftonline.com/<tenant>/v2.0 or https://sso.example.com/realms/acme."
        error={problem.error('issuer')}
        refusable
        value={draft.issuer}
        onInput={(issuer) => set({ issuer })}
        input={{ ...PLAIN, inputMode: 'url' }}
      />
      <TextField
        label="Client ID"
        id="sso-clientId"
        error={problem.error('clientId')}
        refusable
        value={draft.clientId}
        onInput={(clientId) => set({ clientId })}
        input={PLAIN}
      />
      <TextField
        label="Client secret"
        id="sso-clientSecret"
        hint={
          props.configured
            ? 'Stored encrypted and never shown. Leave empty to keep it (a new issuer or client ID needs a new secret).'
            : 'Stored encrypted and never shown again.'
        }
        error={problem.error('clientSecret')}
        refusable
        value={draft.clientSecret}
        onInput={(clientSecret) => set({ clientSecret })}
        input={{ type: 'password', autocomplete: 'new-password', spellcheck: false }}
      />
      <TextField
        label="Allowed email domains"
        id="sso-allowedDomains"
        hint="Comma-separated, e.g. acme.example, acme-corp.example. A domain belongs to one company only, and not one where another company has people. Never a public mail provider's (gmail.com, outlook.com, …); unless you are a super admin, only one where the company's people already have addresses."
        error={problem.error('allowedDomains')}
        refusable
        value={draft.domains}
        onInput={(domains) => set({ domains })}
        input={PLAIN}
      />
      <TextField
        label="Groups claim (optional)"
        id="sso-groupsClaim"
        hint="The claim that lists a person's groups, e.g. groups."
        error={problem.error('groupsClaim')}
        refusable
        value={draft.groupsClaim}
        onInput={(groupsClaim) => set({ groupsClaim })}
        input={PLAIN}
      />
      <MappingField {...props} />
      <Check
        id="sso-create-people"
        label="Create people at their first sign-in"
        hint="Off: only people already added here may sign in."
        checked={draft.createPeople}
        onChange={(createPeople) => set({ createPeople })}
      />
      <Check
        id="sso-require"
        label="Refuse password sign-in for the company's people"
        hint="Super admins keep their password, as a way back in when the provider is down. So do people whose email is outside the allowed domains, and people with rights you lack, until they link their account. Turning this on signs out the password sessions it refuses, yours too unless you are a super admin."
        checked={draft.requireSso}
        onChange={(requireSso) => set({ requireSso })}
      />
    </>
  );
}

function MappingField({ draft, problem, set }: FieldsProps) {
  return (
    <Field
      label="Permissions by group (optional)"
      id="sso-groupPermissions"
      hint="One line per group: group = permission numbers, e.g. payroll = 47, 49. Set again at every sign-in, only for people whose permissions are all yours (never a super admin)."
      error={problem.error('groupPermissions')}
    >
      {({ id, describedBy, invalid }) => (
        <textarea
          id={id}
          rows={3}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          spellcheck={false}
          value={draft.mapping}
          onInput={(e) => set({ mapping: e.currentTarget.value })}
        />
      )}
    </Field>
  );
}

function Check(props: {
  id: string;
  label: string;
  hint: string;
  checked: boolean;
  onChange: (v: boolean) => void;
}) {
  return (
    <div class="check">
      <input
        type="checkbox"
        id={props.id}
        aria-describedby={`${props.id}-hint`}
        checked={props.checked}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
      <label for={props.id}>{props.label}</label>
      <p class="hint" id={`${props.id}-hint`}>
        {props.hint}
      </p>
    </div>
  );
}
