import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { useFormProblem } from '../../components/form-problem.js';
import { bodyOf, type Draft, draftOf, parseMapping, type SsoSettings } from './model.js';

const REFUSED = 'Not saved: a field needs a change (marked below).';

/** The section's state and actions: load, save, remove. */
export function useSso() {
  const [settings, setSettings] = useState<SsoSettings | null>(null);
  const [draft, setDraft] = useState<Draft>(draftOf(null));
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const problem = useFormProblem({ focusId: (field) => `sso-${field}` });

  const loaded = (next: SsoSettings) => {
    setSettings(next);
    setDraft(draftOf(next.configuration));
  };
  useEffect(() => {
    api<SsoSettings>('GET', '/company/sso')
      .then(loaded)
      .catch((caught: unknown) => setError(`Single sign-on could not be loaded: ${messageOf(caught)}`));
  }, []);

  async function run(action: () => Promise<string>) {
    setBusy(true);
    setStatus(null);
    setError(null);
    problem.clear();
    try {
      setStatus(await action());
    } catch (caught) {
      setError(problem.take(caught) > 0 ? REFUSED : messageOf(caught));
    } finally {
      setBusy(false);
    }
  }

  async function save() {
    const mapping = parseMapping(draft.mapping);
    if (typeof mapping === 'string') {
      setStatus(null);
      setError(REFUSED);
      problem.refuse({ groupPermissions: mapping });
      return;
    }
    await run(async () => {
      loaded(await api<SsoSettings>('PUT', '/company/sso', bodyOf(draft, mapping)));
      return 'Single sign-on is saved. People of these domains can now continue with single sign-on.';
    });
  }

  async function remove() {
    await run(async () => {
      await api('DELETE', '/company/sso');
      loaded(await api<SsoSettings>('GET', '/company/sso'));
      return 'Single sign-on is removed. People sign in with their passwords again.';
    });
  }
  return { settings, draft, setDraft, status, error, problem, busy, save, remove };
}
