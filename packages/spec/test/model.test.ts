// The contract model: the facts every tool reads, checked once, and the one Ajv configuration.
import { describe, expect, it, vi } from 'vitest';
import {
  ContractError,
  ContractModel,
  contractModel,
  integerQueryMessage,
  integerQueryParameters,
  loadSandboxSpec,
  patternMeanings,
  readLimits,
  ServiceTime,
  type OpenApiDocument,
} from '../src/index.js';
import { loadBuiltSpec } from './support.js';

const doc = loadBuiltSpec();
const copy = (): OpenApiDocument => JSON.parse(JSON.stringify(doc)) as OpenApiDocument;
const limitsOf = (d: OpenApiDocument) => d.info['x-limits'] as Record<string, unknown>;

describe('quota headers, order statuses and credential schemes', () => {
  it('names the quota headers as the 429 declares them, and the shipped codes as OrderStatusCode lists them', () => {
    const model = new ContractModel(doc);
    expect(model.quotaHeaders).toEqual({
      limit: 'X-RateLimit-Limit',
      remaining: 'X-RateLimit-Remaining',
      reset: 'X-RateLimit-Reset',
      retryAfter: 'Retry-After',
    });
    expect(model.orderStatuses).toEqual({ shipped: [30, 40] });
    expect(model.credentialSchemes).toEqual([
      { name: 'WmsApiKey', kind: 'apiKey', header: 'X-API-Key', keyArea: 'wms' },
      { name: 'ManagerApiKey', kind: 'apiKey', header: 'X-API-Key', keyArea: 'manager' },
      { name: 'CamApiKey', kind: 'apiKey', header: 'X-API-Key', keyArea: 'cam' },
      { name: 'BearerAuth', kind: 'http', header: 'Authorization', httpScheme: 'bearer' },
    ]);
    expect([10, 20, 30, 40, 90].filter((code) => model.isShipped(code))).toEqual([30, 40]);
  });

  it('follows a change of the spec, and refuses a shipped code the contract does not know', () => {
    const changed = copy();
    const statuses = changed.components!.schemas!.OrderStatusCode as Record<string, unknown>;
    statuses['x-shipped-values'] = [30];
    expect(new ContractModel(changed).isShipped(40)).toBe(false);
    statuses['x-shipped-values'] = [30, 50];
    expect(() => new ContractModel(changed)).toThrow(/shipped status 50/);
    delete statuses['x-shipped-values'];
    expect(() => new ContractModel(changed)).toThrow(/x-shipped-values/);
  });
});

describe('response headers', () => {
  it('lists every header a response declares, once, as the contract spells it, and follows a change of the spec', () => {
    const headers = new ContractModel(doc).responseHeaders;
    expect(headers).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']));
    expect(headers).toEqual([...headers].sort());
    expect(new Set(headers.map((h) => h.toLowerCase())).size).toBe(headers.length);
    const changed = copy();
    const op = Object.values(changed.paths!)[0] as Record<string, { responses: Record<string, { headers?: object }> }>;
    const response = Object.values(Object.values(op).find((o) => o?.responses)!.responses)[0]!;
    response.headers = { ...response.headers, 'X-Request-Cost': { schema: { type: 'integer' } } };
    expect(new ContractModel(changed).responseHeaders).toContain('X-Request-Cost');
  });
});

describe('limits', () => {
  it("reads the source's limits table as x-limits states it", () => {
    const { limits } = new ContractModel(doc);
    expect(limits.gateway.map((g) => [g.appliesTo, g.ratePerSecond, g.burst])).toEqual([
      ['/v3/', 30, 50],
      ['/v3/mcp/', 10, 10],
    ]);
    expect(Object.fromEntries(limits.monthlyQuota)).toEqual({ test: 1000, live: null, jwt: null });
    expect(limits.bulkRowsPerRequest).toBe(1000);
    expect(limits.returnWithdrawalDeadline).toEqual({ hour: 18, minute: 0 });
    expect(limits.queryIntegerSyntax.test('10')).toBe(true);
    expect(limits.queryIntegerSyntax.test('1e1')).toBe(false);
  });

  it('names the integer query parameters the syntax applies to, and words a refusal once for every server', () => {
    const { limits, operations } = new ContractModel(doc);
    const listWmsOrders = operations.find((op) => op.operationId === 'listWmsOrders')!;
    expect(integerQueryParameters(doc, listWmsOrders).sort()).toEqual(['order_status_code', 'page', 'size']);
    const syntax = limits;
    expect(integerQueryMessage('size', '10', syntax)).toBeUndefined();
    // In words, never the pattern: it was "must be written as decimal digits only (^[0-9]{1,9}$)."
    expect(integerQueryMessage('size', '1e1', syntax)).toBe(
      'The query parameter size must be written as decimal digits only, at most nine, with no sign, point, exponent or space.',
    );
    expect(integerQueryMessage('size', ['1', '2'], syntax)).toBe('The query parameter size must be given once.');
  });

  it('words the integer query syntax as its pattern reads: the most digits it takes, and no sign, point or space', () => {
    // Both are written by hand in spec/components/x-limits.yaml; a new length in one must come with the other.
    const { queryIntegerSyntax, queryIntegerMeaning } = new ContractModel(doc).limits;
    const most = Array.from({ length: 20 }, (_, i) => i + 1).filter((n) => queryIntegerSyntax.test('7'.repeat(n)));
    expect(most).toEqual(Array.from({ length: most.length }, (_, i) => i + 1));
    const words = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
    expect(queryIntegerMeaning).toContain(`at most ${words[most.length - 1]},`);
    for (const [refused, word] of [
      ['+5', 'sign'],
      ['-5', 'sign'],
      ['5.0', 'point'],
      ['5e1', 'exponent'],
      [' 5', 'space'],
    ] as const) {
      expect(queryIntegerSyntax.test(refused), refused).toBe(false);
      expect(queryIntegerMeaning).toContain(word);
    }
  });

  it('follows a change of the spec without a change of code', () => {
    const changed = copy();
    (limitsOf(changed).gateway as Record<string, unknown>).burst = 70;
    (limitsOf(changed).monthly_quota as Record<string, Record<string, unknown>>).test!.calls_per_month = 500;
    limitsOf(changed).return_withdrawal_deadline = '17:30';
    const limits = readLimits(changed);
    expect(limits.gateway.find((g) => g.name === 'gateway')!.burst).toBe(70);
    expect(limits.monthlyQuota.get('test')).toBe(500);
    expect(limits.returnWithdrawalDeadline).toEqual({ hour: 17, minute: 30 });
  });

  it.each([
    [
      'a gateway burst',
      (d: OpenApiDocument) => delete (limitsOf(d).gateway as Record<string, unknown>).burst,
      /gateway\.burst/,
    ],
    ['the row limit', (d: OpenApiDocument) => (limitsOf(d).bulk_rows_per_request = 'many'), /bulk_rows_per_request/],
    [
      'the deadline',
      (d: OpenApiDocument) => (limitsOf(d).return_withdrawal_deadline = '6pm'),
      /return_withdrawal_deadline/,
    ],
    [
      'an unanchored syntax',
      (d: OpenApiDocument) => (limitsOf(d).query_integer_syntax = '[0-9]+'),
      /query_integer_syntax/,
    ],
    [
      'the syntax without words',
      (d: OpenApiDocument) => delete limitsOf(d).query_integer_meaning,
      /query_integer_meaning/,
    ],
    ['the time zone', (d: OpenApiDocument) => (d.info['x-service-time-zone'] = 'Mars/Olympus'), /time zone/],
  ])('refuses a contract that misstates %s, naming it', (_, mutate, message) => {
    const changed = copy();
    mutate(changed);
    expect(() => new ContractModel(changed)).toThrow(message);
  });
});

describe('operations and codes', () => {
  const model = contractModel();

  it('is made once for the bundled contract', () => {
    expect(contractModel()).toBe(model);
  });

  it('finds operations, their codes per status, and the areas a scheme opens', () => {
    const op = model.operation('listManagerOrders');
    expect(op.security).toEqual(['ManagerApiKey', 'BearerAuth']);
    expect(model.errorCodes(op, 401)).toEqual(['AUTH_MISSING_TOKEN', 'AUTH_INVALID_TOKEN', 'AUTH_EXPIRED_TOKEN']);
    expect(model.areasAccepting('BearerAuth')).toEqual(['manager', 'pay']);
    expect(model.gatewayLimits('/v3/mcp/tools').map((g) => g.name)).toEqual(['gateway_mcp', 'gateway']);
    expect(() => model.operation('noSuchOperation')).toThrow(ContractError);
  });

  it('reads the known values of an open set through its references', () => {
    expect(model.knownValues({ $ref: '#/components/schemas/OrderStatusCode' })).toEqual([10, 20, 30, 40, 90]);
    expect(model.knownValues({ $ref: '#/components/schemas/ProductCode' })).toBeUndefined();
  });

  it('lists every provisional element: operations, parameters and nested schema nodes', () => {
    const names = model.provisionalElements().map((e) => `${e.kind} ${e.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'operation listWmsOrders',
        'parameter Size',
        'schema Identifier',
        'schema Pagination.size',
      ]),
    );
    expect(names).not.toContain('operation listManagerOrders');
  });
});

describe('validators: one configuration, full and relaxed', () => {
  const model = contractModel();
  const row = {
    mall_order_no: 'M',
    mall_product_name: 'P',
    draft_id: 'D-1',
    status: 'open',
    created_at: '2026-11-20 10:00:00',
    success: true,
    result_message: '',
  };
  const draftRow = { $ref: '#/components/schemas/DraftResult' };

  it('the full validator knows x-known-values; the relaxed one does not', () => {
    const full = model.validator().errors(draftRow, { ...row, status: 'confirmed' });
    expect(full.map((e) => e.message)).toEqual(["'confirmed' is not a known value ('open', ''): the set is open"]);
    expect(model.validator({ relaxed: true }).errors(draftRow, { ...row, status: 'confirmed' })).toEqual([]);
    expect(model.validator({ openValues: true }).errors(draftRow, { ...row, status: 'confirmed' })).toEqual([]);
    // Open values only: every other constraint stays.
    expect(model.validator({ openValues: true }).errors(draftRow, { ...row, draft_id: '' })).not.toEqual([]);
  });

  it("reports a result row's errors against the shape its success names, not the other shape", () => {
    const failed = { ...row, draft_id: '', status: '', created_at: '', success: false, result_message: 'Duplicate.' };
    // A failure row with a creation time: only that is wrong, not every field the success row would need.
    const errors = model.validator().errors(draftRow, failed);
    expect(errors).toEqual([]);
    const mixed = model.validator().errors(draftRow, { ...failed, created_at: '2026-11-20 10:00:00' });
    expect(mixed.map((e) => `${e.instancePath} ${e.keyword}`)).toEqual(['/created_at const']);
    // A success row with a message: the message, not the failure row's fields.
    const success = model.validator().errors(draftRow, { ...row, result_message: 'Registered.' });
    expect(success.map((e) => `${e.instancePath} ${e.keyword}`)).toEqual(['/result_message const']);
  });

  it('the relaxed validator keeps what the source shows', () => {
    expect(model.validator({ relaxed: true }).errors(draftRow, { ...row, draft_id: '' })).not.toEqual([]);
    expect(
      model.validator({ relaxed: true }).errors({ $ref: '#/components/schemas/ProductCode' }, 'a'.repeat(101)),
    ).toEqual([]);
    expect(model.validator().errors({ $ref: '#/components/schemas/ProductCode' }, 'a'.repeat(101))).not.toEqual([]);
  });

  it('coerces request text only when asked', () => {
    const size = model.operation('listWmsOrders').parameters.find((p) => p.name === 'size')!.schema!;
    expect(model.validator({ coerceTypes: true }).errors(size, '10')).toEqual([]);
    expect(model.validator().errors(size, '10')).not.toEqual([]);
  });

  it('compiles a schema once', () => {
    const v = model.validator();
    expect(v.compile(draftRow)).toBe(v.compile({ $ref: '#/components/schemas/DraftResult' }));
  });

  it('finds a schema it has seen by identity, without serialising it again', () => {
    const v = model.validator();
    const size = model.operation('listWmsOrders').parameters.find((p) => p.name === 'size')!.schema!;
    const first = v.compile(size);
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      expect(v.compile(size)).toBe(first);
      expect(v.errors(size, 10)).toEqual([]);
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
  });
});

describe('patterns in words (x-pattern-meaning)', () => {
  const model = contractModel();
  const dateTime = { $ref: '#/components/schemas/DateTime' };
  const date = { $ref: '#/components/schemas/CalendarDate' };
  const words = {
    date: 'must be a date that exists, written YYYY-MM-DD (such as 2026-11-20)',
    dateTime: 'must be a date and time that exist, written YYYY-MM-DD HH:MM:SS (such as 2026-11-20 14:03:12)',
  };

  it('a calendar value written wrong gets one error, in words, in place of the pattern, its length and format', () => {
    for (const v of [model.validator(), model.validator({ relaxed: true, openValues: true })]) {
      for (const [schema, value, said] of [
        [dateTime, '2026-12-01T00:00:00', words.dateTime],
        [dateTime, '2026-02-29 00:00:00', words.dateTime],
        [date, '2026-02-30', words.date],
        [date, '2026-12-1', words.date],
      ] as const) {
        const errors = v.errors(schema, value);
        expect(
          errors.map((e) => e.message),
          value,
        ).toEqual([said]);
      }
      // Each value its own error; a schema inlined without the extension is read by its pattern's text.
      const inlined = { ...(doc.components!.schemas!.CalendarDate as Record<string, unknown>) };
      delete inlined['x-pattern-meaning'];
      const pair = { type: 'object', properties: { from: inlined, to: date } };
      expect(
        v.errors(pair, { from: '2026-13-01', to: '20261201' }).map((e) => `${e.instancePath} ${e.message}`),
      ).toEqual([`/from ${words.date}`, `/to ${words.date}`]);
      expect(v.errors(date, '2024-02-29')).toEqual([]);
    }
  });

  it('a text value written wrong gets one error, in words, whatever its fault: a control character, empty or too long', () => {
    const control = 'with no control character (U+0000–U+001F or U+007F, such as a line break or a tab)';
    // The full validator: the relaxed one does not hold a value to these bounds, which are this contract's design.
    const v = model.validator();
    for (const [schema, value, said] of [
      ['ReceiverName', 'Kim\nMinji', `must be text of 1 to 50 characters ${control}`],
      ['ReceiverName', '', `must be text of 1 to 50 characters ${control}`],
      ['ReceiverName', 'K'.repeat(51), `must be text of 1 to 50 characters ${control}`],
      ['ProductName', 'Linen\tshirt', `must be text of 1 to 200 characters ${control}`],
      [
        'ReceiverPhone',
        'call me',
        'must be a phone number of 7 to 20 characters: an optional +, then digits and hyphens, starting and ending with a digit (such as 010-1234-5678)',
      ],
    ] as const) {
      expect(
        v.errors({ $ref: `#/components/schemas/${schema}` }, value).map((e) => e.message),
        `${schema} ${JSON.stringify(value)}`,
      ).toEqual([said]);
    }
    // The words hold at their bounds: what they allow, the schema takes.
    for (const [schema, value] of [
      ['ReceiverName', 'K'.repeat(50)],
      ['ReceiverName', '김'],
      ['ReceiverPhone', '1234567'],
      ['ReceiverPhone', '1'.repeat(20)],
      ['ReceiverPhone', `+${'1'.repeat(19)}`],
      ['McpToolName', `w${'_'.repeat(63)}`],
    ] as const)
      expect(v.errors({ $ref: `#/components/schemas/${schema}` }, value), `${schema} ${value}`).toEqual([]);
    expect(v.errors({ $ref: '#/components/schemas/ReceiverPhone' }, '1'.repeat(21))).not.toEqual([]);
  });

  it('a pattern without a meaning is quoted as it is', () => {
    const errors = model.validator().errors({ $ref: '#/components/schemas/SingleLineText' }, 'a\tb');
    expect(errors.map((e) => e.message)).toEqual(['must match pattern "^[^\\x00-\\x1F\\x7F]*$"']);
  });

  it('one pattern given two meanings is an error of the contract', () => {
    const twice = {
      a: { pattern: '^x$', 'x-pattern-meaning': 'an x' },
      b: { pattern: '^x$', 'x-pattern-meaning': 'a y' },
    };
    expect(() => patternMeanings(twice)).toThrow('the pattern ^x$ has two meanings in x-pattern-meaning');
    expect(patternMeanings({ ...twice, b: twice.a }).get('^x$')).toBe('an x');
  });

  it('every pattern of both documents carries its meaning, but for a few short ones whose length is bounded apart', () => {
    // A pattern that bounds no length leaves the length to maxLength: put in words, a value both too long and
    // written wrong would be told only the words. Each of these is short enough to read as it is.
    const unbounded = [
      '^[^\\x00-\\x1F\\x7F]*$',
      '^[^\\x00-\\x1F\\x7F-\\x9F]*$',
      '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
      '^(?:0|[1-9][0-9]{0,2})(?:,(?:0|[1-9][0-9]{0,2}))*$',
    ];
    const unread = new Set<string>();
    for (const document of [doc, loadSandboxSpec()]) {
      const meanings = patternMeanings(document);
      const stack: unknown[] = [document];
      while (stack.length > 0) {
        const node = stack.pop();
        if (node === null || typeof node !== 'object') continue;
        const { pattern } = node as { pattern?: unknown };
        if (typeof pattern === 'string' && !meanings.has(pattern)) unread.add(pattern);
        // An example's value is data, not a schema of the contract.
        for (const [key, value] of Object.entries(node)) if (key !== 'example' && key !== 'examples') stack.push(value);
      }
    }
    expect([...unread].sort()).toEqual([...unbounded].sort());
    expect(unbounded.every((p) => p.length <= 64)).toBe(true);
    expect([...patternMeanings(doc).values()]).toEqual(
      expect.arrayContaining([words.dateTime, words.date].map((w) => w.slice(8))),
    );
  });
});

describe('the service calendar', () => {
  const time = new ServiceTime(contractModel().timeZone);
  const at = (text: string) => time.parseDateTime(text)!;

  it('resets the quota at 00:00 on the 1st of next month, service time', () => {
    expect(time.format(time.startOfNextMonth(at('2026-11-20 14:03:12')))).toBe('2026-12-01 00:00:00');
    expect(time.format(time.startOfNextMonth(at('2026-12-31 23:59:59')))).toBe('2027-01-01 00:00:00');
    // 2026-12-01 00:30 in Seoul is still 30 November in UTC: the service clock decides the month.
    expect(time.monthOf(at('2026-11-30 23:59:59'))).toBe('2026-11');
    expect(time.monthOf(at('2026-12-01 00:30:00'))).toBe('2026-12');
  });

  it('writes each instant in its own zone, and again after a full memory of texts', () => {
    const utc = new ServiceTime('UTC');
    const instant = at('2026-11-20 14:03:12');
    expect(time.format(instant)).toBe('2026-11-20 14:03:12');
    // The same second read by a service in another zone is another text: what one zone wrote is not the other's.
    expect(utc.format(instant)).toBe('2026-11-20 05:03:12');
    expect(time.format(instant)).toBe('2026-11-20 14:03:12');
    for (let s = 0; s < 10_001; s++) utc.format(instant + s);
    expect(utc.format(instant + 10_000)).toBe('2026-11-20 07:49:52');
    expect(utc.format(instant)).toBe('2026-11-20 05:03:12');
  });

  it('ends the return window at the first deadline after registration (G13)', () => {
    const deadline = contractModel().limits.returnWithdrawalDeadline;
    const until = (registered: string) => time.format(time.nextTimeOfDay(at(registered), deadline));
    expect(until('2026-11-20 17:59:59')).toBe('2026-11-20 18:00:00');
    expect(until('2026-11-20 18:00:00')).toBe('2026-11-21 18:00:00');
    expect(until('2026-11-20 19:00:00')).toBe('2026-11-21 18:00:00');
    expect(until('2026-12-31 20:00:00')).toBe('2027-01-01 18:00:00');
  });

  it('reads the years 0000 to 0099 as those years, not 1900 to 1999 (0000 is a leap year)', () => {
    const utc = new ServiceTime('UTC');
    const iso = (text: string) => Date.parse(text) / 1000;
    expect(utc.startOfDate('0000-02-29')).toBe(iso('0000-02-29T00:00:00Z'));
    expect(utc.parseDateTime('0050-06-01 12:00:00')).toBe(iso('0050-06-01T12:00:00Z'));
    expect(utc.parseDateTime('0099-12-31 23:59:59')).toBe(iso('0099-12-31T23:59:59Z'));
    expect(utc.startOfDate('9999-12-31')).toBe(iso('9999-12-31T00:00:00Z'));
    for (const none of ['0100-02-29', '1900-02-29', '0001-02-29']) expect(utc.startOfDate(none), none).toBeUndefined();
    // In the service time zone too, where the offset of year 0 is not today's, and back to the same text.
    for (const text of ['0000-02-29 00:00:00', '0000-01-01 00:00:00', '0099-12-31 23:59:59', '9999-12-31 23:59:59']) {
      expect(time.format(at(text)), text).toBe(text);
    }
    expect(time.dateOf(at('0000-02-29 12:00:00'))).toBe('0000-02-29');
    expect(time.format(time.atTimeOnDayOf(at('9999-12-31 12:00:00'), 0, 0, 0, -1))).toBe('9999-12-30 00:00:00');
    expect(ServiceTime.addDays('0000-02-28', 1)).toBe('0000-02-29');
    expect(ServiceTime.addDays('0099-12-31', 1)).toBe('0100-01-01');
    expect(ServiceTime.addDays('0001-01-01', -1)).toBe('0000-12-31');
  });

  it('reads and shows only real times', () => {
    expect(time.parseDateTime('2026-02-29 00:00:00')).toBeUndefined();
    expect(time.format(at('2028-02-29 23:59:59') + 1)).toBe('2028-03-01 00:00:00');
    expect(time.startOfDate('2026-04-31')).toBeUndefined();
  });
});
