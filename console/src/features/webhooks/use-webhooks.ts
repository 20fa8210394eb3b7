import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf } from '../../api.js';
import { hrefOf, navigate } from '../../router.js';
import type { Delivery, Endpoint, Pending, WithSecret } from './model.js';

/** The company's endpoints and the messages of the screen. */
function useEndpoints() {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [secret, setSecret] = useState<WithSecret | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  async function load() {
    try {
      setEndpoints((await api<{ items: Endpoint[] }>('GET', '/webhooks')).items);
      setLoadError(null);
    } catch (caught) {
      setLoadError(messageOf(caught));
    }
  }
  useEffect(() => {
    void load();
  }, []);
  return { endpoints, loadError, secret, setSecret, status, setStatus, actionError, setActionError, load };
}

/** The recent deliveries of one endpoint. */
function useDeliveries() {
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [deliveryError, setDeliveryError] = useState<string | null>(null);
  async function loadDeliveries(id: string) {
    try {
      const path = `/webhooks/${encodeURIComponent(id)}/deliveries?limit=50`;
      setDeliveries((await api<{ items: Delivery[] }>('GET', path)).items);
      setDeliveryError(null);
    } catch (caught) {
      setDeliveries(null);
      setDeliveryError(
        caught instanceof ApiProblem && (caught.status === 404 || caught.status === 400)
          ? 'No such webhook endpoint in this company.'
          : messageOf(caught),
      );
    }
  }
  const reset = () => {
    setDeliveries(null);
    setDeliveryError(null);
  };
  return { deliveries, deliveryError, loadDeliveries, reset };
}

/**
 * Everything the webhooks screen holds: endpoints, deliveries, messages, the secret shown once, the
 * action waiting for a confirmation, and `act`, which runs an action, reloads, says what happened and
 * gives the focus back to the button that started it.
 */
export function useWebhooks(target: string | undefined) {
  const list = useEndpoints();
  const log = useDeliveries();
  const [pending, setPending] = useState<Pending>(null);
  const [busy, setBusy] = useState(false);
  // The replay window chosen last stays chosen from one endpoint to the next.
  const [replayHours, setReplayHours] = useState('24');
  const opener = useRef<HTMLElement | null>(null);

  useEffect(() => {
    log.reset();
    list.setStatus(null);
    list.setActionError(null);
    if (target) void log.loadDeliveries(target);
  }, [target]);

  async function act(run: () => Promise<string>) {
    setBusy(true);
    list.setStatus(null);
    list.setActionError(null);
    try {
      const message = await run();
      await list.load();
      if (target) await log.loadDeliveries(target);
      list.setStatus(message);
    } catch (caught) {
      list.setActionError(messageOf(caught));
    } finally {
      setBusy(false);
      setPending(null);
      opener.current?.focus();
    }
  }

  const remember = (event: Event) => {
    opener.current = event.currentTarget as HTMLElement;
  };
  const cancel = () => {
    setPending(null);
    opener.current?.focus();
  };
  function confirm() {
    const waiting = pending;
    if (!waiting) return;
    const { kind, endpoint } = waiting;
    if (kind === 'delete')
      void act(async () => {
        await api('DELETE', `/webhooks/${endpoint.id}`);
        if (target) navigate(hrefOf(['webhooks']));
        return `${endpoint.url} is deleted.`;
      });
    else
      void act(async () => {
        list.setSecret(await api<WithSecret>('POST', `/webhooks/${endpoint.id}/rotate-secret`));
        return `The secret of ${endpoint.url} is rotated.`;
      });
  }

  return {
    ...list,
    ...log,
    pending,
    setPending,
    busy,
    act,
    remember,
    cancel,
    confirm,
    replayHours,
    setReplayHours,
  };
}

export type Webhooks = ReturnType<typeof useWebhooks>;

/** Turns an endpoint on or off. */
export function toggle(hooks: Webhooks, endpoint: Endpoint) {
  return hooks.act(async () => {
    const next = endpoint.status === 'active' ? 'disabled' : 'active';
    await api('PATCH', `/webhooks/${endpoint.id}`, { status: next });
    return next === 'disabled'
      ? `${endpoint.url} is disabled: nothing more is sent to it.`
      : `${endpoint.url} is active again; replay covers what it missed.`;
  });
}
