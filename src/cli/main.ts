import { Command, CommanderError } from 'commander';
import { registerLeaveCommands } from './commands/absences.js';
import { registerBackupCommands } from './commands/backup.js';
import { registerCompanyCommands } from './commands/companies.js';
import { registerCorrectionCommands } from './commands/corrections.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerEmployeeCommands } from './commands/employees.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerServerCommands } from './commands/server.js';
import { registerSsoCommands } from './commands/sso.js';
import { registerTimeCommands } from './commands/time.js';
import { registerTransferCommands } from './commands/transfer.js';
import { registerUserCommands } from './commands/users.js';
import { registerWebhookCommands } from './commands/webhooks.js';
import { registerShiftCommands } from './commands/shifts.js';
import { registerDeviceCommands } from './commands/devices.js';
import { reason } from './io.js';

function buildProgram(): Command {
  const program = new Command('punchclock')
    .description('Punchclock time & attendance API: server and administration')
    .exitOverride()
    // Commander's own error text (and help shown for a missing command) is replaced by main's one line.
    .configureOutput({ writeErr: () => {} });
  registerServerCommands(program);
  registerCompanyCommands(program);
  registerEmployeeCommands(program);
  registerUserCommands(program);
  registerKeyCommands(program);
  registerTimeCommands(program);
  registerCorrectionCommands(program);
  registerDemoCommand(program);
  registerBackupCommands(program);
  registerTransferCommands(program);
  registerWebhookCommands(program);
  registerShiftCommands(program);
  registerSsoCommands(program);
  registerLeaveCommands(program);
  registerDeviceCommands(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help asked for (`--help`, `help <command>`) exits 0; help shown because no command was given is a failure.
      if (error.exitCode === 0) return 0;
      if (error.code === 'commander.help') {
        process.stderr.write('error: missing command (see --help)\n');
        return 1;
      }
    }
    process.stderr.write(`error: ${reason(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
