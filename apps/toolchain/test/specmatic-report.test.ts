// The reader of Specmatic's report, on an excerpt of what Specmatic 2.55 printed against the reference server: a
// misread report would pass the matrix whatever Specmatic found.
import { describe, expect, it } from 'vitest';
import { explained, failures, matches, operationsRun, totals } from '../src/specmatic-report.js';

const REPORT = `
|----------|-----------------------------------------------------------|--------|--------------------|----------|---------------------|-----------------|--------|
| 0%       | /v3/auth/token                                            | POST   | application/json   | 200      | application/json    | not implemented | 1f     |
|          |                                                           |        |                    | 401      | application/json    | not tested      |        |
| 8%       | /v3/wms/orders                                            | POST   | application/json   | 200      | application/json    | not implemented | 2f     |
|          |                                                           | GET    | NA                 | 200      | application/json    | covered         | 2p     |
| 0%       | /v3/wms/orders/{order_no}                                 | GET    | NA                 | 200      | application/json    | not implemented | 6f     |
| 15%      | /v3/wms/products                                          | POST   | application/json   | 200      | application/json    | covered         | 1p 1f  |
| 0%       | /v3/wms/suppliers                                         | GET    | NA                 | 400      | application/json    | not tested      |        |

Unsuccessful Scenarios:

  "Scenario: POST /v3/auth/token -> 200 with the request from the example 'token_issued' where REQUEST.BODY contains all the keys FAILED"
        Reason:
    Testing scenario "Obtain a JWT with client credentials. Response: A new JWT and refresh token."
    API: POST /v3/auth/token -> 200
  
      >> RESPONSE.STATUS
          Specification expected status 200 but response contained status 401

  "Scenario: GET /v3/wms/orders/(order_no:string) -> 200 with the request from the example 'registered_order' FAILED"
        Reason:
    Testing scenario "Read an order. Response: The order."
    API: GET /v3/wms/orders/(order_no:string) -> 200
  
            >> REQUEST.URL./v3/wms/orders/뼱࢛典䜷
                Failed to parse path: Illegal character in path at index 16: /v3/wms/orders/뼱࢛典䜷

  "Scenario: GET /v3/wms/products/(product_code:string)/options/(option_code:string) -> 200 with the request from the example 'option' FAILED"
        Reason:
    API: GET /v3/wms/products/(product_code:string)/options/(option_code:string) -> 200
        >> REQUEST.URL./v3/wms/products/뼖#/options/ 
            Failed to parse path: Illegal character in fragment at index 28: /v3/wms/products/뼖#/options/ 

  "Scenario: GET /v3/wms/orders/(order_no:string) -> 200 with the request from the example 'shipped_order' FAILED"
        Reason:
    API: GET /v3/wms/orders/(order_no:string) -> 200
      >> RESPONSE.BODY.data.results[3].created_at
          Expected string, actual was 12

  "Scenario: GET /v3/manager/products/(product_code:string)/options/(option_code:string) -> 200 FAILED"
        Reason:
    API: GET /v3/manager/products/(product_code:string)/options/(option_code:string) -> 200
        >> REQUEST.URL./v3/manager/products/ਭ楝%敟

  "Scenario: GET /v3/cam/invoices/(invoice_no:string)/videos -> 200 FAILED"
        Reason:
    Conversion = '敟'

  "Scenario: GET /v3/wms/returns/(return_no:string) -> 200 with the request from the example 'return' FAILED"
        Reason:
    Conversion = '
    '

  "Scenario: GET /v3/wms/orders -> 200 FAILED"
        Reason:
    Conversion = 'z'

  "Scenario: GET /v3/wms/products/(product_code:string) -> 200 FAILED"
        Reason:
    API: GET /v3/wms/products/(product_code:string) -> 200
        >> REQUEST.URL./v3/wms/products/abc
            Not what the contract says

Tests run: 13, Successes: 2, Failures: 11, WIP: 0, Errors: 0
`;

describe("Specmatic's report", () => {
  it('reads the summary line', () => {
    expect(totals(REPORT)).toEqual({ run: 13, successes: 2, failures: 11, errors: 0 });
    expect(totals('no summary')).toBeUndefined();
  });

  it('reads the operations that ran from the coverage table, a row without a path under the one above', () => {
    expect(operationsRun(REPORT)).toEqual([
      'GET /v3/wms/orders',
      'GET /v3/wms/orders/{order_no}',
      'POST /v3/auth/token',
      'POST /v3/wms/orders',
      'POST /v3/wms/products',
    ]);
  });

  it('reads each failure as its operation and what went wrong, once', () => {
    expect(failures(REPORT)).toEqual([
      // Refused before sending: a `%` it generated, read as a format of its log line; on a path without parameters
      // that cannot be the path's doing, so it stays a failure of its own.
      'GET /v3/cam/invoices/{invoice_no}/videos -> 200: path not percent-encoded',
      // Its own URL, with a bare `%` in a value it generated (not followed by two hex digits).
      'GET /v3/manager/products/{product_code}/options/{option_code} -> 200: path not percent-encoded',
      'GET /v3/wms/orders -> 200: no reason given',
      'GET /v3/wms/orders/{order_no} -> 200: RESPONSE.BODY.data.results[].created_at',
      'GET /v3/wms/orders/{order_no} -> 200: path not percent-encoded',
      // A URL that needs no encoding and was still refused is a finding, not this reading.
      'GET /v3/wms/products/{product_code} -> 200: REQUEST.URL./v3/wms/products/abc',
      'GET /v3/wms/products/{product_code}/options/{option_code} -> 200: path not percent-encoded',
      // A `%` followed by a line break: the report prints the break and indents the rest of the line.
      'GET /v3/wms/returns/{return_no} -> 200: path not percent-encoded',
      'POST /v3/auth/token -> 200: answered 401',
    ]);
    expect(failures('Tests run: 1, Successes: 1, Failures: 0, WIP: 0, Errors: 0')).toEqual([]);
  });

  it("reads the explained failures from the README's table, `*` standing for any text", () => {
    const readme = [
      '## Partner toolchains',
      '',
      '### Specmatic',
      '',
      '| Failure | Seen | Why |',
      '|---|---|---|',
      '| `POST /v3/auth/token -> 200: answered 401` | every run | The example credentials. |',
      '| `* -> 200: path not percent-encoded` | some runs | Not encoded. |',
      '',
      '## Commands',
      '| `GET /elsewhere -> 200: answered 500` | every run | Not in the section. |',
    ].join('\n');
    expect(explained(`# spec\n\n${readme}\n`)).toEqual([
      { failure: 'POST /v3/auth/token -> 200: answered 401', everyRun: true },
      { failure: '* -> 200: path not percent-encoded', everyRun: false },
    ]);
    expect(
      matches('* -> 200: path not percent-encoded', 'GET /v3/wms/orders/{order_no} -> 200: path not percent-encoded'),
    ).toBe(true);
    expect(matches('POST /v3/auth/token -> 200: answered 401', 'POST /v3/auth/token -> 200: answered 400')).toBe(false);
    expect(
      matches(
        'GET /v3/wms/orders/{order_no} -> 200: answered 404',
        'GET /v3/wms/orders/{order_no} -> 200: answered 404',
      ),
    ).toBe(true);
  });
});
