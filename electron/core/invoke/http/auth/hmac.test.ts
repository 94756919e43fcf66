import { describe, expect, it } from 'vitest';
import { HttpAuthSchema } from '../../../../../shared/model/http-spec';
import { authContext } from './test-context';
import { applyHmac, hmacStringToSign } from './hmac';

// Vectors computed with openssl:
//   printf 'POST\n/v1/x%%20y?b=2&a=1\n1700000000\n<sha256 of {"a":1}>' | openssl dgst -sha256 -hmac k3y
const BODY = new TextEncoder().encode('{"a":1}');
const URL_ = 'https://api.example.com/v1/x%20y?b=2&a=1';

describe('hmac', () => {
  it('builds the documented string to sign', () => {
    expect(hmacStringToSign('post', URL_, 1_700_000_000, BODY)).toBe('POST\n/v1/x%20y?b=2&a=1\n1700000000\n015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
    expect(hmacStringToSign('GET', 'https://a.example/', 1, undefined)).toBe('GET\n/\n1\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('signs with sha256/hex by default, putting signature and timestamp in their headers', () => {
    const auth = HttpAuthSchema.parse({ kind: 'hmac', secret: 'H' });
    const out = applyHmac(auth as Extract<typeof auth, { kind: 'hmac' }>, { method: 'POST', url: URL_, headers: { A: '1' }, body: BODY }, authContext({ H: 'k3y' }));
    expect(out.headers).toEqual({ A: '1', 'X-Timestamp': '1700000000', 'X-Signature': 'bac4da8654504b41165c1f4065edf5d253bfd50dad9bc968f69b5e09d1d3e8b1' });
  });

  it('sha512 and base64, custom headers', () => {
    const out = applyHmac(
      { kind: 'hmac', secret: 'H', algorithm: 'sha512', encoding: 'base64', header: 'Sig', timestampHeader: 'Ts' },
      { method: 'POST', url: URL_, headers: {}, body: BODY },
      authContext({ H: 'k3y' }),
    );
    expect(out.headers).toEqual({ Ts: '1700000000', Sig: 'mdytFe/7xTn57MVStcOrhLNo1wtx4BkWJYuv/CD3/PxqSuyhDlpC86xR9wpF7r4QDY4b0fdSbgWC8DPXS6DUCw==' });
  });

  it('refuses header names the transport owns', () => {
    expect(() =>
      applyHmac({ kind: 'hmac', secret: 'H', algorithm: 'sha256', encoding: 'hex', header: 'Content-Length', timestampHeader: 'Ts' }, { method: 'GET', url: URL_, headers: {} }, authContext({ H: 'k' })),
    ).toThrowError(/header name/);
  });
});
