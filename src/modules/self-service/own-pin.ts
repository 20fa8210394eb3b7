import { actorOf, type AppContext, inTransaction } from '../context.js';
import { hashPin, setEmployeePin } from '../devices/pins.js';
import type { ConsolePerson } from '../people/person.js';
import { requireWritingSelf } from './self.js';

/** PUT /self/pin: the PIN (checked and hashed before the transaction) of the person's own employee. */
export async function setOwnPin(ctx: AppContext, person: ConsolePerson, pin: string) {
  const self = await requireWritingSelf(ctx.database.db, person);
  const hashed = await hashPin(pin);
  return inTransaction(ctx, (tx, now) => setEmployeePin(tx, now, self.employee.id, hashed, actorOf(person)));
}
