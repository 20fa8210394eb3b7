import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiProblem, messageOf } from '../../api.js';
import { addDays, formatDay } from '../../format.js';
import {
  deleteShift,
  loadRoster,
  type Roster,
  type RosterShift,
  saveShift,
  type ShiftDraft,
} from './model.js';

/** Below this width the roster shows one day at a time (the console's cards breakpoint). */
const NARROW = '(max-width: 760px)';

export function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW).matches);
  useEffect(() => {
    const query = window.matchMedia(NARROW);
    const update = () => setNarrow(query.matches);
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return narrow;
}

export function useRoster(workplaceId: string, from: string, to: string) {
  const [roster, setRoster] = useState<Roster | null>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++latest.current;
    try {
      const loaded = await loadRoster(workplaceId, from, to);
      if (mine === latest.current) {
        setRoster(loaded);
        setError(null);
      }
    } catch (caught) {
      if (mine !== latest.current) return;
      setRoster(null);
      setError(
        caught instanceof ApiProblem && caught.status === 404
          ? 'No such workplace in this company.'
          : messageOf(caught),
      );
    }
  }, [workplaceId, from, to]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { roster, error, reload };
}

export const newDraft = (employeeId: string, date: string): ShiftDraft => ({
  employeeId,
  date,
  startTime: '09:00',
  endTime: '17:00',
  breakMinutes: 30,
  note: '',
});

export const draftOf = (shift: RosterShift): ShiftDraft => ({
  employeeId: shift.employee.id,
  date: shift.date,
  startTime: shift.startTime,
  endTime: shift.endTime,
  breakMinutes: shift.breakMinutes,
  note: shift.note ?? '',
});

interface Editing {
  shift: RosterShift | null;
  initial: ShiftDraft;
}

/** Opening, saving, deleting and moving shifts; every change reloads the roster and says what happened. */
export function useEditing(
  roster: Roster | null,
  reload: () => Promise<void>,
  say: (message: string) => void,
) {
  const [editing, setEditing] = useState<Editing | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const workplaceId = roster?.workplace?.id ?? '';
  const run = async (work: () => Promise<string>, onProblem: (p: ApiProblem) => void) => {
    setBusy(true);
    try {
      say(await work());
      setEditing(null);
      await reload();
    } catch (caught) {
      onProblem(caught instanceof ApiProblem ? caught : new ApiProblem(0, 'error', messageOf(caught), null));
    } finally {
      setBusy(false);
    }
  };
  return {
    editing,
    busy,
    problem,
    open(shift: RosterShift | null, initial: ShiftDraft) {
      setProblem(null);
      setEditing({ shift, initial });
    },
    close: () => setEditing(null),
    save: (draft: ShiftDraft) =>
      run(async () => {
        const saved = await saveShift(workplaceId, draft, editing?.shift?.id ?? null);
        return `Shift ${saved.startTime}–${saved.endTime} on ${formatDay(saved.date)} ${editing?.shift ? 'saved' : 'planned'}.`;
      }, setProblem),
    remove: () =>
      run(async () => {
        await deleteShift(editing!.shift!.id);
        return 'The shift was deleted.';
      }, setProblem),
    move: (shift: RosterShift, days: number) =>
      run(
        async () => {
          const draft = { ...draftOf(shift), date: addDays(shift.date, days) };
          const saved = await saveShift(workplaceId, draft, shift.id);
          return `Shift moved to ${formatDay(saved.date)}, ${saved.startTime}–${saved.endTime}.`;
        },
        (p) => say(`The shift was not moved: ${p.text}`),
      ),
  };
}
