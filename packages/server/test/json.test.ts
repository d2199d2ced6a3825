// exceedsJsonDepth: the bound every server of the contract puts on a JSON body before parsing it.
import { describe, expect, it } from 'vitest';
import {
  bodyMediaTypeMessage,
  contentCodingMessage,
  exceedsJsonDepth,
  illFormedTextMessage,
  MAX_JSON_DEPTH,
  namesMediaType,
} from '../src/index.js';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

describe('exceedsJsonDepth', () => {
  it("allows the contract's bodies and anything up to the bound", () => {
    expect(exceedsJsonDepth('{"orders":[{"mall_order_no":"M-1","quantity":1}]}')).toBe(false);
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(`{"a":${nested(MAX_JSON_DEPTH - 1, '{"b":', '}')}}`)).toBe(false);
  });

  it('refuses one level more, and 100,000 levels without overflowing its own stack', () => {
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth(nested(100_000))).toBe(true);
    expect(exceedsJsonDepth(Buffer.from(nested(100_000, '{"a":', '}')))).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ memo: `${'['.repeat(500)}"\\${'{'.repeat(500)}` });
    expect(exceedsJsonDepth(text, 2)).toBe(false);
    expect(exceedsJsonDepth('["\\"[[[["]', 1)).toBe(false);
  });
});

describe('illFormedTextMessage', () => {
  const half = 'half of a surrogate pair without the other half (an escape such as \\ud800 alone)';
  const parsed = (text: string) => JSON.parse(text) as unknown;

  it('names the string that holds half a pair alone, by its path, wherever it is', () => {
    expect(illFormedTextMessage(parsed('{"orders":[{"mall_order_no":"M-1"},{"mall_order_no":"M-\\ud800"}]}'))).toBe(
      `The request body is not valid Unicode: orders[1].mall_order_no holds ${half}.`,
    );
    // A low half alone, a high half before text or before another high half, a low half after a whole pair.
    for (const escaped of ['\\uDFFFx', '\\uD83Dx', '\\uD83D\\uD83D\\uDE00', '\\uD83D\\uDE00\\uDE00', '\\ud83d']) {
      expect(illFormedTextMessage(parsed(`{"arguments":{"memo":["ok","${escaped}"]}}`)), escaped).toBe(
        `The request body is not valid Unicode: arguments.memo[1] holds ${half}.`,
      );
    }
    expect(illFormedTextMessage(parsed('{"orders":[{"\\udc00":1}]}'))).toBe(
      `The request body is not valid Unicode: a property name in orders[0] holds ${half}.`,
    );
    expect(illFormedTextMessage('\ud800')).toBe(`The request body is not valid Unicode: the body holds ${half}.`);
    // What JSON.stringify writes for such a string comes back to it.
    expect(illFormedTextMessage(parsed(JSON.stringify({ receiver_name: 'Kim \ud800' })))).toMatch(
      /: receiver_name holds/,
    );
  });

  it('lets whole pairs, any other character and an escaped backslash before u through', () => {
    expect(
      illFormedTextMessage(parsed('["\\uD83D\\uDE00", "\\ud83d\\ude00", "\\u00e9\\uD7FF\\uE000"]')),
    ).toBeUndefined();
    expect(illFormedTextMessage({ name: '김민지 😀 é', n: 1, ok: true, none: null, list: [] })).toBeUndefined();
    // `\\ud800` is a backslash and the text "ud800".
    expect(illFormedTextMessage(parsed('["\\\\ud800"]'))).toBeUndefined();
  });

  it('walks 100,000 levels without recursion', () => {
    let deep: unknown = 'ok';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(illFormedTextMessage(deep)).toBeUndefined();
  });
});

describe('contentCodingMessage', () => {
  it('names the first coding other than identity, cut at 40 characters; no coding, or identity alone, is none', () => {
    const refused = (coding: string) =>
      `The request body is sent with Content-Encoding ${coding}, which this server does not decode: send the JSON text as it is, without a Content-Encoding.`;
    expect(contentCodingMessage('gzip')).toBe(refused('gzip'));
    expect(contentCodingMessage(' identity , br')).toBe(refused('br'));
    expect(contentCodingMessage('x'.repeat(100))).toBe(refused('x'.repeat(40)));
    for (const none of [undefined, '', 'identity', 'IDENTITY', ' identity, ,identity ']) {
      expect(contentCodingMessage(none), String(none)).toBeUndefined();
    }
  });
});

describe('namesMediaType and bodyMediaTypeMessage', () => {
  it('take the type in any case, with or without parameters, and nothing else', () => {
    for (const header of [
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      ' application/json ;x=1',
    ])
      expect(namesMediaType(header, 'application/json'), header).toBe(true);
    for (const header of [
      undefined,
      '',
      'text/json',
      'application/vnd.api+json',
      'application/jsonx',
      'application/json, text/plain',
    ])
      expect(namesMediaType(header, 'application/json'), String(header)).toBe(false);
    expect(bodyMediaTypeMessage('application/json')).toBe('The request body must be sent as application/json.');
  });
});
