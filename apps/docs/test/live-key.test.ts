// The console's check before it sends (console/live-key.ts): a live credential anywhere in the headers or the body
// stops the request; test credentials pass.
import { describe, expect, it } from 'vitest';
import { liveCredentialIn } from '../console/live-key.js';

describe('liveCredentialIn', () => {
  it('finds a live API key of any area in a header', () => {
    for (const area of ['wms', 'manager', 'cam'])
      expect(liveCredentialIn([['x-api-key', `${area}_live_AbC123`]], undefined)).toBe('the x-api-key header');
  });

  it('finds a live credential after a scheme word, and in a form body', () => {
    expect(liveCredentialIn([['authorization', 'Bearer cli_live_AbC123']], undefined)).toBe('the authorization header');
    expect(liveCredentialIn([], 'client_id=cli_live_AbC123&client_secret=x')).toBe('the request body');
  });

  it('finds live client credentials in a body', () => {
    const body = JSON.stringify({ client_id: 'cli_live_AbC123', client_secret: 's3cret' });
    expect(liveCredentialIn([['content-type', 'application/json']], body)).toBe('the request body');
  });

  it('lets test credentials and ordinary values through', () => {
    expect(liveCredentialIn([['x-api-key', 'wms_test_AbC123']], '{"client_id":"cli_test_AbC123"}')).toBeUndefined();
    // A value that only contains the word is no credential.
    expect(
      liveCredentialIn([['accept', 'application/json']], '{"memo":"mall_live_ AbC, see wms_live_ notes"}'),
    ).toBeUndefined();
    expect(liveCredentialIn([['authorization', 'Bearer eyJhbGciOi.eyJzdWIi.sig']], undefined)).toBeUndefined();
  });
});
