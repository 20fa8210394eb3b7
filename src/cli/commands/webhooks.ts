import type { Command } from 'commander';
import { admin } from '../io.js';
import { createCursorCodec } from '../../domain/cursor.js';
import { type AppContext } from '../../modules/context.js';
import { loadAppSecret } from '../../platform/app-secrets.js';
import { type Config } from '../../platform/config.js';
import {
  type WebhookSettings,
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
} from '../../modules/webhooks/endpoints.js';
import { listDeliveries, replay } from '../../modules/webhooks/deliveries.js';

async function settings(ctx: AppContext, config: Config): Promise<WebhookSettings> {
  return {
    key:
      config.webhooks.encryptionKey ??
      (await loadAppSecret(ctx.database.db, 'webhook_encryption_key', ctx.now())),
    policy: config.webhooks,
  };
}

async function cursors(ctx: AppContext) {
  return createCursorCodec(await loadAppSecret(ctx.database.db, 'cursor_hmac_key', ctx.now()));
}

/** `webhook create|list|delete|deliveries|replay`: an operator's endpoints receive every event type asked for. */
/** `webhook create|list|delete`. */
function registerEndpointCommands(webhook: Command): void {
  admin(
    webhook
      .command('create')
      .description('register a webhook endpoint (its secret is shown only now)')
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--url <url>', 'the receiver, an absolute https URL')
      .requiredOption(
        '--events <types>',
        'comma-separated event types, e.g. time_entry.completed,day.confirmed',
      )
      .option('--description <text>', 'a note for people'),
    async (ctx, config, _args, f) =>
      createEndpoint(
        ctx,
        await settings(ctx, config),
        f.company!,
        { kind: 'operator' },
        {
          url: f.url!,
          eventTypes: f
            .events!.split(',')
            .map((t) => t.trim())
            .filter(Boolean),
          description: f.description ?? null,
        },
      ),
    (r) =>
      [
        `webhook ${r.id} → ${r.url}`,
        `events: ${r.eventTypes.join(', ')}`,
        `secret: ${r.secret}   (shown only now)`,
      ].join('\n'),
  );
  admin(
    webhook
      .command('list')
      .description("a company's webhook endpoints")
      .requiredOption('--company <id>', 'company id'),
    async (ctx, _config, _args, f) =>
      listEndpoints(ctx.database.db, await cursors(ctx), f.company!, { limit: 100 }),
    (r) =>
      r.items.length === 0
        ? 'no webhook endpoints'
        : r.items
            .map(
              (e) =>
                `${e.id}  ${e.url}  [${e.eventTypes.join(' ')}]  ${e.status}${e.disabledReason ? ` (${e.disabledReason})` : ''}`,
            )
            .join('\n'),
  );
  admin(
    webhook
      .command('delete')
      .description('delete a webhook endpoint')
      .argument('<id>', 'endpoint id')
      .requiredOption('--company <id>', 'company id'),
    async (ctx, _config, [id], f) => {
      await deleteEndpoint(ctx, f.company!, { kind: 'operator' }, id!);
      return { id: id!, deleted: true };
    },
    (r) => `webhook ${r.id} deleted`,
  );
}

/** `webhook deliveries|replay`. */
function registerDeliveryCommands(webhook: Command): void {
  admin(
    webhook
      .command('deliveries')
      .description("an endpoint's recent deliveries, newest first")
      .argument('<id>', 'endpoint id')
      .requiredOption('--company <id>', 'company id')
      .option('--limit <n>', 'how many (1-100, default 25)'),
    async (ctx, _config, [id], f) =>
      listDeliveries(ctx.database.db, await cursors(ctx), f.company!, id!, {
        limit: Math.min(100, Math.max(1, Number(f.limit ?? 25) || 25)),
      }),
    (r) =>
      r.items.length === 0
        ? 'no deliveries'
        : r.items
            .map(
              (d) =>
                `${d.createdAt}  ${d.eventType}  ${d.eventId}  ${d.status}  attempts ${d.attempts}  ${d.statusCode ?? d.error ?? ''}${d.nextAttemptAt ? `  next ${d.nextAttemptAt}` : ''}`,
            )
            .join('\n'),
  );
  admin(
    webhook
      .command('replay')
      .description('send events again: a time range (--from/--to) or one delivery (--delivery)')
      .argument('<id>', 'endpoint id')
      .requiredOption('--company <id>', 'company id')
      .option('--from <date-time>', 'start of the range (inclusive)')
      .option('--to <date-time>', 'end of the range (exclusive; default now)')
      .option('--delivery <id>', 'one earlier delivery'),
    async (ctx, _config, [id], f) =>
      replay(
        ctx,
        f.company!,
        { kind: 'operator' },
        id!,
        f.delivery !== undefined
          ? { deliveryId: f.delivery }
          : { from: f.from ?? '', to: f.to ?? new Date(ctx.now()).toISOString() },
      ),
    (r) => `${r.queued} deliveries queued`,
  );
}

export function registerWebhookCommands(program: Command): void {
  const webhook = program.command('webhook').description("a company's webhook endpoints");
  registerEndpointCommands(webhook);
  registerDeliveryCommands(webhook);
}
