// A return withdrawn at once after its registration. The source: "cancellable until 18:00", after which
// RETURN_CANCEL_EXPIRED; a return registered before that time and withdrawn before it must be withdrawn. One
// registered at or after it having a window until the next day's is our design (DECISIONS.md G13): refused then,
// it is a departure. Either way the run meets RETURN_CANCEL_EXPIRED only when the clock is past the deadline: on a
// server that offers the sandbox's test clock (run/sandbox.ts), the kit moves the account's clock past a second
// return's window, withdraws it, and puts the clock back.
import type { OperationInfo } from '@cls-api/spec';
import { dataOf, errorCode, type CaseContext, type CaseDef, type RunEnv } from '../../run/case.js';
import { bulkTarget, storedRow, type Row } from '../shared/bulk.js';
import { draw } from '../../contract/generate.js';
import type { Exchange } from '../../run/http.js';
import { checkServiceTimes } from '../shared/service-time.js';
import { SandboxAnswerError, type SandboxSession } from '../../run/sandbox.js';

export function returnCancelExpiredCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const register = contract.findOperation('registerOrders');
  const cancel = contract.operations.find(
    (op) => op.method === 'post' && contract.documents(op, 'RETURN_CANCEL_EXPIRED'),
  );
  const registerReturn = cancel
    ? contract.operations.find((op) => op.method === 'post' && op.requestBody && cancel.path.startsWith(`${op.path}/{`))
    : undefined;
  const cancelParam = cancel?.parameters.find((p) => p.in === 'path');
  if (!cancel || !registerReturn || !cancelParam || !register || !contract.bulk(register)) return [];
  // The read of one return, at the path its withdrawal extends (`/returns/{return_no}`).
  const getReturn = contract.operations.find(
    (op) => op.method === 'get' && op.path.endsWith(`/{${cancelParam.name}}`) && cancel.path.startsWith(`${op.path}/`),
  );
  return [
    {
      id: `workflows/codes/RETURN_CANCEL_EXPIRED/${cancel.operationId}`,
      phase: 'workflows',
      title: `${cancel.method.toUpperCase()} ${cancel.path} right after the return is registered: withdrawn while the window is open`,
      // The read back of the return is one call more, not an operation the case is run for.
      operations: [cancel.operationId, registerReturn.operationId],
      writes: true,
      reaches: ['RETURN_CANCEL_EXPIRED', 'DUPLICATE'],
      run: async (t) => {
        const target = await bulkTarget(t, register, contract.bulk(register)!);
        // The order registered once per run (bulk.ts, storedRow): the return is the only new record.
        const orderNo = (await storedRow(t, target)).result.order_no;
        if (typeof orderNo !== 'string' || orderNo === '') return;
        const body = {
          ...(draw(t.env.generator.valid(registerReturn.requestBody!.schema!), t.env.random) as Row),
          order_no: orderNo,
        };
        const registered = await t.call(registerReturn, { body });
        if (!t.expect(registered, registerReturn, { status: contract.successStatus(registerReturn) })) return;
        // A second return of the same order while the first is open: the documented 409 DUPLICATE, nothing created.
        const again = await t.call(registerReturn, { body });
        t.expect(again, registerReturn, {
          status: contract.statusOf('DUPLICATE'),
          code: 'DUPLICATE',
          why: 'a second open return of one order',
          ...(registerReturn.provisional
            ? { provisional: `${registerReturn.operationId} is x-provisional: its one-open-return rule is designed` }
            : {}),
        });
        const ret = dataOf<Row>(registered);
        // registered_at is the now of the registration (cancellable_until is the window's end, hours later).
        checkServiceTimes(
          t,
          [{ record: { registered_at: ret?.registered_at }, where: 'the registered return' }],
          registered,
          registerReturn,
        );
        const returnNo = ret?.[cancelParam.name];
        if (typeof returnNo !== 'string') return;
        if (getReturn) await readBack(t, getReturn, cancelParam.name, returnNo, body.order_no);
        const withdrawn = await withdrawAtOnce(t, cancel, cancelParam.name, returnNo, ret, registered);
        // The first return withdrawn, the order may have another: the one whose window the test clock closes.
        const sandbox = withdrawn ? await t.env.sandbox?.session() : undefined;
        if (sandbox) await withdrawPastTheWindow(t, sandbox, registerReturn, cancel, cancelParam.name, body);
      },
    },
  ];
}

/**
 * The return just registered, read by its number: the read's own success (no other case has a return to read), and
 * the return it names.
 */
async function readBack(
  t: CaseContext,
  getReturn: OperationInfo,
  param: string,
  returnNo: string,
  orderNo: unknown,
): Promise<void> {
  const read = await t.call(getReturn, { path: { [param]: returnNo } });
  const why = `return ${returnNo}, just registered`;
  if (!t.expect(read, getReturn, { status: t.contract.successStatus(getReturn), why })) return;
  const got = dataOf<Row>(read);
  t.assert(
    got?.[param] === returnNo && got?.order_no === orderNo,
    'expected_outcome',
    `${why}, of order ${String(orderNo)}`,
    `${param} ${JSON.stringify(got?.[param])}, order_no ${JSON.stringify(got?.order_no)}`,
    read,
    getReturn,
  );
}

/**
 * The withdrawal of the return just registered, judged against the deadline of the day it was registered; true when
 * the return was withdrawn.
 */
async function withdrawAtOnce(
  t: CaseContext,
  cancel: OperationInfo,
  param: string,
  returnNo: string,
  ret: Row | undefined,
  registered: Exchange,
): Promise<boolean> {
  const { contract } = t;
  const time = contract.time;
  // Judged on the service's clock, never the kit's: the return's own registered_at (else the Date of the
  // answer that registered it) and the Date of the answer to the withdrawal. A run may start at any hour, and
  // the two clocks may differ by minutes across the deadline.
  const registeredAt =
    (typeof ret?.registered_at === 'string' ? time.parseDateTime(ret.registered_at) : undefined) ??
    serviceClock(registered, t);
  const { hour, minute } = contract.limits.returnWithdrawalDeadline;
  const deadline = time.atTimeOnDayOf(registeredAt, hour, minute);
  const withdrawn = await t.call(cancel, { path: { [param]: returnNo } });
  const answeredAt = serviceClock(withdrawn, t);
  const why = `return ${returnNo} registered at ${time.format(registeredAt)}, withdrawn at once`;
  const success = contract.successStatus(cancel);
  if (withdrawn.response.status === success || registeredAt < deadline) {
    if (registeredAt < deadline && answeredAt >= deadline && withdrawn.response.status !== success) {
      t.note(`${why}: the deadline ${time.format(deadline)} passed in between; not judged`);
      return false;
    }
    return t.expect(withdrawn, cancel, { status: success, why: `${why}, before ${time.format(deadline)}` });
  }
  const expired = contract.statusOf('RETURN_CANCEL_EXPIRED');
  if (withdrawn.response.status === expired && errorCode(withdrawn.response.json) === 'RETURN_CANCEL_EXPIRED') {
    t.depart(
      'expected_outcome',
      `HTTP ${success} (${why}, at or after the day's deadline ${time.format(deadline)}: open until the next day's)`,
      `HTTP ${expired} RETURN_CANCEL_EXPIRED`,
      'a return registered at or after the deadline time having a window until the next day is our design (DECISIONS.md G13); the source says "cancellable until 18:00" only',
      withdrawn,
      cancel,
    );
    return false;
  }
  t.expect(withdrawn, cancel, { status: success, why });
  return false;
}

/** The sandbox's test clock as its document shapes it (`SandboxClock`). */
interface SandboxClock {
  now: string;
  offset_seconds: number;
  frozen: boolean;
}

/**
 * A return registered, the account's test clock frozen one second past its window (`cancellable_until`, else the
 * deadline after its registration), and the return withdrawn: 400 RETURN_CANCEL_EXPIRED. The clock goes back to
 * where it stood, whatever happened. A helper that answers other than its document says is noted, not failed:
 * the helpers are the sandbox's, not the contract's.
 */
async function withdrawPastTheWindow(
  t: CaseContext,
  sandbox: SandboxSession,
  registerReturn: OperationInfo,
  cancel: OperationInfo,
  param: string,
  body: Row,
): Promise<void> {
  const { contract } = t;
  const time = contract.time;
  const registered = await t.call(registerReturn, { body });
  if (
    !t.expect(registered, registerReturn, {
      status: contract.successStatus(registerReturn),
      why: "the order's first return withdrawn",
    })
  )
    return;
  const ret = dataOf<Row>(registered);
  const returnNo = ret?.[param];
  if (typeof returnNo !== 'string') return;
  const until = windowEnd(t, ret, registered);
  const past = until + 1;
  let before: SandboxClock;
  try {
    before = await sandbox.data<SandboxClock>('readClock', 'primary');
  } catch (err) {
    if (err instanceof SandboxAnswerError) return t.note(`the sandbox's test clock: ${err.message}; not judged`);
    throw err;
  }
  try {
    await sandbox.data('setClock', 'primary', { at: time.format(past), frozen: true });
    const withdrawn = await t.call(cancel, { path: { [param]: returnNo } });
    t.expect(withdrawn, cancel, {
      status: contract.statusOf('RETURN_CANCEL_EXPIRED'),
      code: 'RETURN_CANCEL_EXPIRED',
      why: `return ${returnNo} withdrawn with the account's test clock at ${time.format(past)}, past its window (until ${time.format(until)})`,
    });
  } catch (err) {
    if (!(err instanceof SandboxAnswerError)) throw err;
    t.note(`the sandbox's test clock: ${err.message}; not judged`);
  } finally {
    await restoreClock(t, sandbox, before);
  }
}

/** The end of a return's withdrawal window: its `cancellable_until`, else the deadline after its registration. */
function windowEnd(t: CaseContext, ret: Row | undefined, registered: Exchange): number {
  const time = t.contract.time;
  const given = typeof ret?.cancellable_until === 'string' ? time.parseDateTime(ret.cancellable_until) : undefined;
  if (given !== undefined) return given;
  const registeredAt =
    (typeof ret?.registered_at === 'string' ? time.parseDateTime(ret.registered_at) : undefined) ??
    serviceClock(registered, t);
  // Registered at or after the day's deadline, the window runs to the next day's (DECISIONS.md G13).
  return time.nextTimeOfDay(registeredAt, t.contract.limits.returnWithdrawalDeadline);
}

/** The clock back where it stood: on real time when it was, else at the time it read, running or frozen as it was. */
async function restoreClock(t: CaseContext, sandbox: SandboxSession, before: SandboxClock): Promise<void> {
  try {
    if (before.offset_seconds === 0 && !before.frozen) await sandbox.data('realTime', 'primary');
    else await sandbox.data('setClock', 'primary', { at: before.now, frozen: before.frozen });
  } catch (err) {
    if (!(err instanceof SandboxAnswerError)) throw err;
    t.note(`the sandbox's test clock was not put back (it read ${before.now} before): ${err.message}`);
  }
}

/**
 * The service's clock when it answered (seconds): the answer's `Date` header (RFC 9110 has an origin server send
 * it), else the kit's own clock, said in a note.
 */
function serviceClock(exchange: Exchange, t: CaseContext): number {
  const date = exchange.response.headers.date;
  const at = typeof date === 'string' ? Date.parse(date) : Number.NaN;
  if (Number.isFinite(at)) return Math.floor(at / 1000);
  t.note("the answer has no Date header: the kit's own clock stands in for the service's");
  return Math.floor(t.env.now() / 1000);
}
