import type { Command } from 'commander';
import { admin } from '../io.js';
import { seedDemo } from '../../modules/demo/service.js';
import { resolveUrls } from '../../platform/config.js';

function describeDemo(d: Awaited<ReturnType<typeof seedDemo>>): string {
  return [
    `demo company ${d.companyId}`,
    `client id: ${d.clientId}`,
    `secret:    ${d.secret}   (shown only now)`,
    'get a token:',
    `  ${d.tokenCurl}`,
    'a link to the console for the demo administrator (admin@demo.example):',
    `  punchclock user invite ${d.adminUserId}`,
  ].join('\n');
}

/** `demo`. */
export function registerDemoCommand(program: Command): void {
  admin(
    program.command('demo').description('seed a demo company on an empty database'),
    (ctx, config) => seedDemo(ctx, resolveUrls(config, config.port).publicBaseUrl),
    describeDemo,
  );
}
