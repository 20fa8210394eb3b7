import { Loading, Notice, ScreenHeading } from '../../components/ui.js';
import { formatDay } from '../../format.js';
import { personName } from '../../names.js';
import { hrefOf, navigate } from '../../router.js';
import { PinForm } from '../devices/pin-form.js';
import { EmployeeForm } from './employee-form.js';
import type { Employees } from './use-employees.js';

/** `#/employees/new` and `#/employees/<id>`: the form, for a new employee or an existing one. */
export function EmployeeDetailPage(props: { employees: Employees; target: string; canManage: boolean }) {
  const { employees: e, canManage } = props;
  const { detail, detailError } = e;
  const creating = props.target === 'new';
  const title = creating ? 'New employee' : detail ? `Employee ${personName(detail)}` : 'Employee';
  return (
    <>
      <ScreenHeading title={title}>
        <p class="lede">
          {creating
            ? 'The same checks as `punchclock employee create`; a refusal is shown next to its field.'
            : canManage
              ? 'Change any field and save; only what you changed is sent.'
              : 'Your permissions let you see this employee; changing needs permission 92.'}
        </p>
      </ScreenHeading>
      <Notice tone="error" message={detailError} />
      <Notice tone="error" message={e.actionError} />
      {creating && !canManage ? (
        <p>Your permissions do not include creating employees (92).</p>
      ) : creating || detail ? (
        <>
          <section class="card" aria-label={title}>
            <EmployeeForm
              key={detail?.id ?? 'new'}
              employee={creating ? null : detail}
              workplaces={e.workplaces}
              schedules={e.schedules}
              canEdit={canManage}
              onSaved={(saved, created) => {
                const name = personName(saved);
                e.setStatus(created ? `${name} is created.` : `The changes to ${name} are saved.`);
                e.setSearch('');
                e.reload();
                navigate(hrefOf(['employees']));
              }}
              onDelete={(employee) => e.askToDelete(employee, document.activeElement as HTMLElement | null)}
            />
            {detail?.scheduleFrom ? (
              <p class="hint">The schedule assigned last applies from {formatDay(detail.scheduleFrom)}.</p>
            ) : null}
          </section>
          {detail && canManage ? (
            <PinForm
              key={detail.id}
              path={`/employees/${detail.id}/pin`}
              title="Kiosk PIN"
              idPrefix="employee"
              doneText="The PIN is set. Tell the employee in person; it is not shown again."
              hint="4 to 8 digits, for the kiosk (the employee chooses their name, then the PIN). It replaces any earlier PIN; the employee can also set it on My day."
            />
          ) : null}
        </>
      ) : !detailError ? (
        <Loading what="the employee" />
      ) : (
        <p>
          <a href={hrefOf(['employees'])}>Back to the employees</a>
        </p>
      )}
    </>
  );
}
